#!/usr/bin/python3
"""Typed Pod informers side by side: kubecpp's typed informer against client-go's.

Starts a server (the real kube-apiserver + etcd when $KUBEBUILDER_ASSETS is set, else the embedded
build/release/apps/kubecpp-apiserver/kubecpp-apiserver), creates N Pods shaped as
testdata/pod_4k.json (spec, labels, annotations, finalizer, an ownerReference to a real
ReplicaSet, then the fixture's status through the status subresource), spread over a few
namespaces with a common prefix. Then, for each of R rounds, runs one process of each client in
turn (the order alternates between rounds):

  1. the client starts with KUBECONFIG, BENCH_M and BENCH_NS_PREFIX set and prints its
     {"phase":"synced",...} line (sync_ms, vmhwm_kb, items);
  2. the driver SIGSTOPs it, writes M merge patches (each sets a label on a distinct Pod: one
     MODIFIED event each), SIGCONTs it and times until the client prints {"phase":"done",...}:
     events/s is M over that drain, the client's throughput rather than this writer's.

Prints a markdown table (median [min-max] per client, kubecpp/client-go ratios of the medians)
and writes every raw line to --out. Python 3 standard library only; 127.0.0.1 only.

On a shared machine: --wait-idle S waits (up to S s) before each client run until the CPUs are
idle; each row records other_cpu_cores, the CPU that processes other than the server, the client
and this driver used during the run (in cores), so that a disturbed run shows.

  bench/peers/typed_informer_bench.py --n 10000 --runs 3 --out /tmp/typed.json
  KUBEBUILDER_ASSETS=/work/shared/envtest/bin bench/peers/typed_informer_bench.py ...
"""
import argparse
import concurrent.futures
import copy
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OWNER = "web-7d4b9c8f6d"  # the fixture's ReplicaSet

sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from servers import log, process_cpu, start_embedded, start_kube_apiserver  # noqa: E402


CLK_TCK = os.sysconf("SC_CLK_TCK")


def system_cpu():
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    total = sum(fields)
    return (total - fields[3] - fields[4]) / CLK_TCK, total / CLK_TCK


def self_cpu():
    t = os.times()
    return t.user + t.system


def wait_idle(max_wait, min_idle=0.85):
    """Waits up to max_wait s until the CPUs are at least min_idle idle over 2 s; the last idle
    fraction measured."""
    deadline = time.monotonic() + max_wait
    while True:
        b0, t0 = system_cpu()
        time.sleep(2)
        b1, t1 = system_cpu()
        idle = 1 - (b1 - b0) / max(t1 - t0, 1e-9)
        if idle >= min_idle or time.monotonic() >= deadline:
            return idle
        time.sleep(3)


def pod_template(fixture):
    with open(fixture) as f:
        pod = json.load(f)
    meta = pod["metadata"]
    for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"):
        meta.pop(k, None)
    status = pod.pop("status")
    return pod, status


