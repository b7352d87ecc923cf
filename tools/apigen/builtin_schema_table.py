#!/usr/bin/env python3
"""The field schemas of the built-in kinds, for the embedded server's field handling.

kube-apiserver decodes a built-in object into its Go type: unknown members are dropped (or
reported under fieldValidation), and strategic merge patch and server-side apply follow the
type's tags. The OpenAPI documents kube-apiserver serves carry all of that: the members of each
type, `x-kubernetes-patch-strategy` / `-patch-merge-key`, `x-kubernetes-list-type` /
`-list-map-keys` and `x-kubernetes-map-type`.

Writes one C++ source defining `kube::apiserver::rest::internal::BuiltinSchemaTableJson()`,
compact JSON:

  {"defs": {"<definition>": <schema>}, "kinds": {"<group>/<version>/<Kind>": "<definition>"}}

Each schema keeps only what the field handling reads: `type`, `properties`, `items`,
`additionalProperties` and the x-kubernetes extensions above; a member of a named type is
`{"$ref": "<definition>"}` (with the member's own extensions beside it), resolved by the server
when it builds a kind's schema. Types with their own JSON form become what they encode to:
Time and MicroTime strings, Quantity and IntOrString int-or-string values, FieldsV1 an open
object, RawExtension and apiextensions JSON any value (kept as given, a leaf for apply). `required`, enums and object
defaults are left out: kube's Go code defaults and validates built-in kinds, not the OpenAPI
document; scalar defaults stay for server-side apply's list-map keys (a port's protocol). JSONSchemaProps (recursive) is left out: CustomResourceDefinition has its own schema.
Python 3 standard library only.

  tools/apigen/builtin_schema_table.py --out builtin_schema_table.cpp api/openapi/v1.32/*.json
"""
import argparse
import json
import sys

from go_zero_table import chunked_cpp_source

PREFIX = "#/components/schemas/"
INT_OR_STRING = {"x-kubernetes-int-or-string": True}
ANY = {"x-kubernetes-preserve-unknown-fields": True}
SPECIAL = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"type": "string"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {"type": "string"},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": INT_OR_STRING,
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": INT_OR_STRING,
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": {"type": "object", **ANY},
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {**ANY, "x-kubernetes-map-type": "atomic"},
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": ANY,
}
SKIPPED = {"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"}
KEPT = ("x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
        "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-int-or-string",
        "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource")


def ref_name(schema):
    if "$ref" in schema:
        return schema["$ref"][len(PREFIX):]
    for sub in schema.get("allOf", []):
        if "$ref" in sub:
            return sub["$ref"][len(PREFIX):]
    return None


def compact(schema):
    """The kept part of one schema; named types become references (or their special form)."""
    out = {}
    ref = ref_name(schema)
    if ref is not None:
        if ref in SPECIAL:
            out.update(SPECIAL[ref])
        elif ref in SKIPPED:
            out.update({"type": "object", **ANY})
        else:
            out["$ref"] = ref
    if "type" in schema and ref is None:
        out["type"] = schema["type"]
    if schema.get("format") == "int-or-string":
        out.update(INT_OR_STRING)
    for key in KEPT:
        if key in schema:
            out[key] = schema[key]
    # Scalar defaults: server-side apply fills in a list-map key an applied element omits.
    if type(schema.get("default")) in (str, int, bool):
        out["default"] = schema["default"]
    if "properties" in schema:
        out["properties"] = {name: compact(prop) for name, prop in sorted(schema["properties"].items())}
    if isinstance(schema.get("items"), dict):
        out["items"] = compact(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        out["additionalProperties"] = compact(schema["additionalProperties"])
    return out


def table(docs):
    schemas = {}
    for doc in docs:
        schemas.update(doc.get("components", {}).get("schemas", {}))
    defs = {}
    kinds = {}
    for name, schema in sorted(schemas.items()):
        if name in SPECIAL or name in SKIPPED:
            continue
        defs[name] = compact(schema)
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            kinds["%s/%s/%s" % (gvk.get("group", ""), gvk["version"], gvk["kind"])] = name
    # Only what a kind reaches.
    reached = set()

    def reach(value):
        if isinstance(value, dict):
            if "$ref" in value and value["$ref"] not in reached:
                reached.add(value["$ref"])
                reach(defs[value["$ref"]])
            for v in value.values():
                reach(v)
    for name in kinds.values():
        if name not in reached:
            reached.add(name)
            reach(defs[name])
    return {"defs": {n: s for n, s in defs.items() if n in reached}, "kinds": kinds}


def cpp_source(data):
    return chunked_cpp_source(data, "builtin_schema_table.py", "BuiltinSchemaTableJson")


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
