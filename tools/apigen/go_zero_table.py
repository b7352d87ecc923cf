#!/usr/bin/env python3
"""The shape of Go's zero values of the built-in types, for the embedded server's field manager.

kube-apiserver computes managedFields by comparing typed Go objects: a non-pointer struct member
(`spec`, `strategy`, a pod template's `metadata`) exists, as `{}`, in the zero value a new object is
compared with, and an always-encoded slice (`containers`) exists as null. Only members that
appear where there was nothing get a `.` entry. The OpenAPI documents show both: openapi-gen gives
non-pointer struct members `default: {}`, and members without omitempty are `required`.

Writes one C++ source defining `kube::apiserver::rest::internal::GoZeroTableJson()`, compact JSON:

  {"defs": {"<definition>": {"z": {"<member>": {} | null}, "c": {"<member>": "<definition>"},
                             "t": {"<member>": "<Go type>"}, "a": true}},
   "kinds": {"<group>/<version>/<Kind>": "<definition>"}}

`z` the members of the zero value, `c` the definition of each member's value (of its items for an
array, of its values for a map), `t` the Go type each member decodes into as Go's json errors
name it (`int32`, `[]v1.Container`; types with their own decoder left out), `a` for a struct that
server-side apply treats as atomic (`x-kubernetes-map-type: atomic`). Python 3 standard library only.

  tools/apigen/go_zero_table.py --out go_zero_table.cpp api/openapi/v1.32/*.json
"""
import argparse
import json
import sys

PREFIX = "#/components/schemas/"
# Types with their own JSON forms, and what their Go zero value encodes to.
SCALAR_ZERO = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": None,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": None,
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "0",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": 0,
}


# Non-pointer metav1.Time / MicroTime members: Go always encodes them (null when zero), but their
# OpenAPI has no `default: {}` to say so (Time has its own OpenAPI type).
NON_POINTER_TIMES = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": ["creationTimestamp"],
    "io.k8s.apimachinery.pkg.apis.meta.v1.Condition": ["lastTransitionTime"],
    "io.k8s.api.core.v1.Event": ["eventTime", "firstTimestamp", "lastTimestamp"],
    "io.k8s.api.events.v1.Event": ["eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"],
    "io.k8s.api.core.v1.PodCondition": ["lastProbeTime", "lastTransitionTime"],
    "io.k8s.api.core.v1.NodeCondition": ["lastHeartbeatTime", "lastTransitionTime"],
    "io.k8s.api.core.v1.NamespaceCondition": ["lastTransitionTime"],
    "io.k8s.api.core.v1.PersistentVolumeClaimCondition": ["lastProbeTime", "lastTransitionTime"],
    "io.k8s.api.core.v1.ContainerStateRunning": ["startedAt"],
    "io.k8s.api.core.v1.ContainerStateTerminated": ["startedAt", "finishedAt"],
    "io.k8s.api.apps.v1.DeploymentCondition": ["lastUpdateTime", "lastTransitionTime"],
    "io.k8s.api.apps.v1.ReplicaSetCondition": ["lastTransitionTime"],
    "io.k8s.api.apps.v1.StatefulSetCondition": ["lastTransitionTime"],
    "io.k8s.api.apps.v1.DaemonSetCondition": ["lastTransitionTime"],
    "io.k8s.api.batch.v1.JobCondition": ["lastProbeTime", "lastTransitionTime"],
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition": ["lastTransitionTime"],
    "io.k8s.api.certificates.v1.CertificateSigningRequestCondition": ["lastUpdateTime", "lastTransitionTime"],
}


# Slices without omitempty that their OpenAPI does not list as required (+optional): Go encodes
# them, as null when nil.
ALWAYS_ENCODED = {
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus": ["currentMetrics"],
}


def ref_of(schema):
    """The definition a property refers to (directly, through allOf, or for items/values)."""
    if not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        return schema["$ref"][len(PREFIX):]
    for sub in schema.get("allOf", []):
        r = ref_of(sub)
        if r:
            return r
    return None


def child_def(prop):
    r = ref_of(prop)
    if r:
        return r
    if prop.get("type") == "array":
        return ref_of(prop.get("items", {}))
    if prop.get("type") == "object" and isinstance(prop.get("additionalProperties"), dict):
        return ref_of(prop["additionalProperties"])
    return None


# Types with their own UnmarshalJSON: Go's decoder reports their errors in other words.
CUSTOM_JSON = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
    "io.k8s.apimachinery.pkg.api.resource.Quantity", "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
}


