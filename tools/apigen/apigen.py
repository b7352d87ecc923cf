#!/usr/bin/env python3
"""Generates the typed Kubernetes API of kubecpp from OpenAPI v3 documents.

For every Go package of the schemas (io.k8s.api.apps.v1, io.k8s.apimachinery.pkg.apis.meta.v1,
...) it writes one header `kube/api/<group>/<version>.hpp` with plain structs and the
declarations of their JSON codecs, and a few `.cpp` files with the codecs. The build runs it;
see docs/typed-api.md for the mapping rules.

  apigen.py --out DIR SPEC.json...             write the headers and sources under DIR
  apigen.py --manifest FILE SPEC.json...       write a CMake file naming the libraries, their
                                               sources and dependencies (read at configure time)

Only the Python 3 standard library is used. The output is deterministic: the same input gives
the same bytes.
"""

import argparse
import json
import os
import re
import sys

import schemas

# Go packages -> (C++ namespace group, version).
PACKAGE_RULES = [
    (re.compile(r"^io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)$"), None),
    (re.compile(r"^io\.k8s\.apimachinery\.pkg\.apis\.meta\.(v1)$"), "meta"),
    (re.compile(r"^io\.k8s\.apiextensions-apiserver\.pkg\.apis\.apiextensions\.(v1)$"), "apiextensions"),
    (re.compile(r"^io\.k8s\.kube-aggregator\.pkg\.apis\.apiregistration\.(v1)$"), "apiregistration"),
]

# Schemas with their own JSON forms: hand-written runtime types (include/kube/api/).
BUILTIN_TYPES = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "::kube::api::Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "::kube::api::IntOrString",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "::kube::api::Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "::kube::api::MicroTime",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "::kube::api::RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "::kube::api::FieldsV1",
    # Any JSON value, and the schema-or-bool / schema-or-array unions of JSONSchemaProps.
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": "::kube::api::RawJson",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": "::kube::api::RawJson",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": "::kube::api::RawJson",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": "::kube::api::RawJson",
}

# Fields that are Go values with `omitempty` (not pointers): a plain C++ member, omitted when it
# holds the zero value. Everything else that is not required is a std::optional, so that an
# explicit zero ("", 0, false) survives a round trip. TypeMeta's two fields are added for every
# type that has them.
VALUE_FIELDS = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
        "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {"continue", "resourceVersion", "selfLink"},
}
TYPE_META_FIELDS = {"apiVersion", "kind"}

CPP_KEYWORDS = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq
""".split())

# Names that GNU dialects (-std=gnu++20, CMake's default) predefine as macros: a member so named
# (core/v1 ContainerUser.linux) would not compile there.
PREDEFINED_MACROS = {"linux", "unix", "i386"}

# Types per generated .cpp file: keeps each translation unit small enough to build in parallel.
TYPES_PER_SOURCE = 40


class GenError(Exception):
    pass


def package_of(schema_name):
    pkg, _, short = schema_name.rpartition(".")
    for rx, group in PACKAGE_RULES:
        m = rx.match(pkg)
        if m:
            if group is None:
                return (m.group(1), m.group(2)), short
            return (group, m.group(1)), short
    return None, short


def member_name(json_name):
    name = json_name.lstrip("$").replace("-", "_")
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise GenError("cannot map JSON field %r to a C++ identifier" % json_name)
    if name in CPP_KEYWORDS or name in PREDEFINED_MACROS:
        name += "_"
    return name


def cpp_string(s):
    out = []
    for ch in s:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            raise GenError("unexpected character in %r" % s)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def ref_name(prop):
    """The schema name a property refers to, or None."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[1]
    all_of = prop.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0]:
        return all_of[0]["$ref"].rsplit("/", 1)[1]
    return None


class TypeRef:
    """The C++ type of a value: a scalar, a struct, a builtin, or a container of one."""

    def __init__(self, kind, cpp, struct=None, elem=None, bytes_=False):
        self.kind = kind      # 'scalar' | 'struct' | 'builtin' | 'vector' | 'map'
        self.cpp = cpp        # C++ spelling, relative to the owning namespace
        self.struct = struct  # schema name for 'struct'
        self.elem = elem      # TypeRef for containers
        self.bytes = bytes_   # Go []byte (base64 on the wire)

    def structs(self):
        if self.kind == "struct":
            return [self.struct]
        if self.elem is not None:
            return self.elem.structs()
        return []


