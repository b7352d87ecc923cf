"""The OpenAPI schemas of the generated types, for the CRD schema of an embedded value.

A custom resource declared in C++ may embed a generated type (a `core::v1::PodTemplateSpec`
member of its Spec). Its CRD then needs that type's structural schema, expanded inline as
controller-gen writes it for an embedded k8s.io/api type. This module writes one source,
`src/openapi_schemas.cpp`, with every schema of the input as compact JSON, reduced to what a
structural schema uses, and `kube::api::internal::OpenApiSchemaText(name)` to look one up
(<kube/api/openapi_schemas.hpp>); src/api/embedded_schema.cpp resolves the references at run
time.

Each schema keeps: type, format, enum, required, properties, items, additionalProperties, the
scalar defaults of properties that are not required, and the x-kubernetes-* extensions that
validation and pruning read (list type and map keys, map type, int-or-string, preserve unknown
fields, embedded resource), a list type only on an array. A reference, `$ref` or `allOf: [{$ref}]`, becomes
`{"$ref": "<schema name>"}` (plus an `x-kubernetes-map-type` written beside it). Everything else
is dropped on purpose (patch strategies, unions, group-version-kinds, `default: {}` of struct
values); a keyword this module does not know is an error, so that a new Kubernetes version
cannot slip one through unseen.

Defaults: openapi-gen writes the Go zero value as the default of every field that Go always
encodes (`containerPort: default 0`, `name: default ""`, `spec: default {}`). For a required
property that default would hide a missing value, so it is dropped (controller-gen writes only
`required` there); the default of an optional scalar comes from a `+default` marker
(`protocol: TCP`, LocalObjectReference's `name: ""`) and is kept.
"""

import json

# Keywords copied as they are (or, for the containers, after reduction).
KEPT = {
    "type", "format", "enum", "required",
    "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
    "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
}
# Keywords that a structural schema does not need, or that only describe Go's patch strategy.
DROPPED = {
    "description", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key",
    "x-kubernetes-unions", "x-kubernetes-group-version-kind",
}
# Keywords that may stand beside a reference and still mean something for the referenced type.
REF_KEPT = {"x-kubernetes-map-type"}
# Beside a reference to an object: a list type there (meta/v1 Status.details) is meaningless.
REF_DROPPED = DROPPED | {"default", "x-kubernetes-list-type"}

SOURCE_NAME = "openapi_schemas.cpp"

# The OpenAPI input had its prose removed by deleting every key named `description`, which also
# deleted the string properties of that name. kube-apiserver v1.32's protobuf descriptors
# (api/protobuf/v1.32/fields.json) list exactly these four; restore_description_properties puts
# them back, so that the generated types have them and the CRD schemas allow them.
DESCRIPTION_PROPERTIES = (
    "io.k8s.api.scheduling.v1.PriorityClass",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ExternalDocumentation",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps",
)


def restore_description_properties(doc):
    """Adds `description: {type: string}` to the schemas of DESCRIPTION_PROPERTIES in an OpenAPI
    v3 document (in place; properties stay in the document's sorted order)."""
    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        if name not in DESCRIPTION_PROPERTIES:
            continue
        props = schema.setdefault("properties", {})
        if "description" in props:
            continue
        props["description"] = {"type": "string"}
        schema["properties"] = dict(sorted(props.items()))
    return doc


class SchemaError(Exception):
    pass


def _ref(schema):
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[1], {k: v for k, v in schema.items() if k != "$ref"}
    all_of = schema.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0] and len(all_of[0]) == 1:
        return all_of[0]["$ref"].rsplit("/", 1)[1], {k: v for k, v in schema.items() if k != "allOf"}
    return None, None


def _is_scalar(v):
    return isinstance(v, (str, bool, int, float))


