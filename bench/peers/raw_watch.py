#!/usr/bin/python3
"""Delivery ceiling for the side-by-side bench (issue 10), driven by peer_loader: not a client
library. Reads the server address from $KUBECONFIG's first cluster (plain http only), takes the
current resourceVersion from a LIST with limit=1 (so its "sync" figures are NOT comparable with
the clients'), then opens one watch on all benchobjects and only counts newline-terminated event
lines, without decoding them, until $BENCH_M have arrived. Its events/s is how fast the embedded
server delivers one watch stream to a reader that does no work: no client can exceed it.
"""
import http.client
import json
import os
import re
import sys
import time
import urllib.parse

from procstat import vmhwm_kb


def main():
    m = int(os.environ.get("BENCH_M", "0"))
    with open(os.environ["KUBECONFIG"]) as f:
        server = re.search(r"server:\s*\"?(http://[^\s\"]+)", f.read()).group(1)
    url = urllib.parse.urlparse(server)
    path = "/apis/bench.example.com/v1/benchobjects"
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(url.hostname, url.port)
    conn.request("GET", path + "?limit=1")
    rv = json.loads(conn.getresponse().read())["metadata"]["resourceVersion"]
    t1 = time.monotonic()
    print(json.dumps({"phase": "synced", "sync_ms": (t1 - t0) * 1e3, "vmhwm_kb": vmhwm_kb(), "items": 0}),
          flush=True)
    conn = http.client.HTTPConnection(url.hostname, url.port)
    conn.request("GET", path + "?watch=1&resourceVersion=" + rv)
    resp = conn.getresponse()
    events = 0
    first = last = 0.0
    while events < m:
        chunk = resp.read1(1 << 20)
        if not chunk:
            print("watch ended after %d events" % events, file=sys.stderr)
            return 1
        now = time.monotonic()
        if events == 0:
            first = now
        events += chunk.count(b"\n")
        last = now
    print(json.dumps({"phase": "done", "events": events, "first_to_last_ms": (last - first) * 1e3,
                      "vmhwm_kb": vmhwm_kb()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