class Field:
    def __init__(self, json_name, member, type_, presence):
        self.json = json_name
        self.member = member
        self.type = type_
        # 'always'   plain member, always encoded (required, or a Go struct value)
        # 'optional' std::optional (or Box when recursive), encoded when set
        # 'omitempty' plain member, encoded unless empty / zero
        self.presence = presence
        self.boxed = False


class Struct:
    def __init__(self, schema_name, gv, short, schema):
        self.name = schema_name
        self.gv = gv
        self.short = short
        self.schema = schema
        self.fields = []
        gvks = schema.get("x-kubernetes-group-version-kind") or []
        self.gvk = gvks[0] if len(gvks) == 1 else None
        self.resource = None  # dict(plural, namespaced, subresources) from the paths


class Model:
    def __init__(self, docs):
        self.schemas = {}
        self.paths = []
        for doc in docs:
            for name, schema in doc.get("components", {}).get("schemas", {}).items():
                if name in self.schemas and self.schemas[name] != schema:
                    raise GenError("schema %s differs between documents" % name)
                self.schemas[name] = schema
            for path, item in doc.get("paths", {}).items():
                self.paths.append((path, item))
        self.structs = {}
        for name in sorted(self.schemas):
            if name in BUILTIN_TYPES:
                continue
            gv, short = package_of(name)
            if gv is None:
                raise GenError("no C++ namespace for schema %s" % name)
            schema = self.schemas[name]
            if schema.get("type", "object") != "object":
                raise GenError("schema %s is not an object and has no builtin mapping" % name)
            self.structs[name] = Struct(name, gv, short, schema)
        for s in self.structs.values():
            self._fields(s)
        self._box_recursive()
        self._resources()

    # ---- types ----

    def cpp_struct(self, name, from_gv):
        s = self.structs[name]
        if s.gv == from_gv:
            return s.short
        return "::kube::api::%s::%s::%s" % (s.gv[0], s.gv[1], s.short)

    def value_type(self, prop, from_gv, where):
        ref = ref_name(prop)
        if ref is not None:
            if ref in BUILTIN_TYPES:
                return TypeRef("builtin", BUILTIN_TYPES[ref])
            if ref not in self.structs:
                raise GenError("%s: unknown $ref %s" % (where, ref))
            return TypeRef("struct", self.cpp_struct(ref, from_gv), struct=ref)
        if prop.get("x-kubernetes-int-or-string"):
            return TypeRef("builtin", "::kube::api::IntOrString")
        if prop.get("x-kubernetes-preserve-unknown-fields"):
            return TypeRef("builtin", "::kube::api::RawJson")
        t = prop.get("type")
        fmt = prop.get("format")
        if t == "string":
            if fmt == "byte":
                return TypeRef("scalar", "std::string", bytes_=True)
            if fmt == "date-time":
                return TypeRef("builtin", "::kube::api::Time")
            return TypeRef("scalar", "std::string")
        if t == "integer":
            return TypeRef("scalar", "int32_t" if fmt == "int32" else "int64_t")
        if t == "number":
            return TypeRef("scalar", "double")
        if t == "boolean":
            return TypeRef("scalar", "bool")
        if t == "array":
            elem = self.value_type(prop["items"], from_gv, where + "[]")
            if elem.bytes:
                raise GenError("%s: lists of []byte are not supported" % where)
            return TypeRef("vector", "std::vector<%s>" % elem.cpp, elem=elem)
        if t == "object":
            if "additionalProperties" in prop and isinstance(prop["additionalProperties"], dict):
                elem = self.value_type(prop["additionalProperties"], from_gv, where + "{}")
                return TypeRef("map", "std::map<std::string, %s>" % elem.cpp, elem=elem,
                               bytes_=elem.bytes)
            return TypeRef("builtin", "::kube::api::RawJson")
        if t is None and not prop:
            return TypeRef("builtin", "::kube::api::RawJson")
        raise GenError("%s: unsupported schema %s" % (where, json.dumps(prop, sort_keys=True)))

    def _fields(self, s):
        props = s.schema.get("properties", {})
        required = set(s.schema.get("required", []))
        value_fields = VALUE_FIELDS.get(s.name, set())
        names = sorted(props)
        first = [n for n in ("apiVersion", "kind", "metadata") if n in props]
        order = first + [n for n in names if n not in first]
        members = set()
        for json_name in order:
            prop = props[json_name]
            where = "%s.%s" % (s.name, json_name)
            t = self.value_type(prop, s.gv, where)
            if json_name in TYPE_META_FIELDS and t.cpp == "std::string":
                presence = "omitempty"
            elif json_name in value_fields:
                presence = "omitempty"
            elif t.kind in ("vector", "map"):
                presence = "always" if json_name in required else "omitempty"
            elif json_name in required:
                presence = "always"
            elif t.kind == "struct" and prop.get("default") == {}:
                presence = "always"  # a Go struct value: encoded even when empty, as Go does
            else:
                presence = "optional"
            member = member_name(json_name)
            field = Field(json_name, member, t, presence)
            # An optional struct is held on the heap (Go's pointer fields): 8 bytes when absent,
            # and far cheaper to compile than std::optional<T> of a large T.
            field.boxed = presence == "optional" and t.kind == "struct"
            if member in members:
                raise GenError("%s: two fields map to the C++ member %s" % (where, member))
            members.add(member)
            s.fields.append(field)

    def _box_recursive(self):
        # A struct that contains itself by value (directly or through others) needs a heap
        # indirection on the edge that closes the cycle: optional -> Box.
        def by_value(s):
            for f in s.fields:
                if f.type.kind == "struct" and not f.boxed:
                    yield f, f.type.struct
        changed = True
        while changed:
            changed = False
            for name in sorted(self.structs):
                state = {}
                stack = []

                def visit(n):
                    nonlocal changed
                    state[n] = 1
                    stack.append(n)
                    for f, target in by_value(self.structs[n]):
                        if state.get(target) == 1:
                            if f.presence == "always":
                                f.presence = "optional"
                            f.boxed = True
                            changed = True
                            return True
                        if target not in state and visit(target):
                            return True
                    stack.pop()
                    state[n] = 2
                    return False

                if visit(name):
                    break

    def _resources(self):
        # REST coordinates from the paths: .../<plural>/{name} with a get of the kind.
        rx = re.compile(r"^/(?:api|apis/[^/]+)/[^/]+/(namespaces/\{namespace\}/)?([a-z0-9]+)/\{name\}(?:/([a-z]+))?$")
        by_gvk = {}
        for s in self.structs.values():
            if s.gvk:
                by_gvk[(s.gvk["group"], s.gvk["version"], s.gvk["kind"])] = s
        found = {}
        listable = set()
        collection = re.compile(r"^/(?:api|apis/[^/]+)/[^/]+/(?:namespaces/\{namespace\}/)?([a-z0-9]+)$")
        for path, item in self.paths:
            m = collection.match(path)
            if not m:
                continue
            for op in item.values():
                if isinstance(op, dict) and op.get("x-kubernetes-action") == "list":
                    gvk = op.get("x-kubernetes-group-version-kind")
                    if gvk:
                        listable.add((gvk["group"], gvk["version"], gvk["kind"], m.group(1)))
        for path, item in sorted(self.paths, key=lambda p: p[0]):
            m = rx.match(path)
            if not m:
                continue
            namespaced, plural, sub = m.group(1) is not None, m.group(2), m.group(3)
            if "watch" in path.split("/"):
                continue
            for op in item.values():
                if not isinstance(op, dict):
                    continue
                gvk = op.get("x-kubernetes-group-version-kind")
                if not gvk or op.get("x-kubernetes-action") not in ("get", "put"):
                    continue
                key = (gvk["group"], gvk["version"], gvk["kind"])
                if sub is None:
                    if key in by_gvk:
                        r = found.setdefault(key, {"plural": plural, "namespaced": namespaced,
                                                   "subresources": set()})
                        r["namespaced"] = r["namespaced"] or namespaced
                elif key in by_gvk or sub == "scale":
                    found.setdefault(("sub",) + (plural, sub), True)
        for key, r in found.items():
            if key[0] == "sub":
                continue
            for other in found:
                if other[0] == "sub" and other[1] == r["plural"]:
                    r["subresources"].add(other[2])
            r["listable"] = key + (r["plural"],) in listable
            by_gvk[key].resource = r

    # ---- groups ----

    def groups(self):
        out = {}
        for s in self.structs.values():
            out.setdefault(s.gv, []).append(s)
        return out

    def group_deps(self, gv, structs):
        deps = set()
        for s in structs:
            for f in s.fields:
                for target in f.type.structs():
                    tgv = self.structs[target].gv
                    if tgv != gv:
                        deps.add(tgv)
        return sorted(deps)


