// Fuzzes JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386).
// Input: a JSON document, then a NUL or newline, then a JSON value used both as a JSON Patch and
// as a merge patch. Inputs that do not parse are ignored. Checked properties (abort on violation):
//  - ApplyJsonPatch never modifies its input and either fails or returns a value; the string
//    overload agrees with the value overload;
//  - CreateMergePatch(a, b) applied to a yields b up to null object members (which a merge patch
//    cannot express), for (doc, patch) and (doc, merge result); CreateMergePatch(x, x) is {} for
//    an object x; merge patches are idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/json_patch.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/merge_patch.hpp>

namespace {

namespace json = boost::json;

bool Parse(std::string_view text, json::value& out) {
  boost::system::error_code ec;
  out = json::parse(text, ec);
  return !ec;
}

json::value WithoutNullMembers(const json::value& v) {
  if (!v.is_object()) return v;
  json::object out;
  for (const auto& m : v.get_object()) {
    if (!m.value().is_null()) out[m.key()] = WithoutNullMembers(m.value());
  }
  return out;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckMergeRoundTrip(const json::value& a, const json::value& b) {
  const json::value patch = kube::CreateMergePatch(a, b);
  const json::value result = kube::ApplyMergePatch(a, patch);
  Check(kube::JsonEqual(WithoutNullMembers(result), WithoutNullMembers(b)));
  Check(kube::JsonEqual(kube::ApplyMergePatch(result, patch), result));
  if (b.is_object()) Check(kube::CreateMergePatch(b, b) == json::value(json::object()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find_first_of(std::string_view("\0\n", 2));
  if (split == std::string_view::npos) return 0;
  const std::string_view doc_text = input.substr(0, split);
  const std::string_view patch_text = input.substr(split + 1);

  json::value doc;
  json::value patch;
  if (!Parse(doc_text, doc) || !Parse(patch_text, patch)) return 0;

  // JSON Patch.
  const json::value doc_before = doc;
  auto patched = kube::ApplyJsonPatch(doc, patch);
  Check(doc == doc_before);
  auto patched_text = kube::ApplyJsonPatch(doc_text, patch_text);
  Check(patched.ok() == patched_text.ok());
  if (patched.ok()) {
    // Not a re-parse: Boost.JSON 1.81 does not round-trip every double exactly.
    Check(*patched_text == json::serialize(*patched));
  } else {
    Check(patched.error() == patched_text.error());
    Check(patched.error().code == 400 || patched.error().code == 413 ||
          patched.error().code == 422);
  }

  // Merge Patch.
  const json::value merged = kube::ApplyMergePatch(doc, patch);
  Check(doc == doc_before);
  auto merged_text = kube::ApplyMergePatch(doc_text, patch_text);
  Check(merged_text.ok());
  CheckMergeRoundTrip(doc, patch);
  CheckMergeRoundTrip(doc, merged);
  CheckMergeRoundTrip(patch, doc);
  if (patched.ok()) CheckMergeRoundTrip(doc, *patched);
  return 0;
}
