#include <array>
#include <utility>

#include <kube/apiserver/table.hpp>

#include "apiserver/discovery/internal/json_out.hpp"

namespace kube::apiserver {
namespace {

// metav1.ObjectMeta's JSON members in Go field order.
constexpr std::array<std::string_view, 15> kObjectMetaFields = {
    "name",          "generateName",      "namespace",
    "selfLink",      "uid",               "resourceVersion",
    "generation",    "creationTimestamp", "deletionTimestamp",
    "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers",      "managedFields"};

std::size_t SkipSpace(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// The index one past the JSON string starting at s[i] == '"'.
std::size_t SkipString(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// The index one past the JSON value starting at s[i].
std::size_t SkipValue(std::string_view s, std::size_t i) {
  if (i >= s.size()) return s.size();
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = SkipString(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return s.size();
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
         s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
    ++i;
  }
  return i;
}

// The members of a valid JSON object text: (key as written between the quotes, raw value).
std::vector<std::pair<std::string_view, std::string_view>> SplitMembers(std::string_view obj) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  std::size_t i = SkipSpace(obj, 0);
  if (i >= obj.size() || obj[i] != '{') return out;
  i = SkipSpace(obj, i + 1);
  while (i < obj.size() && obj[i] == '"') {
    const std::size_t key_end = SkipString(obj, i);
    const std::string_view key = obj.substr(i + 1, key_end - i - 2);
    i = SkipSpace(obj, key_end);
    if (i >= obj.size() || obj[i] != ':') break;
    i = SkipSpace(obj, i + 1);
    const std::size_t value_end = SkipValue(obj, i);
    out.emplace_back(key, obj.substr(i, value_end - i));
    i = SkipSpace(obj, value_end);
    if (i < obj.size() && obj[i] == ',') i = SkipSpace(obj, i + 1);
  }
  return out;
}

void AppendPartial(std::string& out, const Object& object) {
  out += "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{";
  std::vector<std::pair<std::string_view, std::string_view>> members;
  if (auto raw = object.GetRaw("/metadata")) members = SplitMembers(*raw);
  bool first = true;
  for (std::string_view field : kObjectMetaFields) {
    std::string_view value;
    for (const auto& [k, v] : members) {
      if (k == field) value = v;
    }
    // Go's omitempty: "", 0 (generation), empty maps and slices, and null are left out...
    const bool empty = value.empty() || value == "null" || value == "\"\"" || value == "{}" ||
                       value == "[]" || (field == "generation" && value == "0");
    if (empty) {
      // ...except metav1.Time, a struct, which encoding/json writes as null when zero.
      if (field != "creationTimestamp") continue;
      value = "null";
    }
    if (!first) out.push_back(',');
    first = false;
    internal::AppendKey(out, field);
    out.append(value);
  }
  out += "}}";
}

}  // namespace

std::string RenderPartialObjectMetadata(const Object& object) {
  std::string out;
  AppendPartial(out, object);
  return out;
}

std::string RenderPartialObjectMetadataList(const std::vector<ObjectPtr>& objects,
                                            std::string_view resource_version,
                                            std::string_view continue_token,
                                            std::optional<int64_t> remaining_item_count) {
  std::string out =
      "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{";
  bool first = true;
  auto sep = [&] {
    if (!first) out.push_back(',');
    first = false;
  };
  if (!resource_version.empty()) {
    sep();
    out += "\"resourceVersion\":";
    internal::AppendJsonString(out, resource_version);
  }
  if (!continue_token.empty()) {
    sep();
    out += "\"continue\":";
    internal::AppendJsonString(out, continue_token);
  }
  if (remaining_item_count) {
    sep();
    out += "\"remainingItemCount\":" + std::to_string(*remaining_item_count);
  }
  out += "},\"items\":[";
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (i != 0) out.push_back(',');
    AppendPartial(out, *objects[i]);
  }
  out += "]}";
  return out;
}

}  // namespace kube::apiserver