def ordered(model, structs):
    """Structs in an order where every by-value member type is declared first."""
    names = {s.name for s in structs}
    done = set()
    out = []

    def visit(s, path):
        if s.name in done:
            return
        path.add(s.name)
        for f in s.fields:
            for target in f.type.structs():
                if target in names and target not in done and target not in path:
                    visit(model.structs[target], path)
        path.discard(s.name)
        done.add(s.name)
        out.append(s)

    for s in sorted(structs, key=lambda x: x.short):
        visit(s, set())
    return out


def header_path(gv):
    return "kube/api/%s/%s.hpp" % gv


def lib_name(gv):
    return "api_%s_%s" % gv


def member_type(f):
    cpp = f.type.cpp
    if f.presence == "optional":
        return ("::kube::api::Box<%s>" if f.boxed else "std::optional<%s>") % cpp
    return cpp


def api_version(gvk):
    return gvk["version"] if gvk["group"] == "" else "%s/%s" % (gvk["group"], gvk["version"])


def gen_header(model, gv, structs):
    deps = model.group_deps(gv, structs)
    lines = [
        "// Generated by tools/apigen/apigen.py from api/openapi/v1.32. Do not edit.",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <map>",
        "#include <optional>",
        "#include <string>",
        "#include <string_view>",
        "#include <vector>",
        "",
        "#include <kube/api/types.hpp>",
    ]
    for d in deps:
        lines.append("#include <%s>" % header_path(d))
    lines += ["", "/// The %s/%s API types (one struct per OpenAPI schema)." % gv,
              "namespace kube::api::%s::%s {" % gv, ""]
    order = ordered(model, structs)
    lists = {s.short for s in order}
    # Forward declarations let a kind name its list type before the list is declared.
    for name in sorted(lists):
        lines.append("struct %s;" % name)
    lines += ["", "// Heap copy and deletion of boxed values, compiled once in this library (kube::api::Box)."]
    for name in sorted(lists):
        lines.append("%s* BoxClone(const %s& v);" % (name, name))
        lines.append("void BoxDestroy(%s* p) noexcept;" % name)
    lines.append("")
    for s in order:
        lines += gen_struct(s, lists)
    for s in order:
        lines.append("bool Decode(::kube::api::Decoder& d, %s& out);" % s.short)
        lines.append("void Encode(::kube::api::Encoder& e, const %s& v);" % s.short)
    lines += ["", "}  // namespace kube::api::%s::%s" % gv, ""]
    return "\n".join(lines)


