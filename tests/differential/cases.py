"""The cases of the differential suite: request sequences a controller, kubectl or a client
library sends, each run in a namespace of its own (`${ns}`).

A case is {"category", "name", "steps"}; a step is a dict with
  method, path            the request (`${var}` is replaced by a variable: `ns`, or one saved)
  body                    a dict/list (sent as JSON) or a str (sent as is)
  ctype                   Content-Type of the body (application/json by default)
  headers                 extra request headers
  save {var: pointer}     JSON pointers into the response body, saved for later steps
  compare                 False: run the step but leave it out of the comparison (set-up)
  watch                   True: the body is a stream of watch events
  ignore [path]           members of the reduction to leave out ("body.metadata.annotations")
Names are unique; `random_cases(seed, n)` adds seeded random sequences.
"""
import base64
import copy
import json
import random

NS = "/api/v1/namespaces/${ns}"
APPS = "/apis/apps/v1/namespaces/${ns}"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
MERGE = "application/merge-patch+json"
JSONPATCH = "application/json-patch+json"
SMP = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"


def step(method, path, body=None, **kw):
    s = {"method": method, "path": path}
    if body is not None:
        s["body"] = body
    s.update(kw)
    return s


def setup(method, path, body=None, **kw):
    return step(method, path, body, compare=False, **kw)


def case(category, name, *steps):
    return {"category": category, "name": name, "steps": list(steps)}


# ---- objects ----

def pod(name="p", containers=None, **spec):
    s = {"containers": containers if containers is not None else [{"name": "c", "image": "nginx:1.27"}]}
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": s}


def container(name="c", **kw):
    c = {"name": name, "image": "nginx:1.27"}
    c.update(kw)
    return c


def service(name="s", ports=None, **spec):
    s = {"ports": ports if ports is not None else [{"port": 80}], "selector": {"app": "web"}}
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": s}


def configmap(name="cm", data=None, **extra):
    o = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {"k": "v"}}
    o.update(extra)
    return o


def secret(name="sec", **extra):
    o = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": {"k": "dg=="}}
    o.update(extra)
    return o


def deployment(name="d", replicas=1, **spec):
    labels = {"app": name}
    s = {"replicas": replicas, "selector": {"matchLabels": labels},
         "template": {"metadata": {"labels": labels}, "spec": {"containers": [container()]}}}
    s.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": s}


def replicaset(name="rs", replicas=1):
    d = deployment(name, replicas)
    d["kind"] = "ReplicaSet"
    return d


def role(name="r", rules=None):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": name},
            "rules": rules if rules is not None else [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}


def rolebinding(name="rb", role_name="r", subjects=None, kind="Role"):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role_name},
            "subjects": subjects if subjects is not None else [
                {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]}


def lease(name="l", **spec):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": dict({"holderIdentity": "a", "leaseDurationSeconds": 15}, **spec)}


def event(name="e", **extra):
    o = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
         "involvedObject": {"kind": "Pod", "name": "p", "namespace": "${ns}"},
         "reason": "Test", "message": "hello", "type": "Normal"}
    o.update(extra)
    return o


# Each namespaced kind: (collection path, object maker, a change for updates).
KINDS = {
    "configmap": (NS + "/configmaps", lambda n: configmap(n), lambda o: o.update(data={"k": "changed"})),
    "secret": (NS + "/secrets", lambda n: secret(n), lambda o: o.update(data={"k": "Yw=="})),
    "pod": (NS + "/pods", lambda n: pod(n), lambda o: o["metadata"].update(labels={"x": "y"})),
    "service": (NS + "/services", lambda n: service(n), lambda o: o["spec"].update(selector={"app": "other"})),
    "serviceaccount": (NS + "/serviceaccounts",
                       lambda n: {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": n}},
                       lambda o: o["metadata"].update(labels={"x": "y"})),
    "event": (NS + "/events", lambda n: event(n), lambda o: o.update(message="changed")),
    "deployment": (APPS + "/deployments", lambda n: deployment(n), lambda o: o["spec"].update(replicas=3)),
    "replicaset": (APPS + "/replicasets", lambda n: replicaset(n), lambda o: o["spec"].update(replicas=2)),
    "lease": ("/apis/coordination.k8s.io/v1/namespaces/${ns}/leases", lambda n: lease(n),
              lambda o: o["spec"].update(holderIdentity="b")),
    "role": (RBAC + "/namespaces/${ns}/roles", lambda n: role(n),
             lambda o: o["rules"][0].update(verbs=["get", "list"])),
    "rolebinding": (RBAC + "/namespaces/${ns}/rolebindings", lambda n: rolebinding(n),
                    lambda o: o["subjects"].append({"kind": "Group", "apiGroup": "rbac.authorization.k8s.io",
                                                    "name": "devs"})),
    "eventv1": ("/apis/events.k8s.io/v1/namespaces/${ns}/events",
                lambda n: {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": n},
                           "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "x.io/c",
                           "reportingInstance": "i", "action": "Act", "reason": "R", "type": "Normal",
                           "regarding": {"kind": "Pod", "name": "p", "namespace": "${ns}"}},
                lambda o: o.update(note="changed")),
}


def crud_cases():
    out = []
    for kind, (coll, make, change) in KINDS.items():
        obj = make("obj")
        changed = copy.deepcopy(obj)
        change(changed)
        changed["metadata"]["resourceVersion"] = "${rv}"
        out.append(case("crud", "crud/%s/create-get" % kind,
                        step("POST", coll, obj),
                        step("GET", coll + "/obj")))
        out.append(case("crud", "crud/%s/update" % kind,
                        step("POST", coll, obj, save={"rv": "/metadata/resourceVersion"}),
                        step("PUT", coll + "/obj", changed),
                        step("GET", coll + "/obj")))
        out.append(case("crud", "crud/%s/list" % kind,
                        setup("POST", coll, make("a")), setup("POST", coll, make("b")),
                        step("GET", coll)))
        out.append(case("crud", "crud/%s/delete" % kind,
                        setup("POST", coll, obj),
                        step("DELETE", coll + "/obj"),
                        step("GET", coll + "/obj")))
        out.append(case("crud", "crud/%s/conflict" % kind,
                        setup("POST", coll, obj, save={"rv": "/metadata/resourceVersion"}),
                        setup("PUT", coll + "/obj", changed),
                        step("PUT", coll + "/obj", changed)))
        out.append(case("crud", "crud/%s/already-exists" % kind,
                        setup("POST", coll, obj),
                        step("POST", coll, obj)))
        out.append(case("crud", "crud/%s/dry-run-create" % kind,
                        step("POST", coll + "?dryRun=All", obj),
                        step("GET", coll + "/obj")))
    # cluster-scoped kinds, with names made unique by the case's namespace
    cr = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "cr-${ns}"},
          "rules": [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list", "watch"]}]}
    crb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
           "metadata": {"name": "crb-${ns}"},
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cr-${ns}"},
           "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "${ns}"}]}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-${ns}", "labels": {"a": "b"}}}
    for kind, coll, obj in (("clusterrole", RBAC + "/clusterroles", cr),
                            ("clusterrolebinding", RBAC + "/clusterrolebindings", crb),
                            ("node", "/api/v1/nodes", node)):
        name = obj["metadata"]["name"]
        out.append(case("crud", "crud/%s/create-get-delete" % kind,
                        step("POST", coll, obj), step("GET", coll + "/" + name),
                        step("DELETE", coll + "/" + name), step("GET", coll + "/" + name)))
    out.append(case("crud", "crud/namespace/get", step("GET", "/api/v1/namespaces/${ns}")))
    out.append(case("crud", "crud/namespace/create-labels",
                    step("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": "${ns}-x", "labels": {"a": "b"}}})))
    out.append(case("crud", "crud/namespace/delete",
                    step("DELETE", "/api/v1/namespaces/${ns}"), step("GET", "/api/v1/namespaces/${ns}")))
    out.append(case("crud", "crud/namespace/create-in-terminating",
                    setup("DELETE", "/api/v1/namespaces/${ns}"),
                    step("POST", NS + "/configmaps", configmap())))
    return out


# ---- validation ----

