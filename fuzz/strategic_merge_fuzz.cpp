// Fuzzes strategic merge patch (kube/core/strategic_merge.hpp).
// Input: a JSON document, then a NUL or newline, then a JSON patch document. Inputs that do not
// parse are ignored. Each pair is applied without a schema and with a pod-like schema (merge keys,
// primitive set-merge, retainKeys, replace). Checked properties (abort on violation):
//  - the inputs are never modified; failures are 400, 422 or 500 only;
//  - a result is an object and holds no directive key ($patch, $retainKeys, $setElementOrder/...,
//    $deleteFromPrimitiveList/...) at any depth;
//  - without a schema, a patch with no arrays and no `$` keys means exactly a JSON Merge Patch
//    (for documents without directive keys, which the result never keeps).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/json_pointer.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/strategic_merge.hpp>
#include <kube/core/type_schema.hpp>

namespace {

namespace json = boost::json;

void Check(bool ok) {
  if (!ok) std::abort();
}

bool Parse(std::string_view text, json::value& out) {
  boost::system::error_code ec;
  json::parse_options opts;
  opts.max_depth = 200;
  out = json::parse(text, ec, {}, opts);
  return !ec;
}

const kube::TypeSchema* Schema() {
  static const kube::TypeSchemaPtr schema = [] {
    auto s = kube::ParseTypeSchema(R"({"type":"object","properties":{
      "metadata":{"type":"object","properties":{
        "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-patch-strategy":"merge"},
        "ownerReferences":{"type":"array","items":{"type":"object"},"x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"uid"}}},
      "spec":{"type":"object","properties":{
        "containers":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name",
          "items":{"type":"object","properties":{
            "env":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name","items":{"type":"object"}},
            "ports":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"containerPort","items":{"type":"object"}}}}},
        "volumes":{"type":"array","x-kubernetes-patch-strategy":"merge,retainKeys","x-kubernetes-patch-merge-key":"name","items":{"type":"object"}},
        "strategy":{"type":"object","x-kubernetes-patch-strategy":"retainKeys"},
        "selector":{"type":"object","x-kubernetes-patch-strategy":"replace"}}}}})");
    if (!s.ok()) std::abort();
    return *s;
  }();
  return schema.get();
}

bool HasDirectiveKey(const json::value& v) {
  if (v.is_object()) {
    for (const auto& m : v.get_object()) {
      const std::string_view k = m.key();
      if (k == "$patch" || k == "$retainKeys" || k.substr(0, 16) == "$setElementOrder" ||
          k.substr(0, 24) == "$deleteFromPrimitiveList") {
        return true;
      }
      if (HasDirectiveKey(m.value())) return true;
    }
  } else if (v.is_array()) {
    for (const auto& e : v.get_array()) {
      if (HasDirectiveKey(e)) return true;
    }
  }
  return false;
}

// No arrays and no `$`-prefixed keys anywhere: the patch means the same as a JSON Merge Patch.
bool IsPlainMergePatch(const json::value& v) {
  if (v.is_array()) return false;
  if (!v.is_object()) return true;
  for (const auto& m : v.get_object()) {
    if (!m.key().empty() && m.key().front() == '$') return false;
    if (!IsPlainMergePatch(m.value())) return false;
  }
  return true;
}

void CheckOne(const json::value& doc, const json::value& patch, const kube::TypeSchema* schema) {
  const json::value doc_before = doc;
  const json::value patch_before = patch;
  auto out = kube::ApplyStrategicMergePatch(doc, patch, schema);
  Check(doc == doc_before);
  Check(patch == patch_before);
  if (!out.ok()) {
    const int code = out.error().code;
    Check(code == 400 || code == 422 || code == 500);
    return;
  }
  Check(out->is_object());
  Check(!HasDirectiveKey(*out));
  if (schema == nullptr && patch.is_object() && IsPlainMergePatch(patch) && !HasDirectiveKey(doc)) {
    const json::value base = doc.is_object() ? doc : json::value(json::object());
    Check(kube::JsonEqual(*out, kube::ApplyMergePatch(base, patch)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find_first_of(std::string_view("\0\n", 2));
  if (split == std::string_view::npos) return 0;
  json::value doc;
  json::value patch;
  if (!Parse(input.substr(0, split), doc) || !Parse(input.substr(split + 1), patch)) return 0;
  CheckOne(doc, patch, nullptr);
  CheckOne(doc, patch, Schema());
  return 0;
}