def go_name(definition):
    """v1.DeploymentSpec for io.k8s.api.apps.v1.DeploymentSpec (package and type)."""
    parts = definition.split(".")
    return "%s.%s" % (parts[-2], parts[-1])


def go_type(prop):
    """The Go type a member's JSON value is decoded into, as Go's json errors print it; "" for a
    type with its own decoder (or one the document does not say)."""
    ref = ref_of(prop)
    if ref:
        return "" if ref in CUSTOM_JSON else go_name(ref)
    t = prop.get("type")
    if t == "string":
        return "[]uint8" if prop.get("format") == "byte" else "string"
    if t == "boolean":
        return "bool"
    if t == "integer":
        return "int32" if prop.get("format") == "int32" else "int64"
    if t == "number":
        return "float64"
    if t == "array" and isinstance(prop.get("items"), dict):
        inner = go_type(prop["items"])
        return "[]" + inner if inner else ""
    if t == "object" and isinstance(prop.get("additionalProperties"), dict):
        inner = go_type(prop["additionalProperties"])
        return "map[string]" + inner if inner else ""
    return ""


def table(docs):
    schemas = {}
    for doc in docs:
        schemas.update(doc.get("components", {}).get("schemas", {}))
    defs = {}
    kinds = {}
    for name, schema in sorted(schemas.items()):
        props = schema.get("properties")
        if not props:
            continue
        required = set(schema.get("required", []))
        entry = {}
        zero = {}
        children = {}
        for member, prop in sorted(props.items()):
            child = child_def(prop)
            if child and child in schemas and schemas[child].get("properties"):
                children[member] = child
            ref = ref_of(prop)
            if prop.get("default") == {} and ref:
                zero[member] = SCALAR_ZERO[ref] if ref in SCALAR_ZERO else {}
            elif member in required and prop.get("type") in ("array", "object") and not ref_of(prop):
                zero[member] = None
            elif member in NON_POINTER_TIMES.get(name, ()) or member in ALWAYS_ENCODED.get(name, ()):
                zero[member] = None
            elif "default" in prop and prop["default"] in ("", 0, False) and type(prop["default"]) in (str, int, bool):
                # openapi-gen writes the Go zero value of a non-pointer scalar as its default: a
                # member equal to it is no change (a `+default` marker's other values are not).
                zero[member] = prop["default"]
        if zero:
            entry["z"] = zero
        if children:
            entry["c"] = children
        types = {member: go_type(prop) for member, prop in sorted(props.items())}
        types = {m: t for m, t in types.items() if t}
        if types:
            entry["t"] = types
        if schema.get("x-kubernetes-map-type") == "atomic":
            entry["a"] = True
        if entry:
            defs[name] = entry
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            kinds["%s/%s/%s" % (gvk.get("group", ""), gvk["version"], gvk["kind"])] = name
    return {"defs": defs, "kinds": kinds}


def chunked_cpp_source(data, generator, function):
    """A C++ source defining `kube::apiserver::rest::internal::<function>()`, the compact JSON of
    `data`, as raw string literals of at most 60000 characters joined at run time: a compiler need
    not accept a longer literal (clang -Wpedantic warns at 65536), concatenated ones included."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    chunks = [text[i:i + 60000] for i in range(0, len(text), 60000)]
    body = ",\n".join('      R"kubecpp(%s)kubecpp"' % c for c in chunks)
    return ("// Generated by tools/apigen/%s from api/openapi/v1.32. Do not edit.\n"
            "#include <string>\n"
            "#include <string_view>\n\n"
            "namespace kube::apiserver::rest::internal {\n\n"
            "std::string_view %s() {\n"
            "  static constexpr std::string_view kChunks[] = {\n%s};\n"
            "  static const std::string kJson = [] {\n"
            "    std::string out;\n"
            "    for (std::string_view chunk : kChunks) out += chunk;\n"
            "    return out;\n"
            "  }();\n"
            "  return kJson;\n}\n\n"
            "}  // namespace kube::apiserver::rest::internal\n" % (generator, function, body))


def cpp_source(data):
    return chunked_cpp_source(data, "go_zero_table.py", "GoZeroTableJson")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    docs = []
    for path in args.specs:
        with open(path) as f:
            docs.append(json.load(f))
    source = cpp_source(table(docs))
    with open(args.out, "w") as f:
        f.write(source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
