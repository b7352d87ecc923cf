#!/usr/bin/python3
"""The Python `kubernetes` client side of the side-by-side bench (issue 10), driven by peer_loader.

Run with Debian's /usr/bin/python3 (python3-kubernetes). From $KUBECONFIG: one LIST of every
bench.example.com/v1 benchobject through CustomObjectsApi (the client's own JSON decoding into
dicts), printing {"phase":"synced","sync_ms","vmhwm_kb","items"} (time measured from just before
the configuration is loaded, after imports); then a watch from the list's resourceVersion
(kubernetes.watch.Watch, which decodes each event) counting MODIFIED events until $BENCH_M have
arrived, printing {"phase":"done","events","first_to_last_ms","vmhwm_kb"}.

With `--decode-events FILE` (NDJSON watch events, e.g. ../shared/bench/gen_bench_objects.py N
--format events) it measures the client's watch decoding alone, with no server and no network:
the whole file is read into memory first, then timed through kubernetes.watch.Watch().stream
(its line splitting and per-event unmarshal, with the return type that list_cluster_custom_object
declares, exactly as in a real watch of a custom resource), fed in 64 KiB chunks, printing
{"phase":"decode","events","bytes","decode_ms","events_per_s","mb_per_s","vmhwm_kb"}.
"""
import json
import os
import sys
import time

from procstat import vmhwm_kb

from kubernetes import client, config, watch


class _InMemoryResponse:
    """Stands in for the urllib3 response Watch.stream reads: serves a byte string in chunks."""

    def __init__(self, data, chunk=64 * 1024):
        self._data = data
        self._chunk = chunk

    def stream(self, amt=None, decode_content=False):
        for i in range(0, len(self._data), self._chunk):
            yield self._data[i:i + self._chunk]

    def close(self):
        pass

    def release_conn(self):
        pass


def decode_events(path):
    with open(path, "rb") as f:
        data = f.read()
    response = _InMemoryResponse(data)

    def list_events(**kwargs):
        """Serves the in-memory watch stream.

        :return: object
        """
        return response

    w = watch.Watch()
    events = 0
    t0 = time.monotonic()
    for event in w.stream(list_events, timeout_seconds=1):
        if event["type"] == "ERROR":
            print("error event in %s" % path, file=sys.stderr)
            return 1
        events += 1
    t1 = time.monotonic()
    seconds = max(t1 - t0, 1e-9)
    print(json.dumps({"phase": "decode", "events": events, "bytes": len(data), "decode_ms": seconds * 1e3,
                      "events_per_s": events / seconds, "mb_per_s": len(data) / seconds / 1e6,
                      "vmhwm_kb": vmhwm_kb()}), flush=True)
    return 0 if events > 0 else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--decode-events":
        return decode_events(sys.argv[2])
    m = int(os.environ.get("BENCH_M", "0"))
    group, version, plural = "bench.example.com", "v1", "benchobjects"
    t0 = time.monotonic()
    config.load_kube_config()
    api = client.CustomObjectsApi()
    objects = api.list_cluster_custom_object(group, version, plural)
    t1 = time.monotonic()
    items = len(objects["items"])
    rv = objects["metadata"]["resourceVersion"]
    print(json.dumps({"phase": "synced", "sync_ms": (t1 - t0) * 1e3, "vmhwm_kb": vmhwm_kb(),
                      "items": items}), flush=True)

    updates = 0
    first = last = 0.0
    w = watch.Watch()
    while updates < m:
        for event in w.stream(api.list_cluster_custom_object, group, version, plural,
                              resource_version=rv, allow_watch_bookmarks=False, timeout_seconds=300):
            if event["type"] == "MODIFIED":
                now = time.monotonic()
                if updates == 0:
                    first = now
                last = now
                updates += 1
            if event["type"] == "ERROR":
                print("watch error: %s" % event["raw_object"], file=sys.stderr)
                return 1
            rv = event["object"]["metadata"]["resourceVersion"]
            if updates >= m:
                w.stop()
                break
    print(json.dumps({"phase": "done", "events": updates, "first_to_last_ms": (last - first) * 1e3,
                      "vmhwm_kb": vmhwm_kb()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
