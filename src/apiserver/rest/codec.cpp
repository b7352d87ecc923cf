#include "apiserver/rest/codec.hpp"

#include <array>
#include <charconv>
#include <random>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::array<std::string_view, 15> kMetadataOrder = {
    "name",          "generateName",      "namespace",
    "selfLink",      "uid",               "resourceVersion",
    "generation",    "creationTimestamp", "deletionTimestamp",
    "deletionGracePeriodSeconds",         "labels",
    "annotations",   "ownerReferences",   "finalizers",
    "managedFields"};

// A per-process random placeholder: no client can guess it, so it cannot collide with content.
const std::string& Placeholder() {
  static const std::string placeholder = [] {
    std::random_device rd;
    std::string s = "kubecpp-rv-";
    for (int i = 0; i < 4; ++i) {
      const uint32_t x = rd();
      constexpr char kHex[] = "0123456789abcdef";
      for (int b = 0; b < 8; ++b) s.push_back(kHex[(x >> (b * 4)) & 15]);
    }
    return s;
  }();
  return placeholder;
}

json::parse_options StoredParseOptions() {
  json::parse_options opt;
  opt.max_depth = 1000;
  return opt;
}

// True for null, {} and [] (what Go's omitempty leaves out for maps, slices and pointers).
bool IsEmptyValue(const json::value& v) {
  return v.is_null() || (v.is_object() && v.get_object().empty()) || (v.is_array() && v.get_array().empty());
}

}  // namespace

void NormalizeMemberOrder(json::object& obj) {
  for (std::string_view key : {"data", "binaryData", "stringData"}) {
    if (const auto* v = obj.if_contains(key); v != nullptr && IsEmptyValue(*v)) obj.erase(key);
  }
  if (auto* m = obj.if_contains("metadata"); m != nullptr && m->is_object()) {
    for (std::string_view key : {"labels", "annotations", "ownerReferences", "finalizers", "managedFields"}) {
      if (const auto* v = m->get_object().if_contains(key); v != nullptr && IsEmptyValue(*v)) m->get_object().erase(key);
    }
  }
  json::object out(obj.storage());
  out.reserve(obj.size());
  for (std::string_view key : {"kind", "apiVersion", "metadata"}) {
    if (auto* v = obj.if_contains(key)) out[key] = std::move(*v);
  }
  for (auto& kv : obj) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (key == "kind" || key == "apiVersion" || key == "metadata") continue;
    out[key] = std::move(kv.value());
  }
  if (auto* m = out.if_contains("metadata"); m != nullptr && m->is_object()) {
    auto& meta = m->get_object();
    json::object ordered(meta.storage());
    ordered.reserve(meta.size());
    for (std::string_view key : kMetadataOrder) {
      if (auto* v = meta.if_contains(key)) ordered[key] = std::move(*v);
    }
    for (auto& kv : meta) {
      if (!ordered.contains(kv.key())) ordered[kv.key()] = std::move(kv.value());
    }
    meta = std::move(ordered);
  }
  obj = std::move(out);
}

StampedJson::StampedJson(json::object obj) {
  auto& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta.get_object()["resourceVersion"] = Placeholder();
  std::string text = json::serialize(obj);
  const std::string needle = "\"" + Placeholder() + "\"";
  const auto pos = text.find(needle);
  head_ = text.substr(0, pos + 1);
  tail_ = text.substr(pos + needle.size() - 1);
}

std::string StampedJson::At(Revision revision) const {
  std::string out;
  const std::string rv = std::to_string(revision);
  out.reserve(head_.size() + rv.size() + tail_.size());
  out += head_;
  out += rv;
  out += tail_;
  return out;
}

Result<json::object> ParseStored(std::string_view value) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(value.data(), value.size()), ec, {}, StoredParseOptions());
  if (ec || !v.is_object()) return NewInternalError("stored object is not a JSON object");
  return std::move(v.get_object());
}

std::string ServedJson(const ResourceInfo& info, std::string_view stored) {
  if (!NeedsViewConversion(info)) return std::string(stored);
  auto obj = ServedObject(info, stored);
  if (!obj.ok()) return std::string(stored);
  return json::serialize(*obj);
}

Result<json::object> ServedObject(const ResourceInfo& info, std::string_view stored) {
  auto obj = ParseStored(stored);
  if (!obj.ok()) return obj;
  StoredToView(info, *obj);
  return obj;
}

std::optional<Revision> ParseRevision(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  Revision rv = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), rv);
  if (ec != std::errc() || ptr != s.data() + s.size() || rv <= 0) return std::nullopt;
  return rv;
}

}  // namespace kube::apiserver::rest
