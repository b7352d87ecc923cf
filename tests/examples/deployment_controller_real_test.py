#!/usr/bin/python3
"""The deployment controller example on the real kube-apiserver (KUBEBUILDER_ASSETS).

Starts etcd plus kube-apiserver, runs the kubecpp-deployment-controller binary against them (its
Deployment and ReplicaSet controllers and simulated kubelet play kube-controller-manager's,
kube-scheduler's and the kubelet's parts), creates a Deployment of 3 replicas, scales it to 1 and
checks that the pods are bound through pods/binding, run, and that the Deployment reports them
available; the controller must log no error. Skipped (exit 77) without KUBEBUILDER_ASSETS.

  deployment_controller_real_test.py BINARY
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from servers import start_kube_apiserver  # noqa: E402

NS = "/apis/apps/v1/namespaces/default/deployments"


def wait_for(what, fn, timeout=60):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        ok, last = fn()
        if ok:
            return last
        time.sleep(0.25)
    raise AssertionError("timed out waiting for %s; last: %s" % (what, last))


def main():
    assets = os.environ.get("KUBEBUILDER_ASSETS", "")
    if not assets:
        print("KUBEBUILDER_ASSETS is not set: skipped")
        return 77
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="kubecpp-deploy-real-")
    server = None
    ctl = None
    try:
        server = start_kube_apiserver(assets, work)
        c = server.client
        log_path = os.path.join(work, "controller.log")
        ctl = subprocess.Popen([binary, "--kubeconfig", server.kubeconfig, "--kubelet-ready-delay-ms", "200"],
                               stdout=open(log_path, "wb"), stderr=subprocess.STDOUT)
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}}
        status, body = c.request("POST", NS, dep)
        assert status == 201, (status, body)

        def state(replicas):
            def check():
                pods = json.loads(c.request("GET", "/api/v1/namespaces/default/pods")[1])["items"]
                live = [p for p in pods if "deletionTimestamp" not in p["metadata"]]
                running = [p for p in live if p.get("status", {}).get("phase") == "Running" and p["spec"].get("nodeName")
                           and any(cond["type"] == "PodScheduled" and cond["status"] == "True"
                                   for cond in p["status"].get("conditions", []))]
                d = json.loads(c.request("GET", NS + "/web")[1])
                ok = len(live) == replicas and len(running) == replicas and \
                    d.get("status", {}).get("availableReplicas") == replicas
                return ok, {"pods": [(p["metadata"]["name"], p.get("status", {}).get("phase")) for p in live],
                            "status": d.get("status")}
            return check

        wait_for("3 available replicas", state(3))
        status, body = c.request("PATCH", NS + "/web/scale", {"spec": {"replicas": 1}},
                                 content_type="application/merge-patch+json")
        assert status == 200, (status, body)
        wait_for("1 available replica", state(1))
        ctl.terminate()
        assert ctl.wait(30) == 0, "the controller did not stop cleanly"
        with open(log_path, errors="replace") as f:
            errors = [line for line in f if " E " in line or "Forbidden" in line]
        assert not errors, "the controller logged errors:\n" + "".join(errors[:20])
        print("ok: 3 replicas ran and scaled to 1 on kube-apiserver")
        return 0
    finally:
        if ctl is not None and ctl.poll() is None:
            ctl.kill()
            ctl.wait()
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
