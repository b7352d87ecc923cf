#!/usr/bin/env python3
"""Writes the message table of kubecpp's protobuf-to-JSON transcoder (src/core/protobuf.cpp).

  protobuf_table.py --fields api/protobuf/v1.32/fields.json --out FILE.cpp SPEC.json...

Input: the protobuf field tables extracted from kube-apiserver (protobuf_fields.py) and the
OpenAPI v3 documents of the generated types. For every kind the OpenAPI documents name (with
x-kubernetes-group-version-kind) whose message is known, the table holds that message and every
message it reaches, each field with:
- its JSON name: the OpenAPI property of the same name (compared case-insensitively, '-' and '$'
  ignored, as proto names drop them: `Webhooks`, `xKubernetesListType`, `ref`), or, for a
  message field with no such property, the mark `inline` (a Go embedded struct: `VolumeSource` in
  `Volume`);
- whether Go encodes its zero value: a pointer always (`ptr`), a plain value only when the OpenAPI
  schema requires the property (openapi-gen requires exactly the fields without `omitempty`).
Messages with their own JSON form (Time, MicroTime, Quantity, IntOrString, FieldsV1,
RawExtension, apiextensions' JSON and its unions) are marked special. A field that cannot be
mapped is an error, so that a new Kubernetes version cannot slip one through unseen.

Only the Python 3 standard library is used, and the output is deterministic.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schemas as schemas_module  # noqa: E402

SPECIAL = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "kTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "kMicroTime",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "kQuantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "kIntOrString",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "kRawJson",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "kRawExtension",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON": "kRawJson",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": "kSchemaOrBool",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": "kSchemaOrArray",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": "kSchemaOrStringArray",
}
SCALAR_KINDS = {"string": "kString", "bytes": "kBytes", "int32": "kInt32", "int64": "kInt64",
                "bool": "kBool", "double": "kDouble"}


class TableError(Exception):
    pass


def openapi_name(message):
    """k8s.io.api.core.v1.Pod -> io.k8s.api.core.v1.Pod."""
    name = "io.k8s." + message[len("k8s.io."):]
    return name.replace("apiextensions_apiserver", "apiextensions-apiserver").replace(
        "kube_aggregator", "kube-aggregator")


def norm(name):
    return re.sub(r"[-$]", "", name).lower()


def ref_name(prop):
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[1]
    all_of = prop.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0]:
        return all_of[0]["$ref"].rsplit("/", 1)[1]
    return None


def build(fields, specs):
    schemas = {}
    kinds = {}
    for spec in specs:
        for name, s in spec.get("components", {}).get("schemas", {}).items():
            schemas[name] = s
            for gvk in s.get("x-kubernetes-group-version-kind", []):
                api_version = (gvk["group"] + "/" if gvk["group"] else "") + gvk["version"]
                kinds[(api_version, gvk["kind"])] = name
    by_openapi = {openapi_name(m): m for m in fields}

    messages = {}  # proto name -> list of rows, in a stable order of discovery
    order = []

    def visit(message, where, parent=None):
        if message in messages:
            return
        if message not in fields:
            raise TableError("%s: no protobuf message %s" % (where, message))
        messages[message] = None
        order.append(message)
        if message in SPECIAL:
            messages[message] = []
            return
        if (openapi_name(message) not in schemas and
                [r[:3] + r[4:] for r in fields[message]] == [["items", 1, "string", "rep"]]):
            # A named []string (authentication's ExtraValue): a message with one repeated field.
            SPECIAL[message] = "kStringArray"
            messages[message] = []
            return
        # An embedded struct only ever inlined has no schema of its own: its fields are the
        # parent's properties (admissionregistration's Rule in RuleWithOperations).
        schema = schemas.get(openapi_name(message), parent)
        if schema is None:
            raise TableError("%s: no OpenAPI schema for %s" % (where, message))
        props = schema.get("properties", {})
        by_norm = {norm(p): p for p in props}
        required = set(schema.get("required", []))
        rows = []
        for name, number, kind, target, flags in fields[message]:
            flags = flags.split()
            json_name = props and (name if name in props else by_norm.get(norm(name)))
            inline = False
            if not json_name:
                if kind != "message":
                    raise TableError("%s.%s: no OpenAPI property" % (message, name))
                inline = True
                json_name = ""
            if kind == "message" or (kind == "map" and target not in SCALAR_KINDS):
                visit(target, "%s.%s" % (message, name), schema if inline else None)
            rows.append({
                "name": json_name, "number": number, "kind": kind, "target": target,
                "rep": "rep" in flags, "ptr": "ptr" in flags, "inline": inline,
                "required": json_name in required,
            })
        messages[message] = rows

    top = []
    for (api_version, kind), schema_name in sorted(kinds.items()):
        message = by_openapi.get(schema_name)
        if message is None:
            continue
        visit(message, schema_name)
        top.append((api_version, kind, message))
    return order, messages, top


def cpp_string(s):
    return json.dumps(s)


def emit(order, messages, top):
    index = {m: i for i, m in enumerate(order)}
    out = []
    w = out.append
    w("// Generated by tools/apigen/protobuf_table.py from api/protobuf/v1.32/fields.json and")
    w("// api/openapi/v1.32: the protobuf messages of the Kubernetes API. Do not edit.")
    w("")
    w('#include "core/protobuf_table.hpp"')
    w("")
    w("namespace kube::core::protobuf_table {")
    w("")
    w("const Field kFields[] = {")
    first = {}
    n = 0
    for m in order:
        first[m] = n
        for r in messages[m]:
            if r["kind"] == "message":
                kind, target = "kMessage", index[r["target"]]
            elif r["kind"] == "map":
                if r["target"] in SCALAR_KINDS:
                    kind, target = "kMap" + SCALAR_KINDS[r["target"]][1:], 0
                else:
                    kind, target = "kMapMessage", index[r["target"]]
            elif r["kind"] in SCALAR_KINDS:
                kind, target = SCALAR_KINDS[r["kind"]], 0
            else:
                raise TableError("%s.%s: unsupported protobuf type %s" % (m, r["name"], r["kind"]))
            flags = [f for f, on in (("kRepeated", r["rep"]), ("kPointer", r["ptr"]),
                                     ("kInline", r["inline"]), ("kRequired", r["required"])) if on]
            w("    {%d, Kind::%s, %s, %d, %s}," % (r["number"], kind, " | ".join(flags) or "0", target,
                                                cpp_string(r["name"])))
            n += 1
    w("};")
    w("")
    w("const Message kMessages[] = {")
    for m in order:
        special = SPECIAL.get(m, "kNone")
        w("    {%s, Special::%s, %d, %d}," % (cpp_string(m), special, first[m], len(messages[m])))
    w("};")
    w("")
    w("const TopKind kKinds[] = {")
    for api_version, kind, message in top:
        w("    {%s, %s, %d}," % (cpp_string(api_version), cpp_string(kind), index[message]))
    w("};")
    w("")
    w("const std::size_t kMessageCount = %d;" % len(order))
    w("const std::size_t kKindCount = %d;" % len(top))
    w("")
    w("}  // namespace kube::core::protobuf_table")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fields", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    with open(args.fields) as f:
        fields = json.load(f)
    specs = []
    for path in args.specs:
        with open(path) as f:
            specs.append(schemas_module.restore_description_properties(json.load(f)))
    try:
        text = emit(*build(fields, specs))
    except TableError as e:
        sys.exit("protobuf_table.py: %s" % e)
    try:
        with open(args.out) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
