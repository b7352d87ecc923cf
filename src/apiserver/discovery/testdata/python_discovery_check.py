"""Reads the discovery documents of a kubecpp server with the Python `kubernetes` client.

Usage: python_discovery_check.py <server-url> <cache-file>
Exits 0 when every document deserializes into the client's models and the DynamicClient resolves
and lists resources; prints what failed otherwise. Run by kubectl_stub_test.cpp.
"""
import sys

from kubernetes import client, dynamic


def main():
    url, cache_file = sys.argv[1], sys.argv[2]
    config = client.Configuration()
    config.host = url
    api = client.ApiClient(config)

    versions = client.CoreApi(api).get_api_versions()
    assert versions.versions == ["v1"], versions
    assert versions.server_address_by_client_cid_rs[0].client_cidr == "0.0.0.0/0"

    groups = client.ApisApi(api).get_api_versions()
    names = [g.name for g in groups.groups]
    assert names == ["apps", "coordination.k8s.io", "events.k8s.io", "example.com"], names
    assert groups.groups[0].preferred_version.group_version == "apps/v1"

    apps = client.AppsApi(api).get_api_group()
    assert apps.name == "apps" and apps.versions[0].version == "v1", apps

    core = client.CoreV1Api(api).get_api_resources()
    by_name = {r.name: r for r in core.resources}
    assert by_name["pods"].short_names == ["po"], by_name["pods"]
    assert by_name["pods"].categories == ["all"]
    assert by_name["pods/status"].verbs == ["get", "patch", "update"]
    assert by_name["namespaces"].namespaced is False
    assert by_name["configmaps"].storage_version_hash == "qFsyl6wFWjQ="

    apps_v1 = client.AppsV1Api(api).get_api_resources()
    scale = {r.name: r for r in apps_v1.resources}["deployments/scale"]
    assert (scale.group, scale.version, scale.kind) == ("autoscaling", "v1", "Scale"), scale

    version = client.VersionApi(api).get_code()
    assert version.git_version == "v1.32.0" and version.minor == "32", version

    dyn = dynamic.DynamicClient(api, cache_file=cache_file)
    deployments = dyn.resources.get(api_version="apps/v1", kind="Deployment")
    assert deployments.namespaced and deployments.name == "deployments"
    listed = deployments.get(namespace="default")
    assert [d.metadata.name for d in listed.items] == ["web"], listed
    widgets = dyn.resources.get(api_version="example.com/v1", kind="Widget")
    assert widgets.short_names == ["wd"], widgets.short_names
    assert [w.metadata.name for w in widgets.get(namespace="default").items] == ["w1"]
    configmaps = dyn.resources.search(kind="ConfigMap")
    assert len(configmaps) == 1 and configmaps[0].group_version == "v1", configmaps
    print("ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        import traceback
        traceback.print_exc()
        sys.exit(1)