def parallel(items, threads, fn):
    """fn(item) for every item on `threads` threads; re-raises the first failure."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        for f in concurrent.futures.as_completed([pool.submit(fn, i) for i in items]):
            f.result()


def load(server, args):
    c = server.client
    namespaces = ["%s%d" % (args.ns_prefix, i) for i in range(args.namespaces)]
    pod, status = pod_template(os.path.join(ROOT, "testdata", "pod_4k.json"))
    owners = {}
    for ns in namespaces:
        c.must("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        # A real owner, so that the ownerReference holds and a garbage collector leaves the Pods be.
        labels = {"app": "web", "pod-template-hash": "7d4b9c8f6d"}
        rs = c.must("POST", "/apis/apps/v1/namespaces/%s/replicasets" % ns, {
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": OWNER, "labels": labels},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": pod["spec"]["containers"][0]["image"]}]}}}})
        owners[ns] = rs["metadata"]["uid"]

    def create(i):
        ns = namespaces[i % len(namespaces)]
        p = copy.deepcopy(pod)
        p["metadata"]["name"] = "%s-%06d" % (OWNER, i)
        p["metadata"]["namespace"] = ns
        p["metadata"]["ownerReferences"][0]["uid"] = owners[ns]
        c.must("POST", "/api/v1/namespaces/%s/pods" % ns, p)
        # The server resets status on create; the kubelet's status comes through the subresource.
        c.must("PATCH", "/api/v1/namespaces/%s/pods/%s/status" % (ns, p["metadata"]["name"]),
               {"status": status}, content_type="application/merge-patch+json")

    t0 = time.monotonic()
    parallel(range(args.n), args.threads, create)
    log("created %d Pods in %d namespaces in %.1f s" % (args.n, len(namespaces), time.monotonic() - t0))
    sample = c.must("GET", "/api/v1/namespaces/%s/pods/%s-%06d" % (namespaces[0], OWNER, 0))
    return namespaces, len(json.dumps(sample, separators=(",", ":")))


# ---- the clients ----

class Peer:
    """One client process; its stdout lines go to a queue read with a timeout."""

    def __init__(self, name, argv, env, stderr_path):
        self.name = name
        self.err = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=self.err,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode(errors="replace").rstrip("\n"))
        self.lines.put(None)

    def wait_phase(self, phase, timeout):
        """The JSON object of the next line with "phase" == phase; raises on EOF or timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("%s: no %s line in %d s" % (self.name, phase, timeout))
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError("%s exited (status %s) before its %s line" % (self.name, self.proc.wait(), phase))
            try:
                v = json.loads(line)
            except ValueError:
                v = None
            if isinstance(v, dict) and v.get("phase") == phase:
                return v
            log("  %s: %s" % (self.name, line))

    def finish(self, timeout=30):
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGCONT)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log("  %s did not exit within %d s; killing pid %d" % (self.name, timeout, self.proc.pid))
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.reader.join(timeout=10)
        self.err.close()
        return self.proc.returncode


CURRENT_PEERS = []  # the client running now, stopped by main's cleanup on an error or SIGTERM


def one_run(server, args, namespaces, name, argv, rnd, seq):
    env = dict(os.environ, KUBECONFIG=server.kubeconfig, BENCH_M=str(args.updates),
               BENCH_NS_PREFIX=args.ns_prefix, BENCH_N=str(args.n))
    err_path = os.path.join(server.workdir, "%s-run%d.stderr" % (name, rnd))
    if name == "kubecpp" and args.kubecpp_watch_list:
        env["BENCH_KUBECPP_WATCH_LIST"] = "1"
    row = {"server": server.name, "client": name, "run": rnd, "n": args.n, "m": args.updates}
    if args.wait_idle > 0:
        row["idle_before"] = round(wait_idle(args.wait_idle), 3)
    row["started_at"] = time.strftime("%H:%M:%S")
    cpu0 = (system_cpu()[0], server.cpu(), self_cpu(), time.monotonic())
    peer = Peer(name, argv, env, err_path)
    CURRENT_PEERS.append(peer)
    try:
        synced = peer.wait_phase("synced", args.timeout)
        row["synced"] = synced
        if synced.get("items") != args.n:
            row["warning"] = "items %s != n %d" % (synced.get("items"), args.n)
        if args.stop:
            peer.proc.send_signal(signal.SIGSTOP)
        c = server.client

        def patch(j):
            ns = namespaces[j % len(namespaces)]
            body = {"metadata": {"labels": {"bench-update": "s%d-u%d" % (seq, j)}}}
            c.must("PATCH", "/api/v1/namespaces/%s/pods/%s-%06d" % (ns, OWNER, j % args.n), body,
                   content_type="application/merge-patch+json")

        w0 = time.monotonic()
        parallel(range(args.updates), args.threads, patch)
        w1 = time.monotonic()
        if args.stop:
            peer.proc.send_signal(signal.SIGCONT)
        done = peer.wait_phase("done", args.timeout)
        d = time.monotonic()
        # The client may have exited: a zombie keeps its CPU times until it is reaped.
        others = (system_cpu()[0] - cpu0[0]) - (server.cpu() - cpu0[1]) - (self_cpu() - cpu0[2]) \
            - process_cpu(peer.proc.pid)
        row["other_cpu_cores"] = round(max(others, 0.0) / (d - cpu0[3]), 3)
        row["client_cpu_s"] = round(process_cpu(peer.proc.pid), 2)
        row["done"] = done
        row["write_ms"] = round((w1 - w0) * 1e3, 1)
        row["drain_ms"] = round((d - w1) * 1e3, 1)
        row["events_per_s"] = args.updates / (d - w1) if args.stop else args.updates / (d - w0)
    except (RuntimeError, TimeoutError, OSError) as e:
        row["error"] = str(e)
    status = peer.finish()
    CURRENT_PEERS.remove(peer)
    row["exit_status"] = status
    if status != 0 and "error" not in row:
        row["error"] = "exit status %s" % status
    with open(err_path, errors="replace") as f:
        tail = f.read().strip().splitlines()
    if tail:
        row["stderr_lines"] = len(tail)
        row["stderr_tail"] = tail[-5:]
    return row


