#!/usr/bin/env python3
"""Tests of tools/apigen/apigen.py: golden output for a small spec, and the mapping rules.

  apigen_test.py                 run the tests
  apigen_test.py --update        rewrite the golden files from the current generator
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apigen  # noqa: E402
import schemas  # noqa: E402

MINI = os.path.join(HERE, "testdata", "mini.json")
GOLDEN = os.path.join(HERE, "testdata", "golden")


def generate(out):
    rc = apigen.main(["--out", out, "--manifest", os.path.join(out, "manifest.cmake"), MINI])
    if rc != 0:
        raise AssertionError("apigen failed")


def tree(root):
    files = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, encoding="utf-8") as f:
                files[os.path.relpath(p, root)] = f.read()
    return files


class Golden(unittest.TestCase):
    def test_output_matches_golden_files(self):
        with tempfile.TemporaryDirectory() as out:
            generate(out)
            got = tree(out)
        want = tree(GOLDEN)
        self.assertEqual(sorted(got), sorted(want))
        for name in sorted(want):
            self.assertEqual(got[name], want[name], "%s differs from the golden file "
                             "(run tools/apigen/apigen_test.py --update and review the diff)" % name)

    def test_output_is_deterministic(self):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            generate(a)
            generate(b)
            self.assertEqual(tree(a), tree(b))


class Rules(unittest.TestCase):
    def setUp(self):
        self.model = apigen.load([MINI])

    def field(self, struct, name):
        for f in self.model.structs[struct].fields:
            if f.json == name:
                return f
        raise KeyError(name)

    def test_required_scalar_is_plain_and_always_encoded(self):
        f = self.field("io.k8s.api.example.v1.WidgetSpec", "size")
        self.assertEqual((apigen.member_type(f), f.presence), ("int32_t", "always"))

    def test_optional_scalar_is_std_optional(self):
        f = self.field("io.k8s.api.example.v1.WidgetSpec", "ratio")
        self.assertEqual(apigen.member_type(f), "std::optional<double>")

    def test_go_struct_value_is_plain_but_pointer_is_boxed(self):
        spec = self.field("io.k8s.api.example.v1.Widget", "spec")
        status = self.field("io.k8s.api.example.v1.Widget", "status")
        self.assertEqual(apigen.member_type(spec), "WidgetSpec")
        self.assertEqual(apigen.member_type(status), "::kube::api::Box<WidgetStatus>")

    def test_self_reference_is_boxed(self):
        f = self.field("io.k8s.api.example.v1.Node", "next")
        self.assertEqual(apigen.member_type(f), "::kube::api::Box<Node>")

    def test_keywords_get_an_underscore(self):
        f = self.field("io.k8s.api.example.v1.WidgetSpec", "template")
        self.assertEqual(f.member, "template_")

    def test_names_gnu_dialects_predefine_as_macros_get_an_underscore(self):
        self.assertEqual(apigen.member_name("linux"), "linux_")
        self.assertEqual(apigen.member_name("unix"), "unix_")
        self.assertEqual(apigen.member_name("linuxOptions"), "linuxOptions")

    def test_builtins_and_bytes(self):
        self.assertEqual(apigen.member_type(self.field("io.k8s.api.example.v1.WidgetSpec", "limits")),
                         "std::map<std::string, ::kube::api::Quantity>")
        self.assertEqual(apigen.member_type(self.field("io.k8s.api.example.v1.WidgetSpec", "port")),
                         "std::optional<::kube::api::IntOrString>")
        secret = self.field("io.k8s.api.example.v1.WidgetSpec", "secret")
        self.assertTrue(secret.type.bytes)

    def test_resource_coordinates_come_from_the_paths(self):
        r = self.model.structs["io.k8s.api.example.v1.Widget"].resource
        self.assertEqual(r["plural"], "widgets")
        self.assertTrue(r["namespaced"])
        self.assertEqual(r["subresources"], {"status"})

    def test_listable_kinds_get_informer_accessors_named_as_client_go(self):
        widget = self.model.structs["io.k8s.api.example.v1.Widget"]
        self.assertTrue(widget.resource["listable"])
        self.assertEqual(apigen.informer_method(widget), "Widgets")
        header = apigen.gen_informer_header(("example", "v1"), self.model.groups()[("example", "v1")])
        self.assertIn("TypedInformer<::kube::api::example::v1::Widget> Widgets() const", header)

    def test_type_meta_and_metadata_come_first(self):
        names = [f.json for f in self.model.structs["io.k8s.api.example.v1.Widget"].fields]
        self.assertEqual(names, ["apiVersion", "kind", "metadata", "spec", "status"])

    def test_unknown_schema_shape_is_an_error(self):
        with self.assertRaises(apigen.GenError):
            apigen.Model([{"components": {"schemas": {
                "io.k8s.api.x.v1.A": {"type": "object", "properties": {"b": {"type": "weird"}}}}}}])

    def test_unknown_package_is_an_error(self):
        with self.assertRaises(apigen.GenError):
            apigen.Model([{"components": {"schemas": {"com.example.A": {"type": "object"}}}}])


class SchemaTable(unittest.TestCase):
    """tools/apigen/schemas.py: the schemas reduced to their structural part."""

    def reduce(self, schema):
        return schemas.reduce_schema(schema, "T")

    def test_references_become_a_bare_ref_without_struct_defaults(self):
        got = self.reduce({"type": "object", "properties": {
            "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.x.v1.Spec"}], "default": {}},
            "items": {"type": "array", "items": {"$ref": "#/components/schemas/io.k8s.api.x.v1.Item"}}}})
        self.assertEqual(got["properties"]["spec"], {"$ref": "io.k8s.api.x.v1.Spec"})
        self.assertEqual(got["properties"]["items"]["items"], {"$ref": "io.k8s.api.x.v1.Item"})

    def test_zero_default_of_a_required_property_is_dropped_and_optional_default_kept(self):
        got = self.reduce({"type": "object", "required": ["containerPort"], "properties": {
            "containerPort": {"type": "integer", "format": "int32", "default": 0},
            "protocol": {"type": "string", "default": "TCP", "enum": ["TCP", "UDP"]},
            "args": {"type": "array", "items": {"type": "string", "default": ""}}}})
        props = got["properties"]
        self.assertEqual(props["containerPort"], {"type": "integer", "format": "int32"})
        self.assertEqual(props["protocol"], {"type": "string", "default": "TCP", "enum": ["TCP", "UDP"]})
        self.assertEqual(props["args"]["items"], {"type": "string"})
        self.assertEqual(got["required"], ["containerPort"])

    def test_list_and_map_extensions_are_kept_and_patch_strategies_dropped(self):
        got = self.reduce({"type": "array", "items": {"type": "string"},
                           "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"],
                           "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "a"})
        self.assertEqual(got, {"type": "array", "items": {"type": "string"},
                               "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"]})

    def test_list_type_of_a_byte_string_is_dropped(self):
        self.assertEqual(self.reduce({"type": "string", "format": "byte", "x-kubernetes-list-type": "atomic"}),
                         {"type": "string", "format": "byte"})

    def test_map_type_beside_a_ref_is_kept_but_list_type_there_dropped(self):
        ref = {"$ref": "#/components/schemas/io.k8s.api.x.v1.R"}
        self.assertEqual(self.reduce({"allOf": [ref], "x-kubernetes-map-type": "granular"}),
                         {"$ref": "io.k8s.api.x.v1.R", "x-kubernetes-map-type": "granular"})
        self.assertEqual(self.reduce({"allOf": [ref], "x-kubernetes-list-type": "atomic"}),
                         {"$ref": "io.k8s.api.x.v1.R"})

    def test_unknown_keyword_is_an_error(self):
        with self.assertRaises(schemas.SchemaError):
            self.reduce({"type": "string", "maxLength": 3})
        with self.assertRaises(schemas.SchemaError):
            self.reduce({"allOf": [{"$ref": "#/components/schemas/A"}], "nullable": True})

    def test_table_holds_the_structs_of_the_spec_but_not_the_builtins(self):
        model = apigen.load([MINI])
        (name, text), = schemas.outputs(model.schemas, apigen.BUILTIN_TYPES)
        self.assertEqual(name, "openapi_schemas.cpp")
        self.assertIn('{"io.k8s.api.example.v1.WidgetSpec"sv, ', text)
        self.assertNotIn('"io.k8s.apimachinery.pkg.apis.meta.v1.Time"sv', text)
        self.assertNotIn("#/components/schemas/", text)
        # Sorted, so that the lookup's binary search finds every entry.
        names = [line.split('"sv')[0].lstrip(' {"') for line in text.splitlines() if line.startswith("    {")]
        self.assertEqual(names, sorted(names))
        self.assertEqual(len(names), len(model.schemas) - sum(n in apigen.BUILTIN_TYPES for n in model.schemas))


class DescriptionProperties(unittest.TestCase):
    SPEC = os.path.join(HERE, "..", "..", "api", "openapi", "v1.32", "apis__apiextensions.k8s.io__v1.json")

    def test_the_four_description_properties_are_restored(self):
        model = apigen.load([self.SPEC])
        for name in schemas.DESCRIPTION_PROPERTIES[1:]:  # the apiextensions ones
            fields = {f.json: f for f in model.structs[name].fields}
            self.assertIn("description", fields, name)
            self.assertEqual(apigen.member_type(fields["description"]), "std::optional<std::string>")

    def test_restoring_keeps_a_present_property_and_the_sorted_order(self):
        doc = {"components": {"schemas": {
            "io.k8s.api.scheduling.v1.PriorityClass": {"properties": {"apiVersion": {}, "value": {}}},
            "io.k8s.api.example.v1.Other": {"properties": {"a": {}}},
            schemas.DESCRIPTION_PROPERTIES[3]: {"properties": {"description": {"type": "string", "x": 1}}}}}}
        schemas.restore_description_properties(doc)
        got = doc["components"]["schemas"]
        self.assertEqual(list(got["io.k8s.api.scheduling.v1.PriorityClass"]["properties"]),
                         ["apiVersion", "description", "value"])
        self.assertEqual(got["io.k8s.api.example.v1.Other"]["properties"], {"a": {}})
        self.assertEqual(got[schemas.DESCRIPTION_PROPERTIES[3]]["properties"]["description"]["x"], 1)


if __name__ == "__main__":
    if "--update" in sys.argv:
        import shutil
        shutil.rmtree(GOLDEN, ignore_errors=True)
        generate(GOLDEN)
        print("golden files rewritten under", GOLDEN)
        sys.exit(0)
    unittest.main()