def gen_struct(s, lists):
    lines = []
    if s.gvk:
        lines.append("/// %s %s." % (api_version(s.gvk), s.gvk["kind"]))
    else:
        lines.append("/// %s (%s/%s)." % (s.short, s.gv[0], s.gv[1]))
    lines.append("struct %s {" % s.short)
    lines.append("  /// The schema's name in the OpenAPI document (the CRD schema of an embedded value).")
    lines.append("  static constexpr std::string_view kOpenApiName = %s;" % cpp_string(s.name))
    if s.gvk:
        g = s.gvk
        lines.append("  static constexpr std::string_view kGroup = %s;" % cpp_string(g["group"]))
        lines.append("  static constexpr std::string_view kVersion = %s;" % cpp_string(g["version"]))
        lines.append("  static constexpr std::string_view kKind = %s;" % cpp_string(g["kind"]))
        lines.append("  static constexpr std::string_view kApiVersion = %s;" % cpp_string(api_version(g)))
        if s.resource:
            r = s.resource
            lines.append("  static constexpr std::string_view kResource = %s;" % cpp_string(r["plural"]))
            lines.append("  static constexpr bool kNamespaced = %s;" % ("true" if r["namespaced"] else "false"))
            lines.append("  static constexpr bool kHasStatus = %s;" % ("true" if "status" in r["subresources"] else "false"))
            lines.append("  static constexpr bool kHasScale = %s;" % ("true" if "scale" in r["subresources"] else "false"))
            if s.short + "List" in lists:
                lines.append("  using List = %sList;" % s.short)
        lines.append("")
    for f in s.fields:
        init = "{}"
        if s.gvk and f.json == "apiVersion" and f.type.cpp == "std::string":
            init = " = %s" % cpp_string(api_version(s.gvk))
        elif s.gvk and f.json == "kind" and f.type.cpp == "std::string":
            init = " = %s" % cpp_string(s.gvk["kind"])
        note = ""
        if f.member != f.json:
            note = "  // \"%s\"" % f.json
        elif f.type.bytes:
            note = "  // bytes (base64 on the wire)"
        lines.append("  %s %s%s;%s" % (member_type(f), f.member, init, note))
    lines.append("  /// Members of the JSON object that this type does not declare, kept for the round trip.")
    lines.append("  ::kube::api::UnknownFields unknown_fields{};")
    lines.append("")
    lines.append("  /// Member-wise equality (equality.Semantic, see kube/api/equality.hpp).")
    lines.append("  bool operator==(const %s&) const;" % s.short)
    lines.append("};")
    lines.append("")
    return lines


