"""Smoke test of the Python `kubernetes` client against kubecpp's embedded API server.

Usage: /usr/bin/python3 python_client_smoke.py <kubeconfig>

Uses TLS and the bearer token from the kubeconfig. Prints one line per step; any failed check
raises, so the exit code is non-zero. Driven by tests/e2e/python_client_test.cpp.
"""

import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main():
    config.load_kube_config(config_file=sys.argv[1])
    v1 = client.CoreV1Api()

    names = sorted(ns.metadata.name for ns in v1.list_namespace().items)
    check({"default", "kube-public", "kube-system"} <= set(names), names)
    print("namespaces:", " ".join(n for n in names if n.startswith("kube-") or n == "default"))

    body = client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="py-cm", labels={"app": "py"}), data={"k": "v1"})
    created = v1.create_namespaced_config_map("default", body)
    check(created.metadata.uid, "uid set")
    check(created.metadata.resource_version, "resourceVersion set")
    check(created.metadata.creation_timestamp is not None, "creationTimestamp set")
    create_rv = created.metadata.resource_version
    print("created:", created.metadata.name, created.data["k"])

    try:
        v1.create_namespaced_config_map("default", body)
        check(False, "second create must fail")
    except ApiException as e:
        check(e.status == 409, e.status)
        print("create again:", e.status, e.reason)

    read = v1.read_namespaced_config_map("py-cm", "default")
    check(read.metadata.resource_version == create_rv, "read returns the stored object")
    print("read:", read.metadata.name, read.data["k"], read.metadata.labels["app"])

    # A list body is sent as application/json-patch+json (a dict would be strategic merge).
    patched = v1.patch_namespaced_config_map(
        "py-cm", "default", [{"op": "replace", "path": "/data/k", "value": "v2"},
                             {"op": "add", "path": "/data/extra", "value": "x"}])
    check(int(patched.metadata.resource_version) > int(create_rv), "patch bumps resourceVersion")
    print("patched:", patched.data["k"], patched.data["extra"])

    selected = v1.list_namespaced_config_map("default", label_selector="app=py")
    check([c.metadata.name for c in selected.items] == ["py-cm"], selected.items)
    print("selected:", len(selected.items))

    # Watch from the create's RV: the patch arrives as MODIFIED; timeoutSeconds ends the stream.
    events = []
    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_config_map, namespace="default",
                          resource_version=create_rv, timeout_seconds=1):
        events.append((event["type"], event["object"].metadata.name,
                       event["object"].data.get("k")))
    check(events == [("MODIFIED", "py-cm", "v2")], events)
    print("watch from rv:", " ".join("%s/%s/%s" % e for e in events))

    # Watch without RV: the current state as ADDED, then the delete as DELETED.
    w = watch.Watch()
    seen = []
    for event in w.stream(v1.list_namespaced_config_map, namespace="default",
                          label_selector="app=py", timeout_seconds=5):
        seen.append((event["type"], event["object"].metadata.name))
        if event["type"] == "ADDED":
            status = v1.delete_namespaced_config_map("py-cm", "default")
            check(status.status == "Success" or getattr(status, "kind", "") == "Status", status)
        elif event["type"] == "DELETED":
            w.stop()
    check(seen == [("ADDED", "py-cm"), ("DELETED", "py-cm")], seen)
    print("watch:", " ".join("%s/%s" % e for e in seen))

    try:
        v1.read_namespaced_config_map("py-cm", "default")
        check(False, "read after delete must fail")
    except ApiException as e:
        check(e.status == 404, e.status)
        print("read after delete:", e.status, e.reason)
    print("PASS")


if __name__ == "__main__":
    main()