def reduce_schema(schema, where, keep_default=False):
    """The structural part of one (sub)schema. `keep_default`: the schema is a property that its
    object does not require, whose scalar default is kept (see the module comment)."""
    name, siblings = _ref(schema)
    if name is not None:
        out = {"$ref": name}
        for k, v in siblings.items():
            if k in REF_KEPT:
                out[k] = v
            elif k not in REF_DROPPED:
                raise SchemaError("%s: unexpected %r beside a $ref" % (where, k))
        return out
    out = {}
    for k, v in schema.items():
        if k in KEPT:
            out[k] = v
        elif k == "properties":
            required = set(schema.get("required", []))
            out[k] = {p: reduce_schema(s, "%s.%s" % (where, p), p not in required) for p, s in v.items()}
        elif k == "items":
            out[k] = reduce_schema(v, where + "[]")
        elif k == "additionalProperties":
            out[k] = reduce_schema(v, where + "{}") if isinstance(v, dict) else v
        elif k == "default":
            if keep_default and _is_scalar(v):
                out[k] = v
        elif k not in DROPPED:
            raise SchemaError("%s: unsupported keyword %r" % (where, k))
    if out.get("type") != "array":
        # `+listType=atomic` on a Go []byte (certificates/v1 CSR request, APIService caBundle):
        # a base64 string on the wire, and kube-apiserver takes a list type on arrays only.
        out.pop("x-kubernetes-list-type", None)
        out.pop("x-kubernetes-list-map-keys", None)
    return out


def reduced(schemas, skip):
    """{name: reduced schema} for every schema but those in `skip` (the types with their own
    JSON forms, which the runtime maps by name)."""
    return {n: reduce_schema(s, n) for n, s in sorted(schemas.items()) if n not in skip}


def cpp_literal(text):
    """A C++ string literal of ASCII `text` (json.dumps escapes everything else)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_source(table):
    """The source of the schema table and its lookup, one entry per line, sorted by name."""
    lines = [
        "// Generated by tools/apigen/apigen.py from api/openapi/v1.32. Do not edit.",
        "#include <kube/api/openapi_schemas.hpp>",
        "",
        "#include <algorithm>",
        "#include <iterator>",
        "",
        "namespace kube::api::internal {",
        "namespace {",
        "",
        "using namespace std::string_view_literals;",
        "",
        "struct Entry {",
        "  std::string_view name;",
        "  std::string_view text;",
        "};",
        "",
        "// Sorted by name. The _sv literals carry their length: no strlen at compile time.",
        "constexpr Entry kSchemas[] = {",
    ]
    for name in sorted(table):
        text = json.dumps(table[name], sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        lines.append("    {%ssv, %ssv}," % (cpp_literal(name), cpp_literal(text)))
    lines += [
        "};",
        "",
        "}  // namespace",
        "",
        "std::optional<std::string_view> OpenApiSchemaText(std::string_view name) {",
        "  const Entry* it = std::lower_bound(std::begin(kSchemas), std::end(kSchemas), name,",
        "                                     [](const Entry& e, std::string_view n) { return e.name < n; });",
        "  if (it == std::end(kSchemas) || it->name != name) return std::nullopt;",
        "  return it->text;",
        "}",
        "",
        "std::vector<std::string_view> OpenApiSchemaNames() {",
        "  std::vector<std::string_view> names;",
        "  names.reserve(std::size(kSchemas));",
        "  for (const Entry& e : kSchemas) names.push_back(e.name);",
        "  return names;",
        "}",
        "",
        "}  // namespace kube::api::internal",
        "",
    ]
    return "\n".join(lines)


def outputs(schemas, skip):
    """[(source name under src/, text)]."""
    try:
        table = reduced(schemas, skip)
    except SchemaError as e:
        raise SchemaError("schema table: %s" % e)
    return [(SOURCE_NAME, gen_source(table))]


def manifest_lines(sources):
    return ["set(KUBE_API_SCHEMAS_SOURCES %s)" % " ".join(n for n, _ in sources)]