def zero_test(f, expr):
    t = f.type
    if t.kind in ("vector", "map") or t.cpp == "std::string":
        return "!%s.empty()" % expr
    if t.cpp == "bool":
        return expr
    if t.cpp in ("int32_t", "int64_t", "double"):
        return "%s != 0" % expr
    raise GenError("field %s: omitempty is not supported for %s" % (f.json, t.cpp))


def gen_special(s):
    """The members kept out of the header so that a user's translation unit does not compile
    them again: equality, and the heap copy and deletion a Box of the type uses."""
    n = s.short
    return ["bool %s::operator==(const %s&) const = default;" % (n, n),
            "%s* BoxClone(const %s& v) { return new %s(v); }" % (n, n, n),
            "void BoxDestroy(%s* p) noexcept { delete p; }" % n,
            ""]


def gen_decode(s):
    lines = ["bool Decode(Decoder& d, %s& out) {" % s.short,
             "  if (d.ConsumeNull()) return true;",
             "  if (!d.BeginObject()) return false;",
             "  std::string_view key;",
             "  while (d.NextKey(key)) {"]
    by_len = {}
    for f in s.fields:
        by_len.setdefault(len(f.json.encode()), []).append(f)
    if by_len:
        lines.append("    switch (key.size()) {")
        for n in sorted(by_len):
            lines.append("      case %d:" % n)
            for f in by_len[n]:
                fn = "DecodeBytes" if f.type.bytes else "Decode"
                lines.append("        if (key == %s) {" % cpp_string(f.json))
                lines.append("          if (!%s(d, out.%s)) return d.InField(%s);" % (fn, f.member, cpp_string(f.json)))
                lines.append("          continue;")
                lines.append("        }")
            lines.append("        break;")
        lines.append("      default:")
        lines.append("        break;")
        lines.append("    }")
    lines += ["    if (!d.KeepUnknown(out.unknown_fields)) return false;",
              "  }",
              "  return !d.failed();",
              "}",
              ""]
    return lines


def gen_encode(s):
    lines = ["void Encode(Encoder& e, const %s& v) {" % s.short, "  e.BeginObject();"]
    for f in s.fields:
        fn = "EncodeBytes" if f.type.bytes else "Encode"
        key = cpp_string('"%s":' % f.json)
        expr = "v.%s" % f.member
        if f.presence == "always":
            lines.append("  e.Key(%s);" % key)
            lines.append("  %s(e, %s);" % (fn, expr))
            continue
        if f.presence == "optional":
            cond = expr
            value = ("*%s" % expr) if not f.type.bytes else expr
        else:
            cond = zero_test(f, expr)
            value = expr
        lines.append("  if (%s) {" % cond)
        lines.append("    e.Key(%s);" % key)
        lines.append("    %s(e, %s);" % (fn, value))
        lines.append("  }")
    lines += ["  e.Unknown(v.unknown_fields);", "  e.EndObject();", "}", ""]
    return lines


