#include <kube/core/merge_patch.hpp>
#include <kube/core/json.hpp>

#include <exception>
#include <new>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

namespace kube {

namespace json = boost::json;

namespace {

// RFC 7386 MergePatch for an object patch, applied in place to an object target.
void MergeInto(json::object& target, const json::object& patch) {
  for (const auto& member : patch) {
    const json::value& value = member.value();
    if (value.is_null()) {
      target.stable_erase(member.key());  // keeps the remaining members in their order
      continue;
    }
    if (!value.is_object()) {
      target[member.key()] = value;
      continue;
    }
    json::value& slot = target[member.key()];  // null when new
    if (!slot.is_object()) slot = json::object();
    MergeInto(slot.get_object(), value.get_object());
  }
}

// A copy of `v` without null members in objects, descending through objects only: arrays are
// replaced wholesale by a merge patch, so their contents are copied verbatim.
json::value WithoutNullMembers(const json::value& v) {
  if (!v.is_object()) return v;
  json::object out;
  out.reserve(v.get_object().size());
  for (const auto& member : v.get_object()) {
    if (member.value().is_null()) continue;
    out.emplace(member.key(), WithoutNullMembers(member.value()));
  }
  return out;
}

json::object DiffObjects(const json::object& original, const json::object& modified) {
  json::object patch;
  for (const auto& member : modified) {
    const json::value& now = member.value();
    const json::value* before = original.if_contains(member.key());
    if (now.is_null()) {
      // A null in `modified` can only be expressed as a deletion.
      if (before != nullptr && !before->is_null()) patch.emplace(member.key(), nullptr);
      continue;
    }
    if (before == nullptr) {
      patch.emplace(member.key(), WithoutNullMembers(now));
    } else if (before->is_object() && now.is_object()) {
      json::object sub = DiffObjects(before->get_object(), now.get_object());
      if (!sub.empty()) patch.emplace(member.key(), std::move(sub));
    } else if (!JsonEqual(*before, now)) {
      patch.emplace(member.key(), WithoutNullMembers(now));
    }
  }
  for (const auto& member : original) {
    if (!modified.contains(member.key())) patch.emplace(member.key(), nullptr);
  }
  return patch;
}


}  // namespace

json::value ApplyMergePatch(const json::value& target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  json::value result = target.is_object() ? target : json::value(json::object());
  MergeInto(result.get_object(), patch.get_object());
  return result;
}

Result<std::string> ApplyMergePatch(std::string_view target_json, std::string_view patch_json) {
  try {
    auto target = ParseJson(target_json, "merge patch target");
    if (!target.ok()) return std::move(target).error();
    auto patch = ParseJson(patch_json, "merge patch");
    if (!patch.ok()) return std::move(patch).error();
    return json::serialize(ApplyMergePatch(*target, *patch));
  } catch (const std::bad_alloc&) {
    return InternalError("merge patch: out of memory while applying the patch");
  } catch (const std::exception& e) {
    return InternalError(fmt::format("merge patch: {}", e.what()));
  }
}

json::value CreateMergePatch(const json::value& original, const json::value& modified) {
  if (!modified.is_object()) return modified;
  if (!original.is_object()) return WithoutNullMembers(modified);
  return DiffObjects(original.get_object(), modified.get_object());
}

}  // namespace kube