# ---- the table ----

def cell(values, digits):
    spec = "{:,.%df}" % digits
    med = statistics.median(values)
    if len(values) == 1:
        return spec.format(med)
    return (spec + " [" + spec + "-" + spec + "]").format(med, min(values), max(values))


def table(rows, names):
    ok = [r for r in rows if "error" not in r]
    cols = [
        ("time to synced, ms", lambda r: r["synced"]["sync_ms"], 0),
        ("VmHWM at synced, MB", lambda r: r["synced"]["vmhwm_kb"] / 1024, 1),
        ("VmHWM at done, MB", lambda r: r["done"]["vmhwm_kb"] / 1024, 1),
        ("update events/s", lambda r: r["events_per_s"], 0),
        ("client CPU, s", lambda r: r["client_cpu_s"], 2),
        ("other load, cores", lambda r: r["other_cpu_cores"], 2),  # not a property of the client
    ]
    ratios = len(cols) - 1
    out = ["| client | runs | " + " | ".join(c[0] for c in cols) + " |",
           "|---|---|" + "---|" * len(cols)]
    meds = {}
    for name in names:
        rs = [r for r in ok if r["client"] == name]
        if not rs:
            out.append("| %s | 0 | " % name + " | ".join("-" for _ in cols) + " |")
            continue
        vals = [[f(r) for r in rs] for _, f, _ in cols]
        meds[name] = [statistics.median(v) for v in vals]
        out.append("| %s | %d | " % (name, len(rs)) + " | ".join(cell(v, c[2]) for v, c in zip(vals, cols)) + " |")
    if len(names) == 2 and all(n in meds for n in names):
        a, b = meds[names[0]], meds[names[1]]
        out.append("| **%s / %s** | | " % tuple(names) +
                   " | ".join("%.2fx" % (x / y) if y else "-" for x, y in zip(a[:ratios], b[:ratios])) + " | |")
    for r in rows:
        if "error" in r:
            out.append("")
            out.append("FAILED: %s run %d: %s" % (r["client"], r["run"], r["error"]))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10000, help="Pods to create (default 10000)")
    ap.add_argument("--runs", type=int, default=3, help="rounds; each runs every client once (default 3)")
    ap.add_argument("--updates", type=int, default=1000, help="M label patches per run (default 1000)")
    ap.add_argument("--namespaces", type=int, default=4, help="namespaces the Pods are spread over (default 4)")
    ap.add_argument("--ns-prefix", default="typedbench-", help="their common prefix ($BENCH_NS_PREFIX)")
    ap.add_argument("--threads", type=int, default=8, help="writer threads (default 8)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds to wait for each client phase")
    ap.add_argument("--no-stop", dest="stop", action="store_false",
                    help="do not SIGSTOP the client while writing (events/s then includes the write time)")
    ap.add_argument("--kubecpp-watch-list", action="store_true",
                    help="kubecpp syncs with the streaming list (BENCH_KUBECPP_WATCH_LIST=1) instead of its default LIST")
    ap.add_argument("--kubecpp", default=os.path.join(ROOT, "build/release/bench/peers/kubecpp_typed_informer"))
    ap.add_argument("--cginformer", default="/work/shared/peers/bin/cginformer")
    ap.add_argument("--apiserver", default=os.path.join(ROOT, "build/release/apps/kubecpp-apiserver/kubecpp-apiserver"),
                    help="the embedded server, used when $KUBEBUILDER_ASSETS is not set")
    ap.add_argument("--out", default="typed_informer_bench.json", help="raw lines as JSON (default %(default)s)")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="S",
                    help="before each client run, wait up to S s for the CPUs to be >= 85%% idle (default 0: no wait)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, peer stderr)")
    ap.add_argument("--table", metavar="FILE", help="only print the table of an earlier --out FILE")
    args = ap.parse_args()
    if args.table:
        with open(args.table) as f:
            print_report(json.load(f))
        return 0
    if args.updates > args.n:
        ap.error("--updates must not exceed --n (each update patches a distinct Pod)")

    clients = [("kubecpp", [args.kubecpp]), ("client-go", [args.cginformer, "-mode", "typed-pods"])]
    for _, argv in clients:
        if not os.access(argv[0], os.X_OK):
            ap.error("not executable: " + argv[0])
    def on_term(signum, frame):
        raise SystemExit("terminated by signal %d" % signum)

    signal.signal(signal.SIGTERM, on_term)
    workdir = tempfile.mkdtemp(prefix="typed-informer-bench-")
    assets = os.environ.get("KUBEBUILDER_ASSETS", "")
    server = None
    rows = []
    exit_code = 0
    try:
        if assets:
            log("starting kube-apiserver + etcd from %s in %s" % (assets, workdir))
            server = start_kube_apiserver(assets, workdir)
        else:
            log("starting %s in %s" % (args.apiserver, workdir))
            server = start_embedded(args.apiserver, workdir)
        namespaces, pod_bytes = load(server, args)
        log("a stored Pod is %d bytes of compact JSON" % pod_bytes)
        seq = 0
        for rnd in range(1, args.runs + 1):
            order = clients if rnd % 2 == 1 else list(reversed(clients))
            for name, argv in order:
                seq += 1
                server.check_alive()
                row = one_run(server, args, namespaces, name, argv, rnd, seq)
                row["pod_bytes"] = pod_bytes
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                if "error" in row:
                    exit_code = 1
    except (RuntimeError, OSError, subprocess.SubprocessError, SystemExit, KeyboardInterrupt) as e:
        log("failed: %s" % e)
        exit_code = 1
    finally:
        for peer in CURRENT_PEERS:
            if peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait(timeout=10)
        if server is not None:
            server.stop()
        if args.keep or exit_code != 0:
            log("work directory kept: %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    with open(args.out, "w") as f:
        json.dump({"server": server.name if server else "", "n": args.n, "m": args.updates, "runs": args.runs,
                   "namespaces": args.namespaces, "sigstop": args.stop,
                   "kubecpp_sync": "watch-list" if args.kubecpp_watch_list else "list (default)", "rows": rows}, f, indent=1)
    if rows:
        print_report(json.load(open(args.out)))
    return exit_code


def print_report(d):
    """The heading and table of one --out file."""
    rows = d["rows"]
    print("%s, N=%d Pods (%d B each), M=%d updates, %d runs%s" % (
        d["server"], d["n"], rows[0]["pod_bytes"], d["m"], d["runs"],
        ", client SIGSTOPped while the updates are written" if d["sigstop"] else ""))
    print("kubecpp syncs with %s" % ("the streaming list (--kubecpp-watch-list)" if d["kubecpp_sync"] == "watch-list"
                                    else "its default LIST"))
    print()
    print(table(rows, ["kubecpp", "client-go"]))


if __name__ == "__main__":
    sys.exit(main())
