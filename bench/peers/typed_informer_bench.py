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
import http.client
import json
import os
import queue
import secrets
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OWNER = "web-7d4b9c8f6d"  # the fixture's ReplicaSet


CLK_TCK = os.sysconf("SC_CLK_TCK")


def system_cpu():
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    total = sum(fields)
    return (total - fields[3] - fields[4]) / CLK_TCK, total / CLK_TCK


def process_cpu(pid):
    """User + system CPU seconds of process pid (its threads included); 0 when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(rest[11]) + int(rest[12])) / CLK_TCK  # utime, stime


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


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """A minimal HTTPS client for one server: one keep-alive connection per thread."""

    def __init__(self, port, ca_file, token):
        self.port = port
        self.ctx = ssl.create_default_context(cafile=ca_file)
        self.token = token
        self.local = threading.local()

    def request(self, method, path, body=None, content_type="application/json", timeout=30):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(3):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=timeout)
                self.local.conn = conn
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                return resp.status, payload
            except (OSError, http.client.HTTPException):
                conn.close()
                self.local.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def must(self, method, path, body=None, content_type="application/json", ok=(200, 201)):
        status, payload = self.request(method, path, body, content_type)
        if status not in ok:
            raise RuntimeError("%s %s: %d %s" % (method, path, status, payload[:400].decode(errors="replace")))
        return json.loads(payload) if payload else None


# ---- servers ----

class Server:
    """A server process group started (and stopped) by this script."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.procs = []  # stopped in reverse order
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        self.client = None
        self.name = ""

    def spawn(self, name, argv):
        out = open(os.path.join(self.workdir, name + ".log"), "wb")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        out.close()
        self.procs.append((name, p))
        return p

    def cpu(self):
        return sum(process_cpu(p.pid) for _, p in self.procs)

    def check_alive(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError("%s exited with %s; see %s/%s.log" % (name, p.returncode, self.workdir, name))

    def wait_ready(self, path, timeout):
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                status, body = self.client.request("GET", path, timeout=5)
                if status == 200:
                    return
                last = "%d %s" % (status, body[:200])
            except (OSError, http.client.HTTPException) as e:
                last = str(e)
            time.sleep(0.25)
        raise RuntimeError("server not ready after %ds: %s" % (timeout, last))

    def stop(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    log("%s did not stop on SIGTERM; killing pid %d" % (name, p.pid))
                    p.kill()
                    p.wait(timeout=10)
        self.procs = []


def write_kubeconfig(path, url, ca_file, token):
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: bench\n"
                "clusters:\n- name: bench\n  cluster:\n    server: %s\n    certificate-authority: %s\n"
                "contexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\n"
                "users:\n- name: bench\n  user:\n    token: %s\n" % (url, ca_file, token))


def run(argv, cwd):
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)


def start_kube_apiserver(assets, workdir):
    """etcd + kube-apiserver with the flags of /work/shared/envtest/README.md."""
    s = Server(workdir)
    s.name = "kube-apiserver"
    pki = os.path.join(workdir, "pki")
    os.makedirs(pki)
    with open(os.path.join(pki, "san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
         "-days", "2", "-subj", "/CN=bench-ca"], pki)
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "serving.key", "-out", "serving.csr",
         "-subj", "/CN=127.0.0.1"], pki)
    run(["openssl", "x509", "-req", "-in", "serving.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
         "-CAcreateserial", "-out", "serving.crt", "-days", "2", "-extfile", "san.cnf"], pki)
    run(["openssl", "genrsa", "-out", "sa.key", "2048"], pki)
    run(["openssl", "rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], pki)
    token = secrets.token_hex(16)
    with open(os.path.join(pki, "tokens.csv"), "w") as f:
        f.write('%s,bench-admin,1000,"system:masters"\n' % token)
    etcd_client, etcd_peer, secure = free_port(), free_port(), free_port()
    s.spawn("etcd", [
        os.path.join(assets, "etcd"), "--name", "test", "--data-dir", os.path.join(workdir, "etcd"),
        "--listen-client-urls", "http://127.0.0.1:%d" % etcd_client,
        "--advertise-client-urls", "http://127.0.0.1:%d" % etcd_client,
        "--listen-peer-urls", "http://127.0.0.1:%d" % etcd_peer,
        "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % etcd_peer,
        "--initial-cluster", "test=http://127.0.0.1:%d" % etcd_peer, "--initial-cluster-state", "new"])
    p = lambda name: os.path.join(pki, name)  # noqa: E731
    s.spawn("kube-apiserver", [
        os.path.join(assets, "kube-apiserver"), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
        "--secure-port=%d" % secure, "--etcd-servers=http://127.0.0.1:%d" % etcd_client,
        "--tls-cert-file=" + p("serving.crt"), "--tls-private-key-file=" + p("serving.key"),
        "--cert-dir=" + os.path.join(workdir, "certs"),
        "--service-account-key-file=" + p("sa.pub"), "--service-account-signing-key-file=" + p("sa.key"),
        "--service-account-issuer=https://kubernetes.default.svc",
        "--token-auth-file=" + p("tokens.csv"), "--authorization-mode=RBAC",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true"])
    s.client = Client(secure, p("ca.crt"), token)
    write_kubeconfig(s.kubeconfig, "https://127.0.0.1:%d" % secure, p("ca.crt"), token)
    s.wait_ready("/readyz", 120)
    return s


def start_embedded(binary, workdir):
    """kubecpp-apiserver: memory storage, TLS + token (its PKI and token in the data dir)."""
    s = Server(workdir)
    s.name = "kubecpp-apiserver"
    data = os.path.join(workdir, "data")
    port = free_port()
    s.spawn("kubecpp-apiserver", [binary, "--data-dir", data, "--storage", "memory",
                                  "--listen", "127.0.0.1:%d" % port, "--log-level", "warn"])
    ca_file, token_file = os.path.join(data, "pki", "ca.crt"), os.path.join(data, "token")
    deadline = time.monotonic() + 60
    while not (os.path.exists(token_file) and os.path.exists(os.path.join(data, "kubeconfig"))):
        s.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError("kubecpp-apiserver wrote no kubeconfig in 60 s")
        time.sleep(0.1)
    with open(token_file) as f:
        token = f.read().strip()
    s.client = Client(port, ca_file, token)
    write_kubeconfig(s.kubeconfig, "https://127.0.0.1:%d" % port, ca_file, token)
    s.wait_ready("/readyz", 60)
    return s


# ---- the Pods ----

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