def gen_sources(model, gv, structs):
    order = sorted(structs, key=lambda x: x.short)
    chunks = [order[i:i + TYPES_PER_SOURCE] for i in range(0, len(order), TYPES_PER_SOURCE)]
    out = []
    for i, chunk in enumerate(chunks):
        lines = [
            "// Generated by tools/apigen/apigen.py from api/openapi/v1.32. Do not edit.",
            "#include <%s>" % header_path(gv),
            "",
            "#include <kube/api/codec.hpp>",
            "",
            "namespace kube::api::%s::%s {" % gv,
            "",
            "using ::kube::api::Decode;",
            "using ::kube::api::DecodeBytes;",
            "using ::kube::api::Decoder;",
            "using ::kube::api::Encode;",
            "using ::kube::api::EncodeBytes;",
            "using ::kube::api::Encoder;",
            "",
        ]
        for s in chunk:
            lines += gen_special(s)
            lines += gen_decode(s)
            lines += gen_encode(s)
        lines += ["}  // namespace kube::api::%s::%s" % gv, ""]
        out.append(("%s_%s_%d.cpp" % (gv[0], gv[1], i), "\n".join(lines)))
    return out


def pascal(name):
    return name[:1].upper() + name[1:]


def informer_method(s):
    """client-go's accessor name: the kind, pluralized as the resource is (Deployments,
    Endpoints, Ingresses, NetworkPolicies)."""
    kind, plural = s.gvk["kind"], s.resource["plural"]
    p = 0
    while p < min(len(kind), len(plural)) and kind[p].lower() == plural[p]:
        p += 1
    return kind[:p] + plural[p:]


def informer_kinds(structs):
    return sorted((s for s in structs if s.gvk and s.resource and s.resource["listable"]
                   and s.short + "List" in {x.short for x in structs}), key=lambda x: x.short)


def informer_header_path(gv):
    return "kube/informers/%s/%s.hpp" % gv


def gen_informer_header(gv, structs):
    cls = "%s%s" % (pascal(gv[0]), pascal(gv[1]))
    lines = [
        "// Generated by tools/apigen/apigen.py from api/openapi/v1.32. Do not edit.",
        "#pragma once",
        "",
        "#include <%s>" % header_path(gv),
        "#include <kube/cache/typed_informer.hpp>",
        "",
        "namespace kube::informers {",
        "",
        "/// The typed informers of %s/%s: `factory.%s().%s().<Kind>s()`." % (gv[0], gv[1], pascal(gv[0]), pascal(gv[1])),
        "template <class Factory>",
        "class %s final {" % cls,
        " public:",
        "  explicit %s(Factory& factory) : factory_(factory) {}" % cls,
    ]
    for s in informer_kinds(structs):
        lines.append("  /// The shared informer of %s." % s.gvk["kind"])
        lines.append("  ::kube::cache::TypedInformer<::kube::api::%s::%s::%s> %s() const {" %
                     (gv[0], gv[1], s.short, informer_method(s)))
        lines.append("    return factory_.template For<::kube::api::%s::%s::%s>();" % (gv[0], gv[1], s.short))
        lines.append("  }")
    lines += ["", " private:", "  Factory& factory_;", "};", "", "}  // namespace kube::informers", ""]
    return "\n".join(lines)


