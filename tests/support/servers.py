"""Real and embedded API servers for Python tests and benchmarks.

`start_kube_apiserver(assets, workdir)` starts etcd plus kube-apiserver from the envtest binaries
that KUBEBUILDER_ASSETS names, with the flags of the envtest README (loopback, TLS with a CA made
by openssl, a `system:masters` token, RBAC). `start_embedded(binary, workdir)` starts
kubecpp-apiserver with memory storage, TLS and its bearer token. Both return a `Server` whose
`client` speaks HTTPS to it and whose `stop()` ends the processes (kube-apiserver before etcd).
Python 3 standard library only.
"""
import http.client
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def process_cpu(pid):
    """User + system CPU seconds of process pid (its threads included); 0 when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(rest[11]) + int(rest[12])) / CLK_TCK  # utime, stime


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
        """(status, body bytes) of one request; a JSON body unless `body` is bytes."""
        status, _, payload = self.exchange(method, path, body, {"Content-Type": content_type}, timeout)
        return status, payload

    def exchange(self, method, path, body=None, headers=None, timeout=30):
        """(status, [(header, value)], body bytes) of one request with `headers` added (Accept
        defaults to application/json; Content-Type is sent only with a body). Retries a request
        whose keep-alive connection the server had closed."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        sent = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        for k, v in (headers or {}).items():
            if k.lower() == "content-type" and data is None:
                continue
            sent[k] = v
        for attempt in range(3):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=timeout)
                self.local.conn = conn
            try:
                conn.timeout = timeout
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                conn.request(method, path, body=data, headers=sent)
                resp = conn.getresponse()
                payload = resp.read()
                if resp.will_close:
                    conn.close()
                    self.local.conn = None
                return resp.status, resp.getheaders(), payload
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


def start_embedded(binary, workdir, extra_args=()):
    """kubecpp-apiserver: memory storage, TLS + token (its PKI and token in the data dir)."""
    s = Server(workdir)
    s.name = "kubecpp-apiserver"
    data = os.path.join(workdir, "data")
    port = free_port()
    s.spawn("kubecpp-apiserver", [binary, "--data-dir", data, "--storage", "memory",
                                  "--listen", "127.0.0.1:%d" % port, "--log-level", "warn"] + list(extra_args))
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