def pod_validation_cases():
    bad = {
        "duplicate-container-names": pod(containers=[container("a"), container("a")]),
        "container-name-uppercase": pod(containers=[container("Web")]),
        "no-containers": pod(containers=[]),
        "no-image": pod(containers=[{"name": "c"}]),
        "container-port-zero": pod(containers=[container(ports=[{"containerPort": 0}])]),
        "container-port-too-big": pod(containers=[container(ports=[{"containerPort": 70000}])]),
        "duplicate-port-names": pod(containers=[container(ports=[{"name": "http", "containerPort": 80},
                                                                {"name": "http", "containerPort": 81}])]),
        "port-name-too-long": pod(containers=[container(ports=[{"name": "a-very-long-port-name",
                                                                "containerPort": 80}])]),
        "port-protocol-invalid": pod(containers=[container(ports=[{"containerPort": 80, "protocol": "ICMP"}])]),
        "host-port-too-big": pod(containers=[container(ports=[{"containerPort": 80, "hostPort": 70000}])]),
        "mount-of-unknown-volume": pod(containers=[container(volumeMounts=[{"name": "v", "mountPath": "/v"}])]),
        "duplicate-volume-names": pod(volumes=[{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]),
        "volume-without-source": pod(volumes=[{"name": "v"}]),
        "duplicate-mount-paths": pod(volumes=[{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}],
                                     containers=[container(volumeMounts=[{"name": "a", "mountPath": "/m"},
                                                                         {"name": "b", "mountPath": "/m"}])]),
        "requests-above-limits": pod(containers=[container(resources={"requests": {"cpu": "2"},
                                                                      "limits": {"cpu": "1"}})]),
        "negative-request": pod(containers=[container(resources={"requests": {"memory": "-1Mi"}})]),
        "restart-policy-invalid": pod(restartPolicy="Sometimes"),
        "dns-policy-invalid": pod(dnsPolicy="Maybe"),
        "env-name-invalid": pod(containers=[container(env=[{"name": "1=x", "value": "v"}])]),
        "init-container-name-clash": pod(initContainers=[container("c")]),
        "image-pull-policy-invalid": pod(containers=[container(imagePullPolicy="Sometimes")]),
        "grace-period-negative": pod(terminationGracePeriodSeconds=-1),
        "active-deadline-zero": pod(activeDeadlineSeconds=0),
        "node-selector-bad-key": pod(nodeSelector={"bad key": "v"}),
        "hostname-invalid": pod(hostname="Not_Valid"),
        "probe-without-handler": pod(containers=[container(livenessProbe={"periodSeconds": 5})]),
        "run-as-user-negative": pod(securityContext={"runAsUser": -1}),
        "toleration-operator-invalid": pod(tolerations=[{"key": "k", "operator": "Sometimes"}]),
        "service-account-name-invalid": pod(serviceAccountName="Not_Valid"),
        "ephemeral-containers-on-create": pod(ephemeralContainers=[{"name": "dbg", "image": "busybox"}]),
        "config-map-volume-mode-invalid": pod(volumes=[{"name": "v", "configMap": {"name": "c",
                                                                                   "defaultMode": 1000}}]),
        "label-value-invalid": dict(pod(), metadata={"name": "p", "labels": {"a": "not valid!"}}),
        "readiness-probe-port-zero": pod(containers=[container(readinessProbe={"tcpSocket": {"port": 0}})]),
        "two-volume-sources": pod(volumes=[{"name": "v", "emptyDir": {}, "hostPath": {"path": "/tmp"}}]),
        "host-network-port-mismatch": pod(hostNetwork=True, containers=[
            container(ports=[{"containerPort": 80, "hostPort": 81}])]),
    }
    out = [case("validation-pod", "validation-pod/" + name, step("POST", NS + "/pods", body))
           for name, body in bad.items()]
    out.append(case("validation-pod", "validation-pod/name-invalid", step("POST", NS + "/pods", pod("Bad_Name"))))
    return out


def service_validation_cases():
    bad = {
        "no-ports": service(ports=[]),
        "port-zero": service(ports=[{"port": 0}]),
        "port-too-big": service(ports=[{"port": 70000}]),
        "two-ports-unnamed": service(ports=[{"port": 80}, {"port": 81}]),
        "duplicate-port-names": service(ports=[{"name": "a", "port": 80}, {"name": "a", "port": 81}]),
        "duplicate-ports": service(ports=[{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
        "protocol-invalid": service(ports=[{"port": 80, "protocol": "ICMP"}]),
        "target-port-name-invalid": service(ports=[{"port": 80, "targetPort": "Not_Valid"}]),
        "target-port-zero": service(ports=[{"port": 80, "targetPort": 0}]),
        "type-invalid": service(type="Internal"),
        "cluster-ip-invalid": service(clusterIP="abc"),
        "cluster-ip-out-of-range": service(clusterIP="192.168.77.7"),
        "external-name-missing": service(type="ExternalName", ports=[]),
        "external-name-invalid": service(type="ExternalName", externalName="Not_Valid", ports=[]),
        "node-port-on-cluster-ip": service(ports=[{"port": 80, "nodePort": 30080}]),
        "node-port-out-of-range": service(type="NodePort", ports=[{"port": 80, "nodePort": 80}]),
        "session-affinity-invalid": service(sessionAffinity="Sticky"),
        "external-traffic-policy-on-cluster-ip": service(externalTrafficPolicy="Local"),
        "ip-family-policy-invalid": service(ipFamilyPolicy="Both"),
        "selector-value-invalid": service(selector={"app": "not valid!"}),
        "port-name-invalid": service(ports=[{"name": "Not_Valid", "port": 80}]),
        "load-balancer-source-ranges-on-cluster-ip": service(loadBalancerSourceRanges=["10.0.0.0/8"]),
    }
    out = [case("validation-service", "validation-service/" + name, step("POST", NS + "/services", body))
           for name, body in bad.items()]
    out.append(case("validation-service", "validation-service/name-dns1035",
                    step("POST", NS + "/services", service("1svc"))))
    return out


def other_validation_cases():
    out = []
    add = lambda name, coll, body: out.append(  # noqa: E731
        case("validation-other", "validation-other/" + name, step("POST", coll, body)))
    add("secret-tls-missing-keys", NS + "/secrets", secret(type="kubernetes.io/tls"))
    add("secret-dockerconfigjson-missing", NS + "/secrets", secret(type="kubernetes.io/dockerconfigjson"))
    add("secret-basic-auth-ok", NS + "/secrets", secret(type="kubernetes.io/basic-auth",
                                                       data={"username": "dQ=="}))
    add("secret-ssh-auth-missing", NS + "/secrets", secret(type="kubernetes.io/ssh-auth"))
    add("secret-sa-token-missing-annotation", NS + "/secrets", secret(type="kubernetes.io/service-account-token"))
    add("secret-key-invalid", NS + "/secrets", secret(data={"bad key": "dg=="}))
    add("secret-type-custom", NS + "/secrets", secret(type="example.com/custom"))
    add("configmap-key-invalid", NS + "/configmaps", configmap(data={"bad key": "v"}))
    add("configmap-binary-duplicate", NS + "/configmaps", configmap(data={"k": "v"}, binaryData={"k": "dg=="}))
    add("role-rule-no-verbs", RBAC + "/namespaces/${ns}/roles",
        role(rules=[{"apiGroups": [""], "resources": ["pods"], "verbs": []}]))
    add("role-rule-no-resources", RBAC + "/namespaces/${ns}/roles",
        role(rules=[{"apiGroups": [""], "verbs": ["get"]}]))
    add("role-nonresource-url-in-role", RBAC + "/namespaces/${ns}/roles",
        role(rules=[{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]))
    add("rolebinding-subject-kind-invalid", RBAC + "/namespaces/${ns}/rolebindings",
        rolebinding(subjects=[{"kind": "Robot", "name": "r"}]))
    add("rolebinding-sa-without-namespace", RBAC + "/namespaces/${ns}/rolebindings",
        rolebinding(subjects=[{"kind": "ServiceAccount", "name": "sa"}]))
    add("rolebinding-roleref-kind-invalid", RBAC + "/namespaces/${ns}/rolebindings", rolebinding(kind="Pod"))
    add("rolebinding-roleref-missing-name", RBAC + "/namespaces/${ns}/rolebindings", rolebinding(role_name=""))
    add("rolebinding-user-with-namespace", RBAC + "/namespaces/${ns}/rolebindings",
        rolebinding(subjects=[{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "a",
                               "namespace": "x"}]))
    add("deployment-strategy-invalid", APPS + "/deployments", deployment(strategy={"type": "Sometimes"}))
    add("deployment-recreate-with-rolling-params", APPS + "/deployments",
        deployment(strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}))
    add("deployment-surge-and-unavailable-zero", APPS + "/deployments",
        deployment(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}))
    add("deployment-max-unavailable-over-100", APPS + "/deployments",
        deployment(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%"}}))
    add("deployment-negative-replicas", APPS + "/deployments", deployment(replicas=-1))
    add("deployment-selector-mismatch", APPS + "/deployments",
        dict(deployment(), spec=dict(deployment()["spec"], selector={"matchLabels": {"app": "other"}})))
    add("deployment-restart-policy-never", APPS + "/deployments",
        dict(deployment(), spec=dict(deployment()["spec"], template={
            "metadata": {"labels": {"app": "d"}},
            "spec": {"restartPolicy": "Never", "containers": [container()]}})))
    add("deployment-revision-history-negative", APPS + "/deployments", deployment(revisionHistoryLimit=-1))
    add("deployment-progress-deadline-below-min-ready", APPS + "/deployments",
        deployment(minReadySeconds=10, progressDeadlineSeconds=5))
    add("replicaset-no-selector", APPS + "/replicasets",
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
         "spec": {"template": {"spec": {"containers": [container()]}}}})
    add("lease-duration-zero", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases",
        lease(leaseDurationSeconds=0))
    add("event-involved-object-other-namespace", NS + "/events",
        event(involvedObject={"kind": "Pod", "name": "p", "namespace": "other"}))
    add("namespace-name-invalid", "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Bad.Name"}})
    add("serviceaccount-name-invalid", NS + "/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "Bad_Name"}})
    add("annotation-key-invalid", NS + "/configmaps",
        dict(configmap(), metadata={"name": "cm", "annotations": {"bad key": "v"}}))
    add("finalizer-name-invalid", NS + "/configmaps",
        dict(configmap(), metadata={"name": "cm", "finalizers": ["no-slash"]}))
    add("owner-reference-missing-uid", NS + "/configmaps",
        dict(configmap(), metadata={"name": "cm", "ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}]}))
    add("generate-name-only", NS + "/configmaps", dict(configmap(), metadata={"generateName": "cm-"}))
    add("name-too-long", NS + "/configmaps", configmap("x" * 254))
    return out


# ---- immutability ----

def immutability_cases():
    out = []

    def upd(name, coll, obj, mutate, sub=""):
        changed = copy.deepcopy(obj)
        mutate(changed)
        changed["metadata"]["resourceVersion"] = "${rv}"
        nm = obj["metadata"]["name"]
        out.append(case("immutability", "immutability/" + name,
                        setup("POST", coll, obj, save={"rv": "/metadata/resourceVersion"}),
                        step("PUT", coll + "/" + nm + sub, changed)))

    icm = configmap(immutable=True)
    upd("configmap-immutable-data", NS + "/configmaps", icm, lambda o: o.update(data={"k": "x"}))
    upd("configmap-immutable-unset", NS + "/configmaps", icm, lambda o: o.update(immutable=False))
    upd("configmap-immutable-labels-ok", NS + "/configmaps", icm,
        lambda o: o["metadata"].update(labels={"a": "b"}))
    isec = secret(immutable=True)
    upd("secret-immutable-data", NS + "/secrets", isec, lambda o: o.update(data={"k": "eA=="}))
    upd("secret-type-change", NS + "/secrets", secret(), lambda o: o.update(type="example.com/other"))
    upd("rolebinding-roleref", RBAC + "/namespaces/${ns}/rolebindings", rolebinding(),
        lambda o: o["roleRef"].update(name="other"))
    upd("service-cluster-ip", NS + "/services", service(), lambda o: o["spec"].update(clusterIP="10.0.0.77"))
    upd("service-type-to-headless", NS + "/services", service(), lambda o: o["spec"].update(clusterIP="None"))
    p = pod()
    upd("pod-container-name", NS + "/pods", p, lambda o: o["spec"]["containers"][0].update(name="d"))
    upd("pod-node-name", NS + "/pods", p, lambda o: o["spec"].update(nodeName="n1"))
    upd("pod-add-container", NS + "/pods", p, lambda o: o["spec"]["containers"].append(container("d")))
    upd("pod-image-ok", NS + "/pods", p, lambda o: o["spec"]["containers"][0].update(image="nginx:1.28"))
    upd("pod-active-deadline-ok", NS + "/pods", p, lambda o: o["spec"].update(activeDeadlineSeconds=30))
    upd("pod-toleration-add-ok", NS + "/pods", p,
        lambda o: o["spec"].update(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]))
    upd("pod-restart-policy", NS + "/pods", p, lambda o: o["spec"].update(restartPolicy="Never"))
    upd("pod-labels-ok", NS + "/pods", p, lambda o: o["metadata"].update(labels={"a": "b"}))
    upd("pod-grace-period", NS + "/pods", p, lambda o: o["spec"].update(terminationGracePeriodSeconds=5))
    upd("deployment-selector", APPS + "/deployments", deployment(),
        lambda o: o["spec"].update(selector={"matchLabels": {"app": "d", "x": "y"}}))
    upd("replicaset-selector", APPS + "/replicasets", replicaset(),
        lambda o: o["spec"].update(selector={"matchLabels": {"app": "rs", "x": "y"}}))
    upd("metadata-uid", NS + "/configmaps", configmap(),
        lambda o: o["metadata"].update(uid="00000000-0000-0000-0000-000000000001"))
    upd("metadata-name-mismatch", NS + "/configmaps", configmap(), lambda o: o["metadata"].update(name="other"))
    upd("metadata-namespace-mismatch", NS + "/configmaps", configmap(),
        lambda o: o["metadata"].update(namespace="default"))
    upd("metadata-creation-timestamp", NS + "/configmaps", configmap(),
        lambda o: o["metadata"].update(creationTimestamp="2020-01-01T00:00:00Z"))
    upd("metadata-generate-name-change-ok", NS + "/configmaps", configmap(),
        lambda o: o["metadata"].update(generateName="x-"))
    upd("lease-holder-ok", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases", lease(),
        lambda o: o["spec"].update(holderIdentity="b"))
    upd("pod-status-via-main", NS + "/pods", p, lambda o: o.update(status={"phase": "Running"}))
    upd("pod-status-subresource", NS + "/pods", p, lambda o: o.update(status={"phase": "Running"}), "/status")
    upd("pod-status-phase-invalid", NS + "/pods", p, lambda o: o.update(status={"phase": "Dancing"}), "/status")
    upd("pod-spec-via-status", NS + "/pods", p, lambda o: o["spec"].update(activeDeadlineSeconds=9), "/status")
    upd("deployment-status-subresource", APPS + "/deployments", deployment(),
        lambda o: o.update(status={"replicas": 1, "observedGeneration": 1}), "/status")
    upd("deployment-status-negative", APPS + "/deployments", deployment(),
        lambda o: o.update(status={"replicas": -1}), "/status")
    return out


# ---- defaults ----

def defaults_cases():
    out = []
    add = lambda name, coll, body: out.append(  # noqa: E731
        case("defaults", "defaults/" + name, step("POST", coll, body)))
    add("pod-minimal", NS + "/pods", pod())
    add("pod-with-probes", NS + "/pods", pod(containers=[container(
        livenessProbe={"httpGet": {"path": "/", "port": 80}},
        readinessProbe={"tcpSocket": {"port": 80}},
        startupProbe={"exec": {"command": ["true"]}},
        ports=[{"containerPort": 80}])]))
    add("pod-with-volumes", NS + "/pods", pod(
        volumes=[{"name": "cm", "configMap": {"name": "c"}}, {"name": "s", "secret": {"secretName": "s"}},
                 {"name": "e", "emptyDir": {}}, {"name": "h", "hostPath": {"path": "/tmp"}},
                 {"name": "d", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
                 {"name": "p", "projected": {"sources": [{"configMap": {"name": "c"}}]}}],
        containers=[container(volumeMounts=[{"name": "cm", "mountPath": "/cm"}])]))
    add("pod-with-env-field-ref", NS + "/pods", pod(containers=[container(
        env=[{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
             {"name": "R", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}])]))
    add("pod-with-resources", NS + "/pods", pod(containers=[container(resources={"limits": {"cpu": "1",
                                                                                            "memory": "1Gi"}})]))
    add("pod-with-node-name", NS + "/pods", pod(nodeName="node-1"))
    add("pod-host-network", NS + "/pods", pod(hostNetwork=True, containers=[container(ports=[{"containerPort": 8080}])]))
    add("pod-init-container", NS + "/pods", pod(initContainers=[container("init", command=["true"])]))
    add("pod-latest-image", NS + "/pods", pod(containers=[container(image="nginx")]))
    add("pod-with-tolerations", NS + "/pods", pod(tolerations=[{"key": "node.kubernetes.io/not-ready",
                                                                 "operator": "Exists", "effect": "NoExecute"}]))
    add("service-cluster-ip", NS + "/services", service(ports=[{"port": 80, "targetPort": 8080}]))
    add("service-named-target-port", NS + "/services", service(ports=[{"name": "http", "port": 80,
                                                                       "targetPort": "http"}]))
    add("service-headless", NS + "/services", service(clusterIP="None"))
    add("service-node-port", NS + "/services", service(type="NodePort"))
    add("service-load-balancer", NS + "/services", service(type="LoadBalancer"))
    add("service-external-name", NS + "/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                                                    "spec": {"type": "ExternalName",
                                                             "externalName": "example.com"}})
    add("service-udp", NS + "/services", service(ports=[{"port": 53, "protocol": "UDP"}]))
    add("deployment-minimal", APPS + "/deployments", deployment())
    add("deployment-no-replicas", APPS + "/deployments",
        {k: (dict(v, replicas=None) if k == "spec" else v) for k, v in deployment().items()})
    add("deployment-recreate", APPS + "/deployments", deployment(strategy={"type": "Recreate"}))
    add("replicaset-minimal", APPS + "/replicasets", replicaset())
    add("secret-no-type", NS + "/secrets", secret())
    add("secret-string-data", NS + "/secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                                                "stringData": {"a": "hello"}})
    add("configmap", NS + "/configmaps", configmap())
    add("serviceaccount", NS + "/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}})
    add("lease", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases", lease())
    add("event-core", NS + "/events", event())
    add("role", RBAC + "/namespaces/${ns}/roles", role())
    add("rolebinding", RBAC + "/namespaces/${ns}/rolebindings", rolebinding())
    add("namespace", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                            "metadata": {"name": "${ns}-d"}})
    add("node", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-${ns}"}})
    return out


# ---- subresources ----

def binding(pod_name="p", node="node-1", **extra):
    b = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod_name}, "target": {"kind": "Node",
                                                                                          "name": node}}
    b.update(extra)
    return b


def token_request(spec=None, **extra):
    o = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec if spec is not None else {}}
    o.update(extra)
    return o


def token_request_cases():
    """serviceaccounts/NAME/token (part of subresource_cases). A token's bytes differ between any two
    servers (keys, jti, times): `body.status.token` is left out of every 201."""
    out = []
    sas, token = NS + "/serviceaccounts", NS + "/serviceaccounts/sa/token"
    sa = setup("POST", sas, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}})
    no_token = ["body.status.token"]
    add = lambda name, *steps: out.append(case("subresources", "subresources/serviceaccount-token-" + name, *steps))  # noqa: E731
    ok = lambda body, path=token, **kw: step("POST", path, body, ignore=no_token, **kw)  # noqa: E731
    bound = lambda ref: token_request({"boundObjectRef": ref})  # noqa: E731
    add("defaults", sa, ok(token_request()), ok({"spec": {}}), ok(token_request({"audiences": []})))
    add("audiences", sa, ok(token_request({"audiences": ["a", "b"], "expirationSeconds": 600})),
        ok(token_request({"audiences": [""], "expirationSeconds": 4294967296})))
    add("expiration-invalid", sa, step("POST", token, token_request({"expirationSeconds": 599})),
        step("POST", token, token_request({"expirationSeconds": 4294967297})),
        step("POST", token, token_request({"expirationSeconds": 0})),
        step("POST", token, token_request({"expirationSeconds": -5})))
    add("decode-errors", sa, step("POST", token, {"apiVersion": "v1", "kind": "Pod", "spec": {}}),
        step("POST", token, dict(token_request(), apiVersion="authentication.k8s.io/v2")),
        step("POST", token, dict(token_request(), apiVersion="v1")),
        step("POST", token, token_request({"expirationSeconds": "abc"})),
        step("POST", token, '{"spec": '), step("POST", token, "[]"), step("POST", token, ""))
    add("content-types", sa, step("POST", token, "x", ctype="text/plain"),
        ok("spec:\n  expirationSeconds: 900\n", ctype="application/yaml"))
    add("name-mismatch", sa, step("POST", token, token_request(metadata={"name": "other"})))
    add("name-mismatch-missing-sa", step("POST", token, token_request(metadata={"name": "other"})))
    add("namespace-mismatch", sa, step("POST", token, token_request(metadata={"namespace": "other"})))
    add("namespace-missing", step("POST", "/api/v1/namespaces/missing-${ns}/serviceaccounts/sa/token",
                                  token_request()))
    add("namespace-terminating", sa, setup("DELETE", "/api/v1/namespaces/${ns}"), step("POST", token, token_request()))
    add("missing-sa-invalid", step("POST", token, token_request({"expirationSeconds": 5})))
    add("unknown-fields", sa,
        ok(dict(token_request({"bogus": 1, "boundObjectRef": None}), foo=1, metadata={"bar": 2})),
        step("POST", token + "?fieldValidation=Strict", token_request({"bogus": 1})),
        ok('{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", '
           '"spec": {"expirationSeconds": 700, "expirationSeconds": 800}}'))
    add("metadata", sa, ok(token_request(metadata={
        "name": "sa", "uid": "abc", "labels": {"a": "b"}, "annotations": {"x": "y"}, "resourceVersion": "5",
        "generation": 3, "finalizers": ["a/b"], "generateName": "x", "deletionTimestamp": "2026-01-01T00:00:00Z",
        "creationTimestamp": "2020-01-01T00:00:00Z",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}]})))
    add("status-in-request", sa, ok(token_request(status={"token": "x", "expirationTimestamp": "2020-01-01T00:00:00Z"})))
    add("field-manager", sa, ok(token_request(), path=token + "?fieldManager=me"),
        step("POST", token + "?fieldManager=" + "m" * 129, token_request()))
    add("dry-run", sa, ok(token_request(), path=token + "?dryRun=All"),
        step("POST", token + "?dryRun=Bogus", token_request()), step("GET", sas + "/sa"))
    add("wrong-method", sa, step("GET", token), step("PUT", token, token_request()),
        step("PATCH", token, {}, ctype=MERGE), step("DELETE", token), step("GET", NS + "/serviceaccounts/nosa/token"))
    add("accept", sa,
        step("POST", token, token_request(), headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}),
        ok(token_request(), headers={"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}))
    # Bound tokens: a pod (and its node), a secret, a node.
    node = lambda n: setup("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}})  # noqa
    add("bound-pod", sa, setup("POST", NS + "/pods", pod(serviceAccountName="sa")),
        ok(bound({"kind": "Pod", "apiVersion": "v1", "name": "p"})), ok(bound({"kind": "Pod", "name": "p"})),
        ok(token_request({"expirationSeconds": 3607, "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                                                         "name": "p"}})))
    add("bound-pod-on-node", sa, node("tn-${ns}"),
        setup("POST", NS + "/pods", pod(serviceAccountName="sa", nodeName="tn-${ns}")),
        setup("POST", NS + "/pods", pod("q", serviceAccountName="sa", nodeName="missing-${ns}")),
        ok(bound({"kind": "Pod", "apiVersion": "v1", "name": "p"})),
        ok(bound({"kind": "Pod", "apiVersion": "v1", "name": "q"})))
    add("bound-pod-errors", sa, setup("POST", NS + "/pods", pod(serviceAccountName="sa")),
        setup("POST", NS + "/pods", pod("other")),
        step("POST", token, bound({"kind": "Pod", "apiVersion": "v1", "name": "other", "uid": "x"})),
        step("POST", token, bound({"kind": "Pod", "apiVersion": "v1", "name": "missing"})),
        step("POST", token, bound({"kind": "Pod", "apiVersion": "v1", "name": "p", "uid": "wrong"})),
        step("POST", token, bound({"kind": "Pod", "apiVersion": "v1"})),
        step("POST", token, token_request({"expirationSeconds": 1, "boundObjectRef": {"kind": "Pod", "name": "x"}})))
    add("bound-secret", sa, setup("POST", NS + "/secrets", secret("s")),
        ok(bound({"kind": "Secret", "apiVersion": "v1", "name": "s"})),
        step("POST", token, bound({"kind": "Secret", "apiVersion": "v1", "name": "s", "uid": "wrong"})),
        step("POST", token, bound({"kind": "Secret", "apiVersion": "v1", "name": "missing"})))
    add("bound-node", sa, node("tb-${ns}"), ok(bound({"kind": "Node", "apiVersion": "v1", "name": "tb-${ns}"})),
        step("POST", token, bound({"kind": "Node", "apiVersion": "v1", "name": "tb-${ns}", "uid": "x"})),
        step("POST", token, bound({"kind": "Node", "apiVersion": "v1", "name": "missing-${ns}"})))
    add("bound-other-kinds", sa, step("POST", token, bound({"kind": "ConfigMap", "apiVersion": "v1", "name": "c"})),
        step("POST", token, bound({"kind": "Pod", "apiVersion": "apps/v1", "name": "p"})),
        step("POST", token, bound({})), step("POST", token, bound({"name": "p"})),
        step("POST", token, bound({"kind": "Secret", "apiVersion": "a/b/c", "name": "s"})))
    # The issuer's discovery documents. Their keys (kid, n) and jwks_uri (the server's port) differ.
    add("openid-configuration", step("GET", "/.well-known/openid-configuration", ignore=["body.jwks_uri"]),
        step("GET", "/.well-known/openid-configuration/", ignore=["body.jwks_uri"]),
        step("POST", "/.well-known/openid-configuration", {}),
        step("GET", "/.well-known/openid-configuration/x"),
        step("GET", "/.well-known/openid-configuration", headers={"Accept": "text/plain"}))
    add("jwks", step("GET", "/openid/v1/jwks", headers={"Accept": "*/*"}, ignore=["body.keys"]),
        step("GET", "/openid/v1/jwks", headers={"Accept": "application/jwk-set+json"}, ignore=["body.keys"]),
        step("GET", "/openid/v1/jwks"), step("DELETE", "/openid/v1/jwks"), step("GET", "/openid/v1/jwks/x"),
        step("GET", "/openid/v1"), step("GET", "/.well-known"))
    return out


def subresource_cases():
    out = []
    pods = NS + "/pods"
    add = lambda name, *steps: out.append(case("subresources", "subresources/" + name, *steps))  # noqa: E731
    add("pod-binding", setup("POST", pods, pod()), step("POST", pods + "/p/binding", binding()),
        step("GET", pods + "/p"))
    add("pod-binding-twice", setup("POST", pods, pod()), setup("POST", pods + "/p/binding", binding()),
        step("POST", pods + "/p/binding", binding(node="node-2")))
    add("pod-binding-name-mismatch", setup("POST", pods, pod()),
        step("POST", pods + "/p/binding", binding(pod_name="q")))
    add("pod-binding-target-kind", setup("POST", pods, pod()),
        step("POST", pods + "/p/binding", binding(target={"kind": "Pod", "name": "x"})))
    add("pod-binding-no-target-name", setup("POST", pods, pod()),
        step("POST", pods + "/p/binding", binding(target={"kind": "Node"})))
    add("pod-binding-missing-pod", step("POST", pods + "/p/binding", binding()))
    add("pod-binding-with-annotations", setup("POST", pods, pod()),
        step("POST", pods + "/p/binding", dict(binding(), metadata={"name": "p", "annotations": {"a": "b"}})),
        step("GET", pods + "/p"))
    add("bindings-collection", setup("POST", pods, pod()), step("POST", NS + "/bindings", binding()),
        step("GET", pods + "/p"))
    add("pod-binding-get", setup("POST", pods, pod()), step("GET", pods + "/p/binding"))
    add("pod-eviction", setup("POST", pods, pod()),
        step("POST", pods + "/p/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                            "metadata": {"name": "p"}}),
        step("GET", pods + "/p"))
    add("pod-eviction-missing", step("POST", pods + "/p/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                                                    "metadata": {"name": "p"}}))
    add("pod-eviction-name-mismatch", setup("POST", pods, pod()),
        step("POST", pods + "/p/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                            "metadata": {"name": "q"}}))
    add("serviceaccount-token-missing-sa",
        step("POST", NS + "/serviceaccounts/sa/token", {"apiVersion": "authentication.k8s.io/v1",
                                                        "kind": "TokenRequest", "spec": {}}))
    add("serviceaccount-token", setup("POST", NS + "/serviceaccounts",
                                      {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}),
        step("POST", NS + "/serviceaccounts/sa/token",
             {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
              "spec": {"audiences": ["api"], "expirationSeconds": 3600}},
             ignore=["body.status.token"]))
    out.extend(token_request_cases())
    add("pod-status-get", setup("POST", pods, pod()), step("GET", pods + "/p/status"))
    add("pod-status-merge-patch", setup("POST", pods, pod()),
        step("PATCH", pods + "/p/status", {"status": {"phase": "Running", "podIP": "10.1.2.3"}}, ctype=MERGE))
    add("pod-status-patch-ignores-spec", setup("POST", pods, pod()),
        step("PATCH", pods + "/p/status", {"spec": {"activeDeadlineSeconds": 5}}, ctype=MERGE))
    add("deployment-scale-get", setup("POST", APPS + "/deployments", deployment()),
        step("GET", APPS + "/deployments/d/scale"))
    add("deployment-scale-put", setup("POST", APPS + "/deployments", deployment()),
        step("PUT", APPS + "/deployments/d/scale", {"apiVersion": "autoscaling/v1", "kind": "Scale",
                                                    "metadata": {"name": "d", "namespace": "${ns}"},
                                                    "spec": {"replicas": 4}}),
        step("GET", APPS + "/deployments/d"))
    add("deployment-scale-patch", setup("POST", APPS + "/deployments", deployment()),
        step("PATCH", APPS + "/deployments/d/scale", {"spec": {"replicas": 0}}, ctype=MERGE))
    add("deployment-scale-negative", setup("POST", APPS + "/deployments", deployment()),
        step("PATCH", APPS + "/deployments/d/scale", {"spec": {"replicas": -2}}, ctype=MERGE))
    add("replicaset-scale-get", setup("POST", APPS + "/replicasets", replicaset()),
        step("GET", APPS + "/replicasets/rs/scale"))
    add("namespace-finalize", step("PUT", "/api/v1/namespaces/${ns}/finalize",
                                   {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "${ns}"},
                                    "spec": {"finalizers": []}}))
    add("namespace-status-get", step("GET", "/api/v1/namespaces/${ns}/status"))
    add("unknown-subresource", setup("POST", pods, pod()), step("GET", pods + "/p/bogus"))
    add("configmap-status", setup("POST", NS + "/configmaps", configmap()), step("GET", NS + "/configmaps/cm/status"))
    add("node-status-patch", setup("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                                            "metadata": {"name": "n-${ns}"}}),
        step("PATCH", "/api/v1/nodes/n-${ns}/status",
             {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                         "lastHeartbeatTime": "2026-01-01T00:00:00Z",
                                         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}, ctype=MERGE))
    return out


# ---- errors ----

def error_cases():
    out = []
    add = lambda name, *steps: out.append(case("errors", "errors/" + name, *steps))  # noqa: E731
    add("unknown-resource", step("GET", NS + "/foos"))
    add("unknown-resource-object", step("GET", NS + "/foos/x"))
    add("unknown-group-version", step("GET", "/apis/nonexistent.example.com/v1/foos"))
    add("unknown-version", step("GET", "/apis/apps/v2/deployments"))
    add("unknown-group", step("GET", "/apis/nonexistent.example.com"))
    add("unknown-path", step("GET", "/nothing/here"))
    add("put-collection", step("PUT", NS + "/configmaps", configmap()))
    add("post-object", step("POST", NS + "/configmaps/cm", configmap()))
    add("patch-collection", step("PATCH", NS + "/configmaps", {}, ctype=MERGE))
    add("delete-all-namespaces-collection", step("DELETE", "/api/v1/configmaps"))
    add("post-all-namespaces", step("POST", "/api/v1/configmaps", configmap()))
    add("malformed-json", step("POST", NS + "/configmaps", '{"apiVersion": "v1", "kind": '))
    add("body-array", step("POST", NS + "/configmaps", "[]"))
    add("body-empty", step("POST", NS + "/configmaps", ""))
    add("wrong-kind", step("POST", NS + "/configmaps", secret()))
    add("wrong-api-version", step("POST", NS + "/configmaps", dict(configmap(), apiVersion="apps/v1")))
    add("missing-kind", step("POST", NS + "/configmaps", {"apiVersion": "v1", "metadata": {"name": "x"}}))
    add("missing-name", step("POST", NS + "/configmaps", dict(configmap(), metadata={})))
    add("namespace-mismatch", step("POST", NS + "/configmaps",
                                   dict(configmap(), metadata={"name": "cm", "namespace": "other"})))
    add("namespace-missing", step("POST", "/api/v1/namespaces/nonexistent-${ns}/configmaps", configmap()))
    add("get-missing", step("GET", NS + "/configmaps/missing"))
    add("update-missing", step("PUT", NS + "/configmaps/missing", configmap("missing")))
    add("delete-missing", step("DELETE", NS + "/configmaps/missing"))
    add("patch-missing", step("PATCH", NS + "/configmaps/missing", {"data": {"a": "b"}}, ctype=MERGE))
    add("label-selector-invalid", step("GET", NS + "/configmaps?labelSelector=a%3D%3D%3Db"))
    add("label-selector-bad-value", step("GET", NS + "/configmaps?labelSelector=a%3Dnot%20valid"))
    add("field-selector-invalid", step("GET", NS + "/configmaps?fieldSelector=metadata.name%3D%3D%3Dx"))
    add("field-selector-unknown-field", step("GET", NS + "/configmaps?fieldSelector=spec.foo%3Dx"))
    add("field-selector-pod-field-ok", step("GET", NS + "/pods?fieldSelector=spec.nodeName%3Dx"))
    add("unsupported-media-type", step("POST", NS + "/configmaps", "data", ctype="text/plain"))
    add("patch-unsupported-type", setup("POST", NS + "/configmaps", configmap()),
        step("PATCH", NS + "/configmaps/cm", {"data": {}}, ctype="application/json"))
    add("resource-version-invalid", step("GET", NS + "/configmaps?resourceVersion=abc"))
    add("resource-version-match-without-rv", step("GET", NS + "/configmaps?resourceVersionMatch=NotOlderThan"))
    add("resource-version-match-invalid", step("GET", NS + "/configmaps?resourceVersion=1&resourceVersionMatch=X"))
    add("limit-negative", step("GET", NS + "/configmaps?limit=-1"))
    add("continue-invalid", step("GET", NS + "/configmaps?limit=1&continue=garbage"))
    add("dry-run-invalid", step("POST", NS + "/configmaps?dryRun=Bogus", configmap()))
    add("field-validation-invalid", step("POST", NS + "/configmaps?fieldValidation=Bogus", configmap()))
    add("propagation-policy-invalid", setup("POST", NS + "/configmaps", configmap()),
        step("DELETE", NS + "/configmaps/cm?propagationPolicy=Bogus"))
    add("grace-period-invalid", setup("POST", NS + "/configmaps", configmap()),
        step("DELETE", NS + "/configmaps/cm?gracePeriodSeconds=abc"))
    add("timeout-seconds-invalid", step("GET", NS + "/configmaps?watch=1&timeoutSeconds=abc"))
    add("oversized-body", step("POST", NS + "/configmaps", configmap(data={"k": "x" * (3 * 1024 * 1024 + 10)})))
    add("name-mismatch-put", setup("POST", NS + "/configmaps", configmap()),
        step("PUT", NS + "/configmaps/cm", configmap("other")))
    add("update-without-rv-lease", setup("POST", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases", lease()),
        step("PUT", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l", lease(holderIdentity="b")))
    add("create-on-update-configmap", step("PUT", NS + "/configmaps/cm", configmap()))
    add("create-on-update-lease", step("PUT", "/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l", lease()))
    add("wrong-type-field", step("POST", NS + "/configmaps", dict(configmap(), data={"k": 5})))
    add("wrong-type-spec", step("POST", APPS + "/deployments", dict(deployment(), spec={"replicas": "two"})))
    add("method-not-allowed-options", step("OPTIONS", NS + "/configmaps"))
    add("watch-on-object-path", step("GET", "/api/v1/watch/namespaces/${ns}/configmaps/cm?timeoutSeconds=1",
                                     watch=True))
    return out


# ---- lists and watches ----

def list_cases():
    out = []
    cms = NS + "/configmaps"
    labeled = [setup("POST", cms, dict(configmap(n), metadata={"name": n, "labels": labels}))
               for n, labels in (("a", {"tier": "web", "env": "prod"}), ("b", {"tier": "db", "env": "prod"}),
                                 ("c", {"tier": "web"}), ("d", {}))]
    for name, sel in (("equals", "tier%3Dweb"), ("not-equals", "tier%21%3Dweb"), ("in", "tier+in+%28web%2Cdb%29"),
                      ("notin", "tier+notin+%28web%29"), ("exists", "env"), ("not-exists", "%21env"),
                      ("and", "tier%3Dweb%2Cenv%3Dprod"), ("double-equals", "tier%3D%3Dweb")):
        out.append(case("list", "list/label-" + name, *labeled, step("GET", cms + "?labelSelector=" + sel)))
    out.append(case("list", "list/field-name", *labeled, step("GET", cms + "?fieldSelector=metadata.name%3Db")))
    out.append(case("list", "list/field-name-not", *labeled,
                    step("GET", cms + "?fieldSelector=metadata.name%21%3Db")))
    out.append(case("list", "list/field-namespace", *labeled,
                    step("GET", cms + "?fieldSelector=metadata.namespace%3D${ns}")))
    out.append(case("list", "list/limit-continue", *labeled,
                    step("GET", cms + "?limit=2", save={"c": "/metadata/continue"}),
                    step("GET", cms + "?limit=2&continue=${c}")))
    out.append(case("list", "list/limit-exact", *labeled, step("GET", cms + "?limit=4")))
    out.append(case("list", "list/limit-with-selector", *labeled,
                    step("GET", cms + "?limit=1&labelSelector=tier%3Dweb")))
    out.append(case("list", "list/resource-version-zero", *labeled, step("GET", cms + "?resourceVersion=0")))
    out.append(case("list", "list/exact-rv", setup("POST", cms, configmap("a"), save={"rv": "/metadata/resourceVersion"}),
                    setup("POST", cms, configmap("b")),
                    step("GET", cms + "?resourceVersion=${rv}&resourceVersionMatch=Exact")))
    out.append(case("list", "list/not-older-than", *labeled,
                    step("GET", cms + "?resourceVersion=1&resourceVersionMatch=NotOlderThan")))
    out.append(case("list", "list/rv-too-new", step("GET", cms + "?resourceVersion=999999999&resourceVersionMatch=Exact",
                                                     timeout=10)))
    out.append(case("list", "list/empty", step("GET", cms)))
    out.append(case("list", "list/table", *labeled[:2], step(
        "GET", cms, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})))
    out.append(case("list", "list/table-pods", setup("POST", NS + "/pods", pod()), step(
        "GET", NS + "/pods", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})))
    out.append(case("list", "list/partial-metadata", *labeled[:2], step(
        "GET", cms, headers={"Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"})))
    out.append(case("list", "list/partial-metadata-object", *labeled[:1], step(
        "GET", cms + "/a", headers={"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"})))
    out.append(case("list", "list/pods-field-phase", setup("POST", NS + "/pods", pod()),
                    step("GET", NS + "/pods?fieldSelector=status.phase%3DPending")))
    out.append(case("list", "list/secrets-field-type", setup("POST", NS + "/secrets", secret()),
                    step("GET", NS + "/secrets?fieldSelector=type%3DOpaque")))
    out.append(case("list", "list/events-field-reason", setup("POST", NS + "/events", event()),
                    step("GET", NS + "/events?fieldSelector=reason%3DTest")))
    out.append(case("list", "list/events-v1-field-regarding", setup("POST", NS + "/events", event()),
                    step("GET", "/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=regarding.name%3Dp")))
    out.append(case("list", "list/events-v1-view-of-core", setup("POST", NS + "/events", event()),
                    step("GET", "/apis/events.k8s.io/v1/namespaces/${ns}/events/e")))
    out.append(case("list", "list/deployments-as-table", setup("POST", APPS + "/deployments", deployment()), step(
        "GET", APPS + "/deployments", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})))
    return out


def watch_cases():
    out = []
    cms = NS + "/configmaps"
    start = setup("GET", cms, save={"rv": "/metadata/resourceVersion"})
    out.append(case("watch", "watch/create-update-delete", start,
                    setup("POST", cms, configmap("a")),
                    setup("PATCH", cms + "/a", {"data": {"k": "x"}}, ctype=MERGE),
                    setup("DELETE", cms + "/a"),
                    step("GET", cms + "?watch=1&resourceVersion=${rv}&timeoutSeconds=1", watch=True)))
    out.append(case("watch", "watch/label-selector", start,
                    setup("POST", cms, dict(configmap("a"), metadata={"name": "a", "labels": {"x": "1"}})),
                    setup("POST", cms, configmap("b")),
                    setup("PATCH", cms + "/a", {"metadata": {"labels": {"x": "2"}}}, ctype=MERGE),
                    step("GET", cms + "?watch=1&labelSelector=x%3D1&resourceVersion=${rv}&timeoutSeconds=1",
                         watch=True)))
    out.append(case("watch", "watch/field-selector", start,
                    setup("POST", cms, configmap("a")), setup("POST", cms, configmap("b")),
                    step("GET", cms + "?watch=1&fieldSelector=metadata.name%3Db&resourceVersion=${rv}&timeoutSeconds=1",
                         watch=True)))
    out.append(case("watch", "watch/legacy-path", start, setup("POST", cms, configmap("a")),
                    step("GET", "/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=${rv}&timeoutSeconds=1",
                         watch=True)))
    out.append(case("watch", "watch/legacy-path-object", start, setup("POST", cms, configmap("a")),
                    setup("POST", cms, configmap("b")),
                    step("GET", "/api/v1/watch/namespaces/${ns}/configmaps/a?resourceVersion=${rv}&timeoutSeconds=1",
                         watch=True)))
    out.append(case("watch", "watch/initial-events", setup("POST", cms, configmap("a")),
                    step("GET", cms + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                         "&allowWatchBookmarks=true&timeoutSeconds=1", watch=True)))
    out.append(case("watch", "watch/initial-events-without-bookmarks",
                    step("GET", cms + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                         "&timeoutSeconds=1", watch=True)))
    out.append(case("watch", "watch/rv-zero-lists-existing", setup("POST", cms, configmap("a")),
                    step("GET", cms + "?watch=1&resourceVersion=0&timeoutSeconds=1", watch=True)))
    out.append(case("watch", "watch/pods-status-update", setup("POST", NS + "/pods", pod()),
                    setup("GET", NS + "/pods", save={"rv": "/metadata/resourceVersion"}),
                    setup("PATCH", NS + "/pods/p/status", {"status": {"phase": "Running"}}, ctype=MERGE),
                    step("GET", NS + "/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=1", watch=True)))
    out.append(case("watch", "watch/deployments", setup("GET", APPS + "/deployments",
                                                       save={"rv": "/metadata/resourceVersion"}),
                    setup("POST", APPS + "/deployments", deployment()),
                    setup("PATCH", APPS + "/deployments/d/scale", {"spec": {"replicas": 2}}, ctype=MERGE),
                    step("GET", APPS + "/deployments?watch=1&resourceVersion=${rv}&timeoutSeconds=1", watch=True)))
    return out


# ---- patches ----

def patch_cases():
    out = []
    cms = NS + "/configmaps"
    base = setup("POST", cms, dict(configmap(data={"a": "1", "b": "2"}), metadata={"name": "cm",
                                                                                 "labels": {"x": "1"}}))
    add = lambda name, *steps: out.append(case("patch", "patch/" + name, base, *steps))  # noqa: E731
    add("merge-add", step("PATCH", cms + "/cm", {"data": {"c": "3"}}, ctype=MERGE))
    add("merge-remove", step("PATCH", cms + "/cm", {"data": {"a": None}}, ctype=MERGE))
    add("merge-label-remove", step("PATCH", cms + "/cm", {"metadata": {"labels": {"x": None}}}, ctype=MERGE))
    add("merge-name-change", step("PATCH", cms + "/cm", {"metadata": {"name": "other"}}, ctype=MERGE))
    add("merge-stale-rv", step("PATCH", cms + "/cm", {"metadata": {"resourceVersion": "1"}, "data": {"a": "x"}},
                               ctype=MERGE))
    add("merge-invalid-json", step("PATCH", cms + "/cm", "{", ctype=MERGE))
    add("merge-array-body", step("PATCH", cms + "/cm", [], ctype=MERGE))
    add("merge-wrong-type", step("PATCH", cms + "/cm", {"data": {"a": 1}}, ctype=MERGE))
    add("merge-wrong-type-nested", step("PATCH", cms + "/cm", {"metadata": {"labels": {"y": 2}}}, ctype=MERGE))
    add("merge-wrong-type-new-member", step("PATCH", cms + "/cm", {"immutable": "yes", "binaryData": {"k": 1}},
                                            ctype=MERGE))
    add("json-wrong-type", step("PATCH", cms + "/cm", [{"op": "add", "path": "/data/c", "value": 3}], ctype=JSONPATCH))
    add("strategic-wrong-type", step("PATCH", cms + "/cm", {"data": {"a": 1}}, ctype=SMP))
    add("json-add", step("PATCH", cms + "/cm", [{"op": "add", "path": "/data/c", "value": "3"}], ctype=JSONPATCH))
    add("json-replace", step("PATCH", cms + "/cm", [{"op": "replace", "path": "/data/a", "value": "9"}],
                             ctype=JSONPATCH))
    add("json-remove", step("PATCH", cms + "/cm", [{"op": "remove", "path": "/data/a"}], ctype=JSONPATCH))
    add("json-remove-missing", step("PATCH", cms + "/cm", [{"op": "remove", "path": "/data/zzz"}], ctype=JSONPATCH))
    add("json-test-fails", step("PATCH", cms + "/cm", [{"op": "test", "path": "/data/a", "value": "no"}],
                                ctype=JSONPATCH))
    add("json-test-ok", step("PATCH", cms + "/cm", [{"op": "test", "path": "/data/a", "value": "1"},
                                                    {"op": "replace", "path": "/data/a", "value": "t"}],
                             ctype=JSONPATCH))
    add("json-move", step("PATCH", cms + "/cm", [{"op": "move", "from": "/data/a", "path": "/data/z"}],
                          ctype=JSONPATCH))
    add("json-copy", step("PATCH", cms + "/cm", [{"op": "copy", "from": "/data/a", "path": "/data/z"}],
                          ctype=JSONPATCH))
    add("json-bad-op", step("PATCH", cms + "/cm", [{"op": "frobnicate", "path": "/data/a"}], ctype=JSONPATCH))
    add("json-not-array", step("PATCH", cms + "/cm", {"op": "add"}, ctype=JSONPATCH))
    add("json-bad-path", step("PATCH", cms + "/cm", [{"op": "add", "path": "/nope/deeper", "value": 1}],
                              ctype=JSONPATCH))
    add("json-escaped-path", step("PATCH", cms + "/cm", [{"op": "add", "path": "/metadata/labels/a~1b", "value": "c"}],
                                  ctype=JSONPATCH))
    add("smp-configmap", step("PATCH", cms + "/cm", {"data": {"c": "3"}}, ctype=SMP))
    add("smp-invalid", step("PATCH", cms + "/cm", "nope", ctype=SMP))
    pods = NS + "/pods"
    two = pod(containers=[container("a"), container("b", image="busybox")])
    pbase = setup("POST", pods, two)
    out.append(case("patch", "patch/smp-containers-by-name", pbase,
                    step("PATCH", pods + "/p", {"spec": {"containers": [{"name": "b", "image": "busybox:2"}]}},
                         ctype=SMP)))
    out.append(case("patch", "patch/smp-delete-directive", pbase,
                    step("PATCH", pods + "/p", {"metadata": {"labels": {"$patch": "replace", "z": "1"}}}, ctype=SMP)))
    out.append(case("patch", "patch/merge-containers-replaces-list", pbase,
                    step("PATCH", pods + "/p", {"spec": {"containers": [{"name": "b", "image": "busybox:2"}]}},
                         ctype=MERGE)))
    out.append(case("patch", "patch/smp-deployment-env", setup("POST", APPS + "/deployments", deployment()),
                    step("PATCH", APPS + "/deployments/d", {"spec": {"template": {"spec": {"containers": [
                        {"name": "c", "env": [{"name": "A", "value": "1"}]}]}}}}, ctype=SMP)))
    out.append(case("patch", "patch/smp-retain-keys", setup("POST", APPS + "/deployments", deployment()),
                    step("PATCH", APPS + "/deployments/d", {"spec": {"strategy": {"type": "Recreate",
                                                                                  "rollingUpdate": None}}},
                         ctype=SMP)))
    out.append(case("patch", "patch/smp-set-element-order", pbase,
                    step("PATCH", pods + "/p", {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
                                                         "containers": [{"name": "a", "image": "x"}]}}, ctype=SMP)))
    out.append(case("patch", "patch/dry-run", base,
                    step("PATCH", cms + "/cm?dryRun=All", {"data": {"c": "3"}}, ctype=MERGE),
                    step("GET", cms + "/cm")))
    return out


# ---- server-side apply ----

def apply_cases():
    out = []
    cms = NS + "/configmaps"
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '1'\n"
    add = lambda name, *steps: out.append(case("apply", "apply/" + name, *steps))  # noqa: E731
    add("create", step("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY))
    add("idempotent", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY))
    add("change", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=alice", doc.replace("'1'", "'2'"), ctype=APPLY))
    add("conflict", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=bob", doc.replace("'1'", "'2'"), ctype=APPLY))
    add("force", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=bob&force=true", doc.replace("'1'", "'2'"), ctype=APPLY))
    add("shared-ownership", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=bob", doc, ctype=APPLY))
    add("remove-field", setup("PATCH", cms + "/cm?fieldManager=alice",
                              doc + "  b: '2'\n", ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY))
    add("no-field-manager", step("PATCH", cms + "/cm", doc, ctype=APPLY))
    add("invalid-yaml", step("PATCH", cms + "/cm?fieldManager=a", "a: [", ctype=APPLY))
    add("name-mismatch", step("PATCH", cms + "/other?fieldManager=a", doc, ctype=APPLY))
    add("missing-kind", step("PATCH", cms + "/cm?fieldManager=a", "apiVersion: v1\nmetadata:\n  name: cm\n",
                             ctype=APPLY))
    add("after-update", setup("POST", cms + "?fieldManager=writer", configmap(data={"a": "0"})),
        step("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY))
    add("update-after-apply", setup("PATCH", cms + "/cm?fieldManager=alice", doc, ctype=APPLY),
        step("PATCH", cms + "/cm?fieldManager=editor", {"data": {"a": "9"}}, ctype=MERGE))
    add("json-body", step("PATCH", cms + "/cm?fieldManager=alice", json.dumps(configmap()), ctype=APPLY))
    add("deployment", step("PATCH", APPS + "/deployments/d?fieldManager=alice", json.dumps(deployment()),
                           ctype=APPLY))
    add("deployment-replicas-conflict", setup("PATCH", APPS + "/deployments/d?fieldManager=alice",
                                              json.dumps(deployment()), ctype=APPLY),
        step("PATCH", APPS + "/deployments/d?fieldManager=bob", json.dumps(deployment(replicas=5)), ctype=APPLY))
    add("deployment-scale-then-apply", setup("PATCH", APPS + "/deployments/d?fieldManager=alice",
                                             json.dumps(deployment()), ctype=APPLY),
        setup("PATCH", APPS + "/deployments/d/scale", {"spec": {"replicas": 3}}, ctype=MERGE),
        step("GET", APPS + "/deployments/d"))
    add("pod", step("PATCH", NS + "/pods/p?fieldManager=alice", json.dumps(pod()), ctype=APPLY))
    add("service", step("PATCH", NS + "/services/s?fieldManager=alice", json.dumps(service()), ctype=APPLY))
    add("status", setup("POST", NS + "/pods", pod()),
        step("PATCH", NS + "/pods/p/status?fieldManager=kubelet",
             json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "status": {"phase": "Running"}}), ctype=APPLY))
    add("dry-run", step("PATCH", cms + "/cm?fieldManager=alice&dryRun=All", doc, ctype=APPLY),
        step("GET", cms + "/cm"))
    add("unknown-field-strict", step("PATCH", cms + "/cm?fieldManager=alice&fieldValidation=Strict",
                                     doc + "bogus: 1\n", ctype=APPLY))
    add("create-with-update-managed-fields", step("POST", cms + "?fieldManager=writer", configmap()))
    add("update-managed-fields-cleared", setup("POST", cms, configmap()),
        step("PATCH", cms + "/cm", {"metadata": {"managedFields": [{}]}}, ctype=MERGE))
    return out


# ---- deletion ----

def deletion_cases():
    out = []
    cms = NS + "/configmaps"
    add = lambda name, *steps: out.append(case("deletion", "deletion/" + name, *steps))  # noqa: E731
    add("precondition-uid-mismatch", setup("POST", cms, configmap()),
        step("DELETE", cms + "/cm", {"apiVersion": "v1", "kind": "DeleteOptions",
                                     "preconditions": {"uid": "00000000-0000-0000-0000-000000000001"}}))
    add("precondition-rv-mismatch", setup("POST", cms, configmap()),
        step("DELETE", cms + "/cm", {"apiVersion": "v1", "kind": "DeleteOptions",
                                     "preconditions": {"resourceVersion": "1"}}))
    add("precondition-uid-ok", setup("POST", cms, configmap(), save={"uid": "/metadata/uid"}),
        step("DELETE", cms + "/cm", {"preconditions": {"uid": "${uid}"}}))
    add("finalizer-keeps-object", setup("POST", cms, dict(configmap(), metadata={"name": "cm",
                                                                                "finalizers": ["example.com/f"]})),
        step("DELETE", cms + "/cm"), step("GET", cms + "/cm"),
        step("PATCH", cms + "/cm", {"metadata": {"finalizers": None}}, ctype=MERGE),
        step("GET", cms + "/cm"))
    add("finalizer-delete-twice", setup("POST", cms, dict(configmap(), metadata={"name": "cm",
                                                                                "finalizers": ["example.com/f"]})),
        setup("DELETE", cms + "/cm"), step("DELETE", cms + "/cm"))
    add("finalizer-add-while-deleting", setup("POST", cms, dict(configmap(), metadata={
        "name": "cm", "finalizers": ["example.com/f"]})), setup("DELETE", cms + "/cm"),
        step("PATCH", cms + "/cm", {"metadata": {"finalizers": ["example.com/f", "example.com/g"]}}, ctype=MERGE))
    add("dry-run", setup("POST", cms, configmap()), step("DELETE", cms + "/cm?dryRun=All"), step("GET", cms + "/cm"))
    add("foreground", setup("POST", cms, configmap()),
        step("DELETE", cms + "/cm", {"propagationPolicy": "Foreground"}), step("GET", cms + "/cm"))
    add("orphan", setup("POST", cms, configmap()),
        step("DELETE", cms + "/cm", {"propagationPolicy": "Orphan"}))
    add("orphan-query", setup("POST", cms, configmap()), step("DELETE", cms + "/cm?propagationPolicy=Orphan"))
    add("delete-options-wrong-kind", setup("POST", cms, configmap()),
        step("DELETE", cms + "/cm", {"apiVersion": "v1", "kind": "ConfigMap"}))
    add("collection-by-label", setup("POST", cms, dict(configmap("a"), metadata={"name": "a", "labels": {"x": "1"}})),
        setup("POST", cms, configmap("b")),
        step("DELETE", cms + "?labelSelector=x%3D1"), step("GET", cms))
    add("collection-all", setup("POST", cms, configmap("a")), setup("POST", cms, configmap("b")),
        step("DELETE", cms), step("GET", cms))
    add("collection-dry-run", setup("POST", cms, configmap("a")),
        step("DELETE", cms + "?dryRun=All"), step("GET", cms))
    pods = NS + "/pods"
    add("pod-unscheduled", setup("POST", pods, pod()), step("DELETE", pods + "/p"), step("GET", pods + "/p"))
    add("pod-scheduled-graceful", setup("POST", pods, pod(nodeName="node-1")), step("DELETE", pods + "/p"),
        step("GET", pods + "/p"))
    add("pod-scheduled-grace-zero", setup("POST", pods, pod(nodeName="node-1")),
        step("DELETE", pods + "/p?gracePeriodSeconds=0"), step("GET", pods + "/p"))
    add("pod-scheduled-grace-custom", setup("POST", pods, pod(nodeName="node-1", terminationGracePeriodSeconds=60)),
        step("DELETE", pods + "/p", {"gracePeriodSeconds": 10}), step("GET", pods + "/p"))
    add("pod-graceful-then-shorter", setup("POST", pods, pod(nodeName="node-1")),
        setup("DELETE", pods + "/p"), step("DELETE", pods + "/p?gracePeriodSeconds=0"), step("GET", pods + "/p"))
    add("pod-graceful-watch", setup("POST", pods, pod(nodeName="node-1")),
        setup("GET", pods, save={"rv": "/metadata/resourceVersion"}),
        setup("DELETE", pods + "/p"), setup("DELETE", pods + "/p?gracePeriodSeconds=0"),
        step("GET", pods + "?watch=1&resourceVersion=${rv}&timeoutSeconds=1", watch=True))
    add("deployment-returns-status", setup("POST", APPS + "/deployments", deployment()),
        step("DELETE", APPS + "/deployments/d"))
    add("service-returns-object", setup("POST", NS + "/services", service()), step("DELETE", NS + "/services/s"))
    return out


# ---- discovery ----

def discovery_cases():
    out = []
    add = lambda name, path, **kw: out.append(case("discovery", "discovery/" + name, step("GET", path, **kw)))  # noqa
    for gv in ("api/v1", "apis/apps/v1", "apis/coordination.k8s.io/v1", "apis/events.k8s.io/v1",
               "apis/rbac.authorization.k8s.io/v1", "apis/apiextensions.k8s.io/v1", "apis/batch/v1",
               "apis/policy/v1", "apis/networking.k8s.io/v1", "apis/autoscaling/v2", "apis/storage.k8s.io/v1",
               "apis/discovery.k8s.io/v1", "apis/scheduling.k8s.io/v1", "apis/admissionregistration.k8s.io/v1",
               "apis/autoscaling/v1", "apis/authentication.k8s.io/v1", "apis/authorization.k8s.io/v1",
               "apis/certificates.k8s.io/v1", "apis/node.k8s.io/v1", "apis/flowcontrol.apiserver.k8s.io/v1"):
        add(gv.replace("/", "-"), "/" + gv)
    add("api", "/api", ignore=["body.serverAddressByClientCIDRs"])
    add("apis", "/apis")
    add("apis-aggregated", "/apis", headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
    add("api-aggregated", "/api", headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
    add("group-apps", "/apis/apps")
    add("healthz", "/healthz")
    add("readyz", "/readyz")
    add("livez", "/livez")
    add("openapi-v3-root", "/openapi/v3", ignore=["body.paths"])
    return out


# ---- request bodies ----

def body_cases():
    out = []
    cms = NS + "/configmaps"
    add = lambda name, *steps: out.append(case("bodies", "bodies/" + name, *steps))  # noqa: E731
    add("yaml-create", step("POST", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: b\n",
                            ctype="application/yaml"))
    add("yaml-malformed", step("POST", cms, "apiVersion: v1\nkind: [", ctype="application/yaml"))
    add("yaml-update", setup("POST", cms, configmap()),
        step("PUT", cms + "/cm", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: c\n",
             ctype="application/yaml"))
    add("yaml-multi-doc", step("POST", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n---\n"
                                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n",
                               ctype="application/yaml"))
    add("duplicate-field-strict", step("POST", cms + "?fieldValidation=Strict",
                                       '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},'
                                       '"data":{"a":"1"},"data":{"b":"2"}}'))
    add("duplicate-field-warn", step("POST", cms + "?fieldValidation=Warn",
                                     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},'
                                     '"data":{"a":"1"},"data":{"b":"2"}}'))
    add("duplicate-field-default", step("POST", cms, '{"apiVersion":"v1","kind":"ConfigMap","metadata":'
                                                     '{"name":"d","name":"e"}}'))
    add("unknown-field-strict", step("POST", cms + "?fieldValidation=Strict", dict(configmap(), bogus=1)))
    add("unknown-field-warn", step("POST", cms + "?fieldValidation=Warn", dict(configmap(), bogus=1)))
    add("unknown-field-ignore", step("POST", cms + "?fieldValidation=Ignore", dict(configmap(), bogus=1)))
    add("unknown-field-default", step("POST", cms, dict(configmap(), bogus=1)))
    add("unknown-nested-field-strict", step("POST", NS + "/pods?fieldValidation=Strict",
                                            pod(containers=[container(bogus=1)])))
    add("unknown-nested-field-warn", step("POST", NS + "/pods?fieldValidation=Warn",
                                          pod(containers=[container(bogus=1)])))
    add("yaml-duplicate-strict", step("POST", cms + "?fieldValidation=Strict",
                                      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  name: z\n",
                                      ctype="application/yaml"))
    add("yaml-duplicate-warn", step("POST", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  name: w\n",
                                    ctype="application/yaml"))
    add("yaml-duplicate-nested-strict", step("POST", cms + "?fieldValidation=Strict",
                                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n"
                                             "  a: '1'\n  a: '2'\n  b: '3'\n  b: '4'\nfoo: 1\n", ctype="application/yaml"))
    add("yaml-duplicate-ignore", step("POST", cms + "?fieldValidation=Ignore",
                                      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  name: v\n",
                                      ctype="application/yaml"))
    add("charset-param", step("POST", cms, configmap(), ctype="application/json; charset=utf-8"))
    add("null-metadata", step("POST", cms, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": None}))
    add("number-as-string-label", step("POST", cms, dict(configmap(), metadata={"name": "n", "labels": {"a": 1}})))
    add("deep-nesting", step("POST", cms, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"x":' +
                             "[" * 200 + "]" * 200 + "}"))
    return out


# ---- seeded random sequences ----

def random_cases(seed, n, prefix="random"):
    """`n` cases of random ConfigMap operations (creates, updates, patches of each type, deletes,
    lists with selectors) chosen by `seed`; the same seed gives the same cases."""
    rnd = random.Random(seed)
    cms = NS + "/configmaps"
    out = []
    for i in range(n):
        names = ["o%d" % j for j in range(rnd.randint(1, 4))]
        steps = []
        for _ in range(rnd.randint(3, 8)):
            name = rnd.choice(names)
            op = rnd.choice(["create", "create", "get", "merge", "json", "smp", "apply", "delete", "list",
                             "put-stale", "label-list"])
            labels = {rnd.choice("abc"): rnd.choice(["1", "2", "x y", "ok"]) for _ in range(rnd.randint(0, 2))}
            data = {rnd.choice(["k", "m", "bad key", "k.1"]): rnd.choice(["v", "", "w"])
                    for _ in range(rnd.randint(0, 2))}
            if op == "create":
                steps.append(step("POST", cms, {"apiVersion": "v1", "kind": "ConfigMap",
                                                "metadata": {"name": name, "labels": labels}, "data": data}))
            elif op == "get":
                steps.append(step("GET", cms + "/" + name))
            elif op == "merge":
                steps.append(step("PATCH", cms + "/" + name, {"metadata": {"labels": labels}, "data": data},
                                  ctype=MERGE))
            elif op == "json":
                key = rnd.choice(["k", "m", "zz"])
                steps.append(step("PATCH", cms + "/" + name,
                                  [{"op": rnd.choice(["add", "replace", "remove"]), "path": "/data/" + key,
                                    "value": "j"}], ctype=JSONPATCH))
            elif op == "smp":
                steps.append(step("PATCH", cms + "/" + name, {"data": data}, ctype=SMP))
            elif op == "apply":
                steps.append(step("PATCH", cms + "/" + name + "?fieldManager=" + rnd.choice(["a", "b"]),
                                  json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": name}, "data": data}), ctype=APPLY))
            elif op == "delete":
                steps.append(step("DELETE", cms + "/" + name))
            elif op == "put-stale":
                steps.append(step("PUT", cms + "/" + name, {"apiVersion": "v1", "kind": "ConfigMap",
                                                            "metadata": {"name": name, "resourceVersion": "1"},
                                                            "data": data}))
            elif op == "list":
                steps.append(step("GET", cms))
            else:
                key = rnd.choice("abc")
                sel = rnd.choice([key, "!" + key, key + "%3D1", key + "%21%3D2", key + "+in+%281%2Cok%29"])
                steps.append(step("GET", cms + "?labelSelector=" + sel))
        out.append(case("random", "%s/%03d" % (prefix, i), *steps))
    return out



# ---- the further built-in kinds ----

def template(labels, restart=None):
    spec = {"containers": [container()]}
    if restart:
        spec["restartPolicy"] = restart
    return {"metadata": {"labels": labels}, "spec": spec}


def webhook(name):
    return {"name": name, "clientConfig": {"url": "https://example.com/hook"},
            "admissionReviewVersions": ["v1"], "sideEffects": "None"}


# (collection path, kind, apiVersion, namespaced, minimal valid object without metadata/kind)
MORE_KINDS = [
    ("/api/v1", "endpoints", "Endpoints", True,
     {"subsets": [{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 80}]}]}),
    ("/api/v1", "limitranges", "LimitRange", True,
     {"spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}}),
    ("/api/v1", "persistentvolumeclaims", "PersistentVolumeClaim", True,
     {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    ("/api/v1", "persistentvolumes", "PersistentVolume", False,
     {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv"}}}),
    ("/api/v1", "podtemplates", "PodTemplate", True, {"template": template({"app": "t"})}),
    ("/api/v1", "replicationcontrollers", "ReplicationController", True,
     {"spec": {"replicas": 1, "selector": {"app": "rc"}, "template": template({"app": "rc"})}}),
    ("/api/v1", "resourcequotas", "ResourceQuota", True, {"spec": {"hard": {"pods": "10"}}}),
    ("/apis/admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration",
     False, {"webhooks": [webhook("m.example.com")]}),
    ("/apis/admissionregistration.k8s.io/v1", "validatingwebhookconfigurations",
     "ValidatingWebhookConfiguration", False, {"webhooks": [webhook("v.example.com")]}),
    ("/apis/apps/v1", "controllerrevisions", "ControllerRevision", True, {"data": {"a": 1}, "revision": 1}),
    ("/apis/apps/v1", "daemonsets", "DaemonSet", True,
     {"spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": template({"app": "ds"})}}),
    ("/apis/apps/v1", "statefulsets", "StatefulSet", True,
     {"spec": {"selector": {"matchLabels": {"app": "sts"}}, "serviceName": "sts",
               "template": template({"app": "sts"})}}),
    ("/apis/autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True,
     {"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
               "maxReplicas": 3}}),
    ("/apis/batch/v1", "cronjobs", "CronJob", True,
     {"spec": {"schedule": "*/5 * * * *",
               "jobTemplate": {"spec": {"template": template({"app": "cj"}, "OnFailure")}}}}),
    ("/apis/batch/v1", "jobs", "Job", True, {"spec": {"template": template({"app": "job"}, "Never")}}),
    ("/apis/discovery.k8s.io/v1", "endpointslices", "EndpointSlice", True,
     {"addressType": "IPv4", "endpoints": [{"addresses": ["10.1.2.3"]}], "ports": [{"port": 80}]}),
    ("/apis/networking.k8s.io/v1", "ingressclasses", "IngressClass", False,
     {"spec": {"controller": "example.com/ingress"}}),
    ("/apis/networking.k8s.io/v1", "ingresses", "Ingress", True,
     {"spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}}}),
    ("/apis/networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", True, {"spec": {"podSelector": {}}}),
    ("/apis/node.k8s.io/v1", "runtimeclasses", "RuntimeClass", False, {"handler": "runc"}),
    ("/apis/policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", True,
     {"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
    ("/apis/scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", False, {"value": 1000}),
    ("/apis/storage.k8s.io/v1", "csidrivers", "CSIDriver", False, {"spec": {}}),
    ("/apis/storage.k8s.io/v1", "csinodes", "CSINode", False, {"spec": {"drivers": []}}),
    ("/apis/storage.k8s.io/v1", "csistoragecapacities", "CSIStorageCapacity", True, {"storageClassName": "sc"}),
    ("/apis/storage.k8s.io/v1", "storageclasses", "StorageClass", False, {"provisioner": "example.com/p"}),
    ("/apis/storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", False,
     {"spec": {"attacher": "example.com/a", "source": {"persistentVolumeName": "pv"}, "nodeName": "n"}}),
]


def kind_cases():
    """Each further built-in kind: create (defaults), get, a metadata patch, a spec-less create
    (validation), delete."""
    out = []
    for base, resource, kind, namespaced, body in MORE_KINDS:
        api_version = base[len("/apis/"):] if base.startswith("/apis/") else "v1"
        coll = base + ("/namespaces/${ns}/" if namespaced else "/") + resource
        name = "k" if namespaced else "k-${ns}"
        obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}
        obj.update(copy.deepcopy(body))
        item = coll + "/" + name
        out.append(case("kinds", "kinds/%s" % resource,
                        step("POST", coll, obj),
                        step("GET", item),
                        step("PATCH", item, {"metadata": {"labels": {"x": "y"}}}, ctype=MERGE),
                        step("DELETE", item)))
        bare = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name + "-bare"}}
        out.append(case("kinds", "kinds/%s-bare" % resource, step("POST", coll, bare)))
    return out


# ---- autoscaling/v1 HorizontalPodAutoscalers and certificates.k8s.io CertificateSigningRequests ----

HPA1 = "/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers"
HPA2 = "/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CSR = CSRS + "/csr-${ns}"
PARTIAL = {"Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}
PARTIAL_ONE = {"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}
# openssl-made PKCS#10 requests (P-256 and RSA 1024) and a self-signed certificate.
EC_CSR_PEM = (
    "-----BEGIN CERTIFICATE REQUEST-----\n"
    "MIHrMIGSAgEAMDAxFzAVBgNVBAMMDnN5c3RlbTpub2RlOm4xMRUwEwYDVQQKDAxz\n"
    "eXN0ZW06bm9kZXMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATK/2rn3GMJH5VM\n"
    "w/+yCXfeLLVvHVyiHNs7Dl0WmNHMehAf31FNphHstHCixmUaOdjOwJQy/rDT5QvO\n"
    "qeqjoJzeoAAwCgYIKoZIzj0EAwIDSAAwRQIgS4zVcQOTIsbljmLp12QHIZFmx9Yr\n"
    "6m+CUTM+jf6w9JwCIQCfo+3bCZqRnQFEwtOThQDq8lUEYqftAMUQBB79vrpuow==\n"
    "-----END CERTIFICATE REQUEST-----\n")
RSA_CSR_PEM = (
    "-----BEGIN CERTIFICATE REQUEST-----\n"
    "MIIBTTCBtwIBADAOMQwwCgYDVQQDDANib2IwgZ8wDQYJKoZIhvcNAQEBBQADgY0A\n"
    "MIGJAoGBAKN2GqLq6sfW/d/go76VPBKMWxG0ZglgJlQFUDP+YOcZTmivhimPmKwf\n"
    "HvTwywUb3PCH9X0JBbJPfQrccxxnfbIXeS5SuaMindHkgw2e7DAJGwF4dvOIvurd\n"
    "ukneUOT8KYD7LX8WtUsgtg+NMbuMoMMjsK3qvieXoHMf+JmVEEJXAgMBAAGgADAN\n"
    "BgkqhkiG9w0BAQsFAAOBgQAN6dnIImUgHDGp/LO823Xy8SA73Vuioq4P4n819nFM\n"
    "4ShV2SCOh2IVF3qYwFwhMTexYJvMkWq3mLWPdabtyNUHr8jbEeFOakZQ3TNsA9t9\n"
    "yKk5OTks0fBMV6cEjzu70G3YcBlrcsAcQ3Kou8PVHggT/ag0fGVj3TEjv/IWZmNf\n"
    "rA==\n"
    "-----END CERTIFICATE REQUEST-----\n")
CERT_PEM = (
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBeDCCAR2gAwIBAgIUV0DrzKya0NiOulfQxYXwRQJPFiAwCgYIKoZIzj0EAwIw\n"
    "ETEPMA0GA1UEAwwGaXNzdWVkMB4XDTI2MTIwMzE2NTUyMloXDTM2MTEzMDE2NTUy\n"
    "MlowETEPMA0GA1UEAwwGaXNzdWVkMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
    "iO6uT/H3nXuxSYjTZSCQ67QHjWspI2K9EMcS84jTWTICWkUnxoOc3VS/z0yDdHh1\n"
    "i4ju5oiEOA83yXp0DTqS7qNTMFEwHQYDVR0OBBYEFEilYzQ1lL9k95IdO8OqpXC6\n"
    "PlCOMB8GA1UdIwQYMBaAFEilYzQ1lL9k95IdO8OqpXC6PlCOMA8GA1UdEwEB/wQF\n"
    "MAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAIbmmg33P7GR0uSJHopOBLrg8uBsWA+C\n"
    "BSeZDxm1GZWsAiEAwYhT5H8qAU9W7+si6UAatm/QteXvJuKmgYTzogdtdBc=\n"
    "-----END CERTIFICATE-----\n")


def b64(text):
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def tampered(pem):
    """`pem` with one bit of its signature flipped (the request still parses)."""
    lines = pem.strip().split("\n")
    der = bytearray(base64.b64decode("".join(lines[1:-1])))
    der[-3] ^= 1
    return lines[0] + "\n" + base64.b64encode(bytes(der)).decode() + "\n" + lines[-1] + "\n"


def hpa_v1(name="h", annotations=None, **spec):
    s = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}
    s.update(spec)
    meta = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": s}


def hpa_v2(name="h", **spec):
    o = hpa_v1(name, **spec)
    o["apiVersion"] = "autoscaling/v2"
    return o


def resource_metric(name, **target):
    return {"type": "Resource", "resource": {"name": name, "target": target}}


# One metric of each source: what autoscaling/v1 can only keep in its annotations.
ALL_METRICS = [
    resource_metric("memory", type="AverageValue", averageValue="100Mi"),
    resource_metric("cpu", type="Utilization", averageUtilization=50),
    {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
    {"type": "Object", "object": {"describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                                                      "name": "main"},
                                  "metric": {"name": "rps", "selector": {"matchLabels": {"b": "2", "a": "1"}}},
                                  "target": {"type": "Value", "value": "2k"}}},
    {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchExpressions": [
        {"key": "q", "operator": "In", "values": ["x"]}]}}, "target": {"type": "AverageValue", "averageValue": "30"}}},
    {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                                                        "target": {"type": "Utilization", "averageUtilization": 60}}},
]

CURRENT_METRICS = [
    {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 40, "averageValue": "200m"}}},
    {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "7"}}},
    {"type": "Object", "object": {"metric": {"name": "rps"}, "current": {"value": "1k"},
                                  "describedObject": {"kind": "Ingress", "name": "main"}}},
    {"type": "External", "external": {"metric": {"name": "queue"}, "current": {"averageValue": "3"}}},
]


def csr_body(name="csr-${ns}", request=None, **spec):
    s = {"request": b64(EC_CSR_PEM) if request is None else request, "signerName": "example.com/signer",
         "usages": ["client auth"]}
    s.update(spec)
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": s}


def autoscaling_certificates_cases():
    """autoscaling/v1 HorizontalPodAutoscalers (a view of the stored autoscaling/v2 objects) and
    CertificateSigningRequests. The embedded server's requester is "admin" with no uid, the real
    server's token user "bench-admin" with uid "1000": `spec.username` and `spec.uid` of a CSR are
    left out, and lists and watches of CSRs compare their metadata (PartialObjectMetadata)."""
    out = []
    hpa = lambda name, *steps: out.append(case("autoscaling-v1", "hpa-v1/" + name, *steps))  # noqa: E731
    v1_get, v2_get = step("GET", HPA1 + "/h"), step("GET", HPA2 + "/h")
    hpa("create-defaults", step("POST", HPA1, hpa_v1()), v2_get, v1_get)
    hpa("create-v2-read-v1", step("POST", HPA2, dict(hpa_v2(metrics=ALL_METRICS, behavior={"scaleDown": {
        "stabilizationWindowSeconds": 60}}, minReplicas=2), metadata={"name": "h", "annotations": {"x": "y"}})),
        v1_get, v2_get)
    hpa("create-v2-memory-only", step("POST", HPA2, hpa_v2(metrics=[ALL_METRICS[0]])), v1_get)
    hpa("create-v1-annotations", step("POST", HPA1, hpa_v1(annotations={
        "autoscaling.alpha.kubernetes.io/metrics": json.dumps([
            {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "10"}},
            {"type": "Object", "object": {"target": {"kind": "Ingress", "name": "main"}, "metricName": "rps",
                                          "targetValue": "2k", "Selector": {"matchLabels": {"a": "b"}}}},
            {"type": "External", "external": {"metricName": "queue", "targetAverageValue": "30"}},
            {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "1Gi"}}]),
        "autoscaling.alpha.kubernetes.io/behavior": json.dumps({"scaleDown": {
            "stabilizationWindowSeconds": 30, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}),
        "autoscaling.alpha.kubernetes.io/conditions": json.dumps([{"type": "AbleToScale", "status": "True"}]),
        "keep": "me"}, targetCPUUtilizationPercentage=70)), v2_get, v1_get)
    hpa("create-v1-bad-annotations", step("POST", HPA1, hpa_v1(annotations={
        "autoscaling.alpha.kubernetes.io/metrics": "not json",
        "autoscaling.alpha.kubernetes.io/behavior": json.dumps({"ScaleUp": "fast"})})), v2_get)
    hpa("create-v1-behavior-undefaulted", step("POST", HPA1, hpa_v1(annotations={
        "autoscaling.alpha.kubernetes.io/behavior": json.dumps({"scaleDown": {"stabilizationWindowSeconds": 30}})})))
    hpa("validation", step("POST", HPA1, hpa_v1(minReplicas=0, maxReplicas=0, targetCPUUtilizationPercentage=0,
                                                scaleTargetRef={"kind": "", "name": "a/b"})),
        step("POST", HPA1, {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
                            "metadata": {"name": "bare"}}),
        step("POST", HPA1, hpa_v1(minReplicas=5, maxReplicas=2)))
    hpa("validation-annotation-metrics", step("POST", HPA1, hpa_v1(annotations={
        "autoscaling.alpha.kubernetes.io/metrics": json.dumps([
            {"type": "Pods", "pods": {"metricName": "", "targetAverageValue": "-1"}},
            {"type": "Object", "object": {"target": {"kind": "Ingress", "name": "main"}, "metricName": "a/b",
                                          "targetValue": "0"}},
            {"type": "Bogus"}])})))
    hpa("validation-v2", step("POST", HPA2, hpa_v2(metrics=[
        resource_metric("cpu", type="Percent", averageUtilization=0, averageValue="100m"),
        {"type": "Pods", "resource": {"name": "cpu"}},
        {"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "1",
                                                                               "averageValue": "2"}}},
        {"type": "ContainerResource", "containerResource": {"name": "gpu", "container": "App_1",
                                                            "target": {"type": "AverageValue"}}}],
        behavior={"scaleUp": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Fastest",
                              "policies": [{"type": "Nodes", "value": 0, "periodSeconds": 2000}]}})))
    hpa("status-put-v1", step("POST", HPA1, hpa_v1()),
        step("PUT", HPA1 + "/h/status", dict(hpa_v1(annotations={
            "autoscaling.alpha.kubernetes.io/conditions": json.dumps([{"type": "AbleToScale", "status": "True",
                                                                       "reason": "R"}])}),
            status={"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 55,
                    "lastScaleTime": "2026-01-01T00:00:00Z", "observedGeneration": 4})),
        v2_get, v1_get)
    hpa("status-v2-read-v1", step("POST", HPA2, hpa_v2(metrics=ALL_METRICS[:2])),
        step("PATCH", HPA2 + "/h/status", {"status": {"currentReplicas": 1, "desiredReplicas": 2,
                                                      "currentMetrics": CURRENT_METRICS,
                                                      "conditions": [{"type": "ScalingActive", "status": "False",
                                                                      "reason": "FailedGetResourceMetric",
                                                                      "message": "no <metrics> & more"}]}},
             ctype=MERGE),
        v1_get, step("GET", HPA1 + "/h/status"))
    hpa("status-negative", step("POST", HPA1, hpa_v1()),
        step("PATCH", HPA1 + "/h/status", {"status": {"currentReplicas": -1, "desiredReplicas": -2}}, ctype=MERGE))
    hpa("list-and-get", setup("POST", HPA1, hpa_v1("a")), setup("POST", HPA2, hpa_v2("b", metrics=ALL_METRICS[:1])),
        step("GET", HPA1), step("GET", "/apis/autoscaling/v1/horizontalpodautoscalers?labelSelector=none"),
        step("GET", HPA1 + "?fieldSelector=metadata.name%3Db"))
    hpa("watch", step("POST", HPA2, hpa_v2(metrics=ALL_METRICS[:1]), save={"rv": "/metadata/resourceVersion"}),
        setup("PATCH", HPA2 + "/h", {"spec": {"maxReplicas": 7}}, ctype=MERGE),
        step("GET", HPA1 + "?watch=1&resourceVersion=${rv}&timeoutSeconds=1", watch=True),
        step("GET", HPA1 + "?watch=1&timeoutSeconds=1", watch=True))
    hpa("merge-patch", step("POST", HPA1, hpa_v1()),
        step("PATCH", HPA1 + "/h?fieldManager=patcher",
             {"spec": {"targetCPUUtilizationPercentage": 50, "maxReplicas": 5}}, ctype=MERGE),
        v2_get)
    hpa("json-patch-annotations", step("POST", HPA2, hpa_v2(metrics=ALL_METRICS[:2])),
        step("PATCH", HPA1 + "/h", [{"op": "remove", "path": "/metadata/annotations"}], ctype=JSONPATCH), v2_get)
    hpa("update-put", step("POST", HPA1, hpa_v1()),
        step("PUT", HPA1 + "/h?fieldManager=putter", hpa_v1(maxReplicas=9, targetCPUUtilizationPercentage=20)),
        v2_get)
    hpa("patch-v2-over-v1", step("POST", HPA1 + "?fieldManager=v1-writer", hpa_v1()),
        step("PATCH", HPA2 + "/h?fieldManager=v2-writer", {"spec": {"maxReplicas": 4}}, ctype=MERGE))
    hpa("patch-v2-metrics-over-v1", step("POST", HPA1 + "?fieldManager=v1-writer", hpa_v1()),
        step("PATCH", HPA2 + "/h?fieldManager=v2-writer", {"spec": {"metrics": [
            resource_metric("cpu", type="Utilization", averageUtilization=30)]}}, ctype=MERGE),
        step("PATCH", HPA1 + "/h?fieldManager=v1-writer", {"spec": {"minReplicas": 2}}, ctype=MERGE))
    beh = "/metadata/annotations/autoscaling.alpha.kubernetes.io~1behavior"
    met = "/metadata/annotations/autoscaling.alpha.kubernetes.io~1metrics"
    hpa("put-v1-keeps-v2-fields", step("POST", HPA2, hpa_v2(metrics=ALL_METRICS[:3], behavior={
        "scaleUp": {"selectPolicy": "Min"}})),
        step("GET", HPA1 + "/h", save={"beh": beh, "met": met}),
        step("PUT", HPA1 + "/h", hpa_v1(annotations={"autoscaling.alpha.kubernetes.io/behavior": "${beh}",
                                                     "autoscaling.alpha.kubernetes.io/metrics": "${met}"},
                                        targetCPUUtilizationPercentage=65)),
        v2_get, step("PUT", HPA1 + "/h", hpa_v1(maxReplicas=4)), v2_get)
    hpa("strategic-merge-patch", step("POST", HPA1, hpa_v1()),
        step("PATCH", HPA1 + "/h", {"spec": {"targetCPUUtilizationPercentage": 45}, "metadata": {
            "annotations": {"autoscaling.alpha.kubernetes.io/metrics": json.dumps([
                {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "3"}}])}}}, ctype=SMP),
        v2_get)
    hpa("dry-run-and-deletecollection", step("POST", HPA1 + "?dryRun=All", hpa_v1()), step("GET", HPA1 + "/h"),
        setup("POST", HPA1, hpa_v1("a")), setup("POST", HPA2, hpa_v2("b")), step("DELETE", HPA1),
        step("GET", HPA2))
    hpa("status-current-metrics-annotation", step("POST", HPA1, hpa_v1()),
        step("PUT", HPA1 + "/h/status", dict(hpa_v1(annotations={
            "autoscaling.alpha.kubernetes.io/current-metrics": json.dumps([
                {"type": "Pods", "pods": {"metricName": "qps", "currentAverageValue": "2"}},
                {"type": "Object", "object": {"target": {"kind": "Ingress", "name": "main"}, "metricName": "rps",
                                              "currentValue": "9", "averageValue": "3"}},
                {"type": "External", "external": {"metricName": "q", "currentValue": "1",
                                                  "currentAverageValue": "4"}},
                {"type": "Resource", "resource": {"name": "memory", "currentAverageValue": "1Mi"}},
                {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "c",
                                                                    "currentAverageUtilization": 9,
                                                                    "currentAverageValue": "10m"}}])}),
            status={"currentReplicas": 1, "desiredReplicas": 1, "currentCPUUtilizationPercentage": 77})),
        v2_get, v1_get)
    hpa("apply", step("PATCH", HPA1 + "/h?fieldManager=applier", json.dumps(hpa_v1(targetCPUUtilizationPercentage=60)),
                      ctype=APPLY),
        step("PATCH", HPA1 + "/h?fieldManager=applier", json.dumps(hpa_v1(maxReplicas=6)), ctype=APPLY),
        v2_get)
    hpa("unknown-fields", step("POST", HPA1, dict(hpa_v1(bogus=1), extra=2)),
        step("POST", HPA1, dict(hpa_v1("v2-names", metrics=ALL_METRICS[:1]), status={"conditions": []})),
        step("POST", HPA1 + "?fieldValidation=Strict", hpa_v1("s", bogus=1)))
    hpa("delete", setup("POST", HPA1, hpa_v1()), step("DELETE", HPA1 + "/h"), step("GET", HPA2 + "/h"))
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    # One object per case, listed right after it is written: its Age column reads 0s on both servers.
    hpa("table-list", setup("POST", HPA2, hpa_v2("a", metrics=ALL_METRICS)), step("GET", HPA1, headers=table))
    hpa("table-current-metrics", setup("POST", HPA2, hpa_v2(
        "b", metrics=ALL_METRICS[:3] + [resource_metric("memory", type="Utilization")])),
        setup("PATCH", HPA2 + "/b/status", {"status": {"currentReplicas": 2, "currentMetrics": [
            {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "50Mi"}}},
            CURRENT_METRICS[0], CURRENT_METRICS[1]]}}, ctype=MERGE),
        step("GET", HPA2, headers=table))
    hpa("table-v1-object", setup("POST", HPA1, hpa_v1("c", annotations={
        "autoscaling.alpha.kubernetes.io/metrics": json.dumps(
            [{"type": "External", "external": {"metricName": "q", "targetValue": "5"}}])})),
        step("GET", HPA1 + "/c", headers=table))
    hpa("table-object-external", setup("POST", HPA2, dict(hpa_v2("d"), spec={
        "scaleTargetRef": {"kind": "StatefulSet", "name": "s"}, "maxReplicas": 2,
        "metrics": [ALL_METRICS[3], ALL_METRICS[4]]})), step("GET", HPA1 + "/d", headers=table))
    hpa("discovery", step("GET", "/apis/autoscaling"), step("GET", "/apis/autoscaling/v1"))

    csr = lambda name, *steps: out.append(case("certificates", "csr/" + name, *steps))  # noqa: E731
    who = ["body.spec.username", "body.spec.uid"]
    mk = lambda *a, **kw: step("POST", CSRS, csr_body(*a, **kw), ignore=who)  # noqa: E731
    get = step("GET", CSR, ignore=who)
    created = setup("POST", CSRS, csr_body())
    csr("create", step("POST", CSRS + "?fieldManager=creator", dict(
        csr_body(username="mallory", uid="9", groups=["x"], extra={"a": ["b"]}, expirationSeconds=600),
        metadata={"name": "csr-${ns}", "labels": {"a": "b"}}, status={"conditions": [{"type": "Approved",
                                                                                     "status": "True"}]}),
        ignore=who), get, step("GET", CSR + "/approval", ignore=who), step("GET", CSR + "/status", ignore=who))
    csr("create-rsa", mk(request=b64(RSA_CSR_PEM)))
    csr("create-bare", step("POST", CSRS, {"apiVersion": "certificates.k8s.io/v1",
                                           "kind": "CertificateSigningRequest", "metadata": {"name": "csr-${ns}"},
                                           "spec": {}}))
    csr("request-invalid", mk(request=b64(CERT_PEM)), mk(request=b64("abc")), mk(request=""),
        mk(request=b64("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")),
        mk(request=b64("-----BEGIN CERTIFICATE REQUEST-----\nQUJD\n-----END CERTIFICATE REQUEST-----\n")),
        mk(request=b64("leading text\n" + EC_CSR_PEM + "trailing")))
    csr("signature-invalid", mk(request=b64(tampered(EC_CSR_PEM))), mk(request=b64(tampered(RSA_CSR_PEM))))
    csr("request-not-base64", mk(request="abc!"), mk(request=5))
    csr("usages", mk(usages=["foo", "client auth", "client auth"]), mk(usages=[]))
    csr("signer-name", mk(signerName="kubernetes.io/legacy-unknown"), mk(signerName="foo"),
        mk(signerName="foo/bar"), mk(signerName="Example.com/a_b"), mk(signerName="a.b/c/d"),
        mk(signerName="x" * 250 + ".com/a"), mk(signerName="a.b/" + "x" * 300))
    csr("expiration", mk(expirationSeconds=599), mk(expirationSeconds=0))
    csr("names", step("POST", CSRS, dict(csr_body(), metadata={"name": "Foo_Bar:${ns}"}), ignore=who),
        step("POST", CSRS, dict(csr_body(), metadata={"name": "a%b"})),
        step("POST", CSRS, dict(csr_body(), metadata={"name": ".."})))
    csr("update-spec-ignored", created,
        step("PUT", CSR, dict(csr_body(signerName="example.com/other", usages=["server auth"]),
                              metadata={"name": "csr-${ns}", "labels": {"x": "y"}},
                              status={"conditions": [{"type": "Approved", "status": "True"}]}), ignore=who),
        step("PATCH", CSR, {"spec": {"signerName": "x"}, "status": {"certificate": b64(CERT_PEM)}}, ctype=MERGE,
             ignore=who))
    csr("approve", created,
        step("PUT", CSR + "/approval", dict(csr_body(usages=["server auth"]), status={
            "conditions": [{"type": "Approved", "status": "True", "reason": "AutoApproved", "message": "ok"}],
            "certificate": b64(CERT_PEM)}), ignore=who), get)
    csr("approval-invalid", created,
        step("PATCH", CSR + "/approval", {"status": {"conditions": [{"type": "Approved", "status": "True"},
                                                                    {"type": "Denied", "status": "True"}]}},
             ctype=MERGE),
        step("PATCH", CSR + "/approval", {"status": {"conditions": [
            {"type": "Approved", "status": "False"}, {"type": "", "status": "True"},
            {"type": "X", "status": "Maybe"}, {"type": "X", "status": ""}]}}, ctype=MERGE))
    csr("approval-remove", created,
        step("PATCH", CSR + "/approval?fieldManager=approver", {"status": {"conditions": [
            {"type": "Approved", "status": "True", "reason": "R"}, {"type": "Failed", "status": "True"},
            {"type": "Custom", "status": "False"}]}}, ctype=MERGE, ignore=who),
        step("PATCH", CSR + "/approval", {"status": {"conditions": []}}, ctype=MERGE),
        step("PATCH", CSR + "/approval", {"status": {"conditions": [{"type": "Approved", "status": "True",
                                                                     "reason": "changed"}]}}, ctype=MERGE))
    csr("status", created,
        step("PATCH", CSR + "/status", {"status": {"conditions": [{"type": "Approved", "status": "True"}]}},
             ctype=MERGE),
        step("PATCH", CSR + "/status", {"status": {"certificate": b64("junk")}}, ctype=MERGE),
        step("PATCH", CSR + "/status", {"status": {"certificate": b64("-----BEGIN CERTIFICATE-----\n"
                                                                      "-----END CERTIFICATE-----\n")}}, ctype=MERGE),
        step("PATCH", CSR + "/status", {"status": {"certificate": b64(EC_CSR_PEM)}}, ctype=MERGE),
        step("PATCH", CSR + "/status?fieldManager=signer", {"status": {
            "certificate": b64(CERT_PEM), "conditions": [{"type": "Issued", "status": "True"}]}}, ctype=MERGE,
            ignore=who),
        step("PATCH", CSR + "/status", {"status": {"certificate": b64(CERT_PEM + CERT_PEM)}}, ctype=MERGE))
    csr("approve-then-status", created,
        setup("PATCH", CSR + "/approval", {"status": {"conditions": [{"type": "Approved", "status": "True"}]}},
              ctype=MERGE),
        step("PATCH", CSR + "/status", {"status": {"conditions": [{"type": "Denied", "status": "True"},
                                                                  {"type": "Approved", "status": "True"}]}},
             ctype=MERGE),
        step("PATCH", CSR + "/status", {"status": {"conditions": [{"type": "Approved", "status": "True",
                                                                   "reason": "kept"}]}}, ctype=MERGE, ignore=who),
        step("PATCH", CSR + "/status", {"status": {"conditions": []}}, ctype=MERGE))
    csr("list-watch", step("POST", CSRS, dict(csr_body(), metadata={"name": "csr-${ns}", "labels": {"case": "${ns}"}}),
                           ignore=who, save={"rv": "/metadata/resourceVersion"}),
        setup("POST", CSRS, dict(csr_body("csr2-${ns}", signerName="example.com/other"),
                                 metadata={"name": "csr2-${ns}", "labels": {"case": "${ns}"}})),
        step("GET", CSRS + "?labelSelector=case%3D${ns}", headers=PARTIAL),
        step("GET", CSRS + "?labelSelector=case%3D${ns}&fieldSelector=spec.signerName%3Dexample.com/other",
             headers=PARTIAL),
        step("GET", CSRS + "?fieldSelector=spec.bogus%3Dx"),
        step("GET", CSRS + "?watch=1&labelSelector=case%3D${ns}&resourceVersion=${rv}&timeoutSeconds=1",
             headers=PARTIAL_ONE, watch=True))
    csr("apply", step("PATCH", CSR + "?fieldManager=applier", json.dumps(dict(
        csr_body(), metadata={"name": "csr-${ns}", "labels": {"a": "b"}})), ctype=APPLY, ignore=who),
        step("PATCH", CSR + "?fieldManager=applier", json.dumps(dict(
            csr_body(signerName="example.com/x"), metadata={"name": "csr-${ns}", "labels": {"a": "c"}})), ctype=APPLY,
            ignore=who),
        step("PATCH", CSR + "/approval?fieldManager=approver", json.dumps({
            "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": "csr-${ns}"}, "status": {"conditions": [{"type": "Approved", "status": "True",
                                                                          "reason": "Applied"}]}}),
            ctype=APPLY, ignore=who))
    csr("generate-name-dry-run", step("POST", CSRS + "?dryRun=All", csr_body(), ignore=who), step("GET", CSR),
        step("POST", CSRS, dict(csr_body(), metadata={"generateName": "gen-${ns}-"}), ignore=who))
    csr("status-put", created, step("GET", CSR, ignore=who, save={"rv": "/metadata/resourceVersion"}),
        step("PUT", CSR + "/status", dict(csr_body(), metadata={"name": "csr-${ns}", "resourceVersion": "${rv}"},
                                          status={"certificate": b64(CERT_PEM),
                                                  "conditions": [{"type": "Failed", "status": "True",
                                                                  "lastUpdateTime": "2020-01-01T00:00:00Z"}]}),
             ignore=who),
        step("PUT", CSR + "/status", dict(csr_body(), metadata={"name": "csr-${ns}", "resourceVersion": "1"})))
    csr("delete", created, step("DELETE", CSR), step("GET", CSR), step("DELETE", CSR + "/approval"))
    # The Requestor cell is the user's name: only the columns are compared.
    csr("table", created, step("GET", CSR, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
                               ignore=["body.rows"]))
    csr("discovery", step("GET", "/apis/certificates.k8s.io"), step("GET", "/apis/certificates.k8s.io/v1"))
    return out


def all_cases():
    return (crud_cases() + pod_validation_cases() + service_validation_cases() + other_validation_cases() +
            immutability_cases() + defaults_cases() + subresource_cases() + error_cases() + list_cases() +
            watch_cases() + patch_cases() + apply_cases() + deletion_cases() + discovery_cases() + body_cases() +
            kind_cases() + autoscaling_certificates_cases() +
            random_cases(1, 50))