def gen_informer_groups(groups):
    """The group accessors of the informer factory (a CRTP base): `Apps()`, `Core()`, ..."""
    by_group = {}
    for gv in sorted(groups):
        by_group.setdefault(gv[0], []).append(gv[1])
    lines = [
        "// Generated by tools/apigen/apigen.py from api/openapi/v1.32. Do not edit.",
        "#pragma once",
        "",
        "/// The group and version accessors of kube::cache::SharedInformerFactory",
        "/// (`factory.Apps().V1().Deployments()`). A version's class is defined in its own header,",
        "/// `<kube/informers/<group>/<version>.hpp>`: include the ones you use.",
        "namespace kube::informers {",
        "",
    ]
    for g, versions in sorted(by_group.items()):
        for v in versions:
            lines.append("template <class Factory>")
            lines.append("class %s%s;" % (pascal(g), pascal(v)))
    lines.append("")
    for g, versions in sorted(by_group.items()):
        lines.append("/// The %s group's versions." % g)
        lines.append("template <class Factory>")
        lines.append("class %sGroup final {" % pascal(g))
        lines.append(" public:")
        lines.append("  explicit %sGroup(Factory& factory) : factory_(factory) {}" % pascal(g))
        for v in versions:
            lines.append("  /// Needs `<kube/informers/%s/%s.hpp>`." % (g, v))
            lines.append("  template <class F = Factory>")
            lines.append("  %s%s<F> %s() const {" % (pascal(g), pascal(v), pascal(v)))
            lines.append("    return %s%s<F>(factory_);" % (pascal(g), pascal(v)))
            lines.append("  }")
        lines += ["", " private:", "  Factory& factory_;", "};", ""]
    lines.append("/// The groups, as a base of the factory (`Self` is the factory type).")
    lines.append("template <class Self>")
    lines.append("class Groups {")
    lines.append(" public:")
    for g in sorted(by_group):
        lines.append("  template <class F = Self>")
        lines.append("  %sGroup<F> %s() {" % (pascal(g), pascal(g)))
        lines.append("    return %sGroup<F>(static_cast<F&>(*this));" % pascal(g))
        lines.append("  }")
    lines += ["};", "", "}  // namespace kube::informers", ""]
    return "\n".join(lines)


def load(paths):
    docs = []
    for p in sorted(paths):
        with open(p, encoding="utf-8") as f:
            docs.append(schemas.restore_description_properties(json.load(f)))
    return Model(docs)


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def outputs(model):
    """{gv: (header text, [(source name, text)], deps, informer header text or None)}."""
    result = {}
    for gv, structs in sorted(model.groups().items()):
        informers = gen_informer_header(gv, structs) if informer_kinds(structs) else None
        result[gv] = (gen_header(model, gv, structs), gen_sources(model, gv, structs),
                      model.group_deps(gv, structs), informers)
    return result


def informer_groups(result):
    return sorted(gv for gv, r in result.items() if r[3] is not None)


def check_acyclic(result):
    state = {}

    def visit(gv):
        state[gv] = 1
        for d in result[gv][2]:
            if state.get(d) == 1:
                raise GenError("group-versions depend on each other: %s/%s and %s/%s" % (gv + d))
            if d not in state:
                visit(d)
        state[gv] = 2

    for gv in sorted(result):
        if gv not in state:
            visit(gv)


def manifest(result, schema_sources):
    lines = ["# Generated by tools/apigen/apigen.py --manifest. Do not edit.",
             "set(KUBE_API_GROUPS %s)" % " ".join(lib_name(gv) for gv in sorted(result))]
    lines += schemas.manifest_lines(schema_sources)
    lines.append("set(KUBE_API_INFORMER_HEADERS kube/informers/groups.hpp %s)" %
                 " ".join(informer_header_path(gv) for gv in informer_groups(result)))
    for gv in sorted(result):
        header, sources, deps, _ = result[gv]
        lib = lib_name(gv)
        lines.append("set(KUBE_API_%s_HEADER %s)" % (lib, header_path(gv)))
        lines.append("set(KUBE_API_%s_SOURCES %s)" % (lib, " ".join(n for n, _ in sources)))
        lines.append("set(KUBE_API_%s_DEPS %s)" % (lib, " ".join(lib_name(d) for d in deps)))
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="directory for include/ and src/")
    ap.add_argument("--manifest", help="write the CMake manifest to this file")
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args(argv)
    try:
        model = load(args.specs)
        result = outputs(model)
        check_acyclic(result)
        schema_sources = schemas.outputs(model.schemas, BUILTIN_TYPES)
    except (GenError, schemas.SchemaError) as e:
        print("apigen: %s" % e, file=sys.stderr)
        return 1
    if args.manifest:
        write_if_changed(args.manifest, manifest(result, schema_sources))
    if args.out:
        for gv, (header, sources, _, informers) in result.items():
            write_if_changed(os.path.join(args.out, "include", header_path(gv)), header)
            for name, text in sources:
                write_if_changed(os.path.join(args.out, "src", name), text)
            if informers is not None:
                write_if_changed(os.path.join(args.out, "include", informer_header_path(gv)), informers)
        write_if_changed(os.path.join(args.out, "include", "kube/informers/groups.hpp"),
                         gen_informer_groups(informer_groups(result)))
        for name, text in schema_sources:
            write_if_changed(os.path.join(args.out, "src", name), text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
