"""The Python `kubernetes` client against kubecpp's embedded API server: a CustomResourceDefinition
and its custom resources through ApiextensionsV1Api / CustomObjectsApi, plus what
python_client_smoke.py does not cover: a paginated list with `_continue` and a 409 on a stale
update.

Usage: /usr/bin/python3 python_crd_smoke.py <kubeconfig>

Prints one line per step; any failed check raises, so the exit code is non-zero. Driven by
tests/e2e/python_crd_test.cpp.
"""

import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException


def check(cond, what):
    if not cond:
        raise AssertionError(what)


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    "color": {"type": "string"},
                    "replicas": {"type": "integer", "minimum": 0}}}}}},
        }],
    },
}


def established(ext):
    crd = ext.read_custom_resource_definition("widgets.example.com")
    return any(c.type == "Established" and c.status == "True" for c in (crd.status.conditions or []))


def main():
    config.load_kube_config(config_file=sys.argv[1])
    core = client.CoreV1Api()
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()

    # --- CRD and custom resources ---
    ext.create_custom_resource_definition(CRD)
    for _ in range(100):
        if established(ext):
            break
        time.sleep(0.05)
    check(established(ext), "CRD established")
    print("crd: established")

    group, version, plural = "example.com", "v1", "widgets"
    w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
         "spec": {"color": "red", "replicas": 1, "unknown": "pruned"}}
    created = custom.create_namespaced_custom_object(group, version, "default", plural, w)
    check(created["metadata"]["generation"] == 1, created)
    check("unknown" not in created["spec"], created)
    print("cr created:", created["metadata"]["name"], created["spec"]["color"])

    got = custom.get_namespaced_custom_object(group, version, "default", plural, "w1")
    check(got["metadata"]["uid"] == created["metadata"]["uid"], got)
    listed = custom.list_namespaced_custom_object(group, version, "default", plural)
    check(listed["kind"] == "WidgetList", listed["kind"])
    check([i["metadata"]["name"] for i in listed["items"]] == ["w1"], listed)
    print("cr listed:", len(listed["items"]))

    patched = custom.patch_namespaced_custom_object(group, version, "default", plural, "w1",
                                                    {"spec": {"color": "blue"}})
    check(patched["spec"]["color"] == "blue", patched)
    check(patched["metadata"]["generation"] == 2, patched)
    print("cr patched:", patched["spec"]["color"], patched["metadata"]["generation"])

    try:
        custom.create_namespaced_custom_object(
            group, version, "default", plural,
            {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "bad"},
             "spec": {"replicas": -1}})
        check(False, "invalid CR must fail")
    except ApiException as e:
        check(e.status == 422, e.status)
        print("cr invalid:", e.status)

    custom.delete_namespaced_custom_object(group, version, "default", plural, "w1")
    try:
        custom.get_namespaced_custom_object(group, version, "default", plural, "w1")
        check(False, "deleted CR must be gone")
    except ApiException as e:
        check(e.status == 404, e.status)
        print("cr deleted:", e.status)

    # --- a paginated list with _continue ---
    for i in range(5):
        core.create_namespaced_config_map(
            "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="page-%d" % i,
                                                                       labels={"page": "yes"})))
    names, token, pages = [], None, 0
    while True:
        page = core.list_namespaced_config_map("default", label_selector="page=yes", limit=2,
                                               _continue=token)
        pages += 1
        names += [c.metadata.name for c in page.items]
        token = page.metadata._continue
        if not token:
            break
    check(names == ["page-%d" % i for i in range(5)], names)
    check(pages == 3, pages)
    print("paginated:", pages, "pages", len(names), "items")

    # --- 409 on a stale update ---
    cm = core.read_namespaced_config_map("page-0", "default")
    stale_rv = cm.metadata.resource_version
    cm.data = {"k": "v1"}
    core.replace_namespaced_config_map("page-0", "default", cm)
    cm.data = {"k": "v2"}
    cm.metadata.resource_version = stale_rv
    try:
        core.replace_namespaced_config_map("page-0", "default", cm)
        check(False, "stale update must fail")
    except ApiException as e:
        check(e.status == 409, e.status)
        print("stale update:", e.status, e.reason)

    ext.delete_custom_resource_definition("widgets.example.com")
    for _ in range(100):
        try:
            ext.read_custom_resource_definition("widgets.example.com")
        except ApiException as e:
            if e.status == 404:
                break
        time.sleep(0.05)
    print("crd: deleted")


if __name__ == "__main__":
    main()
