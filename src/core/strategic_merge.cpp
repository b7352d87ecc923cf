// Strategic merge patch, apply side (k8s.io/apimachinery pkg/util/strategicpatch `mergeMap` with
// MergeParallelList and IgnoreUnmatchedNulls, as kube-apiserver's PATCH handler calls it).
// Values are compared the way Go compares the decoded interface{} values: integers and floats
// are different types (kube decodes with UnmarshalCaseSensitivePreserveInts).

#include <kube/core/strategic_merge.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/status.hpp>

namespace kube {
namespace json = boost::json;
namespace {

constexpr std::string_view kDirectiveMarker = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";

// The Go dynamic type of a decoded JSON value.
enum class GoType { kNil, kBool, kInt, kFloat, kString, kMap, kSlice };

GoType TypeOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return GoType::kNil;
    case json::kind::bool_: return GoType::kBool;
    case json::kind::int64:
    case json::kind::uint64: return GoType::kInt;
    case json::kind::double_: return GoType::kFloat;
    case json::kind::string: return GoType::kString;
    case json::kind::object: return GoType::kMap;
    case json::kind::array: return GoType::kSlice;
  }
  return GoType::kNil;
}

std::string_view GoTypeName(GoType t) {
  switch (t) {
    case GoType::kNil: return "%!s(<nil>)";
    case GoType::kBool: return "bool";
    case GoType::kInt: return "int64";
    case GoType::kFloat: return "float64";
    case GoType::kString: return "string";
    case GoType::kMap: return "map[string]interface {}";
    case GoType::kSlice: return "[]interface {}";
  }
  return "";
}

// Go's `==` on two interface{} values (maps and slices, which Go cannot compare, compare
// structurally here).
bool GoEqual(const json::value& a, const json::value& b) {
  if (TypeOf(a) != TypeOf(b)) return false;
  return JsonEqual(a, b);
}

// fmt's `%v` of a decoded value, for error messages (maps print with sorted keys, like Go).
void AppendGo(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: out += "<nil>"; return;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; return;
    case json::kind::int64: out += std::to_string(v.get_int64()); return;
    case json::kind::uint64: out += std::to_string(v.get_uint64()); return;
    case json::kind::double_: out += fmt::format("{}", v.get_double()); return;
    case json::kind::string: out += std::string_view(v.get_string()); return;
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ' ';
        first = false;
        AppendGo(out, e);
      }
      out += ']';
      return;
    }
    case json::kind::object: {
      std::vector<const json::key_value_pair*> members;
      for (const auto& m : v.get_object()) members.push_back(&m);
      std::sort(members.begin(), members.end(),
                [](const auto* l, const auto* r) { return l->key() < r->key(); });
      out += "map[";
      bool first = true;
      for (const auto* m : members) {
        if (!first) out += ' ';
        first = false;
        out += std::string_view(m->key());
        out += ':';
        AppendGo(out, m->value());
      }
      out += ']';
      return;
    }
  }
}

std::string GoString(const json::value& v) {
  std::string out;
  AppendGo(out, v);
  return out;
}

// kube-apiserver answers the strategicpatch errors it does not classify with a 500 whose reason
// is empty and whose message is the library's.
Error Unclassified(std::string message) { return MakeError(500, reason::kUnknown, std::move(message)); }

Error BadArgType(std::string_view expected, const json::value& actual) {
  return Unclassified(fmt::format("expected a {}, but received a {}", expected, GoTypeName(TypeOf(actual))));
}
Error NoMergeKey(const json::value& m, std::string_view key) {
  return Unclassified(fmt::format("map: {} does not contain declared merge key: {}", GoString(m), key));
}
Error BadPatchType(const json::value& directive, const json::value& m) {
  return Unclassified(fmt::format("unknown patch type: {} in map: {}", GoString(directive), GoString(m)));
}
Error BadPrimitiveList() { return NewBadRequest("invalid patch format of primitive list"); }
Error BadRetainKeys() { return NewBadRequest("invalid patch format of retainKeys"); }
Error BadSetElementOrder() { return NewBadRequest("invalid patch format of setElementOrder list"); }
Error NoListOfLists() {
  return ErrorFromResponse(422, "lists of lists are not supported", {});
}
Error TooDeep() {
  return NewBadRequest(fmt::format("strategic merge patch: nesting deeper than {} levels", kStrategicMergeMaxDepth));
}

// True when `v` nests deeper than `limit` (iterative, so that the check itself cannot overflow).
bool DeeperThan(const json::value& v, std::size_t limit) {
  std::vector<std::pair<const json::value*, std::size_t>> stack{{&v, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > limit) return true;
    if (node->is_object()) {
      for (const auto& m : node->get_object()) stack.emplace_back(&m.value(), depth + 1);
    } else if (node->is_array()) {
      for (const auto& e : node->get_array()) stack.emplace_back(&e, depth + 1);
    }
  }
  return false;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// `extractKey`: "<prefix>/<field>" -> field.
Result<std::string> ExtractKey(std::string_view key, std::string_view prefix) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) {
    return prefix == kDeleteFromPrimitiveList ? BadPrimitiveList() : BadSetElementOrder();
  }
  return std::string(key.substr(slash + 1));
}

// The strategy of a field other than retainKeys ("merge", "replace" or "").
std::string_view MainStrategy(const TypeSchema* field) {
  if (field == nullptr) return {};
  std::string_view rest = field->patch_strategy;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view s = rest.substr(0, comma);
    if (s != "retainKeys") return s;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return {};
}

std::string_view MergeKeyOf(const TypeSchema* field) {
  return field == nullptr ? std::string_view() : std::string_view(field->patch_merge_key);
}
const TypeSchema* ItemsOf(const TypeSchema* field) { return field == nullptr ? nullptr : field->items.get(); }
const TypeSchema* MemberOf(const TypeSchema* schema, std::string_view name) {
  return schema == nullptr ? nullptr : schema->Member(name);
}

bool IsDirectiveKey(std::string_view key) {
  return key == kDirectiveMarker || key == kRetainKeys || StartsWith(key, kDeleteFromPrimitiveList) ||
         StartsWith(key, kSetElementOrder);
}

// `discardNullValuesFromPatch` + `removeDirectives`: a value taken whole from the patch loses its
// null members and every object that carries `$patch` (false: drop the value itself).
bool RemoveDirectives(json::value& v) {
  if (v.is_object()) {
    auto& o = v.get_object();
    if (o.contains(kDirectiveMarker)) return false;
    for (auto it = o.begin(); it != o.end();) {
      if (it->value().is_null() || !RemoveDirectives(it->value())) {
        it = o.stable_erase(it);
      } else {
        ++it;
      }
    }
    return true;
  }
  if (v.is_array()) {
    auto& a = v.get_array();
    for (auto it = a.begin(); it != a.end();) {
      if (!RemoveDirectives(*it)) {
        it = a.erase(it);
      } else {
        ++it;
      }
    }
  }
  return true;
}

// Directive keys left in the merged value, which kube's typed decoding drops (they are not fields
// of any built-in type).
void StripDirectiveKeys(json::value& v, std::size_t depth) {
  if (depth > kStrategicMergeMaxDepth + 8) return;
  if (v.is_object()) {
    auto& o = v.get_object();
    for (auto it = o.begin(); it != o.end();) {
      if (IsDirectiveKey(it->key())) {
        it = o.stable_erase(it);
      } else {
        StripDirectiveKeys(it->value(), depth + 1);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) StripDirectiveKeys(e, depth + 1);
  }
}

// `sliceElementType`: every element of both lists has one Go type, and it is not a list.
Result<GoType> SliceElementType(const json::array& a, const json::array& b) {
  bool seen = false;
  GoType prev = GoType::kNil;
  for (const json::array* list : {&a, &b}) {
    for (const auto& v : *list) {
      const GoType t = TypeOf(v);
      if (!seen) {
        seen = true;
        prev = t;
        if (t == GoType::kSlice) return NoListOfLists();
      } else if (t != prev) {
        std::string both = "[";
        AppendGo(both, json::value(a));
        both += ' ';
        AppendGo(both, json::value(b));
        both += ']';
        return Unclassified("list element types are not identical: " + both);
      }
    }
  }
  if (!seen) return Unclassified("no elements in any of the given slices");
  return prev;
}

// A hash key with Go `==` semantics for scalars: the Go type plus the serialized value.
std::string HashKey(const json::value& v) {
  std::string out(1, static_cast<char>('0' + static_cast<int>(TypeOf(v))));
  out += json::serialize(v);
  return out;
}

// The value an element is identified by: itself (scalar lists) or its merge-key member (lists of
// maps; a missing key or a non-map identifies as Go's nil).
std::string IdentityOf(const json::value& item, std::string_view merge_key, bool maps) {
  if (!maps) return HashKey(item);
  const json::value* key = item.is_object() ? item.get_object().if_contains(merge_key) : nullptr;
  return key == nullptr ? std::string("nil") : HashKey(*key);
}

// First positions of the elements of a list by identity (kube's `index`, without its quadratic
// scans: patches are untrusted and lists may be long).
class OrderIndex {
 public:
  OrderIndex(const json::array& list, std::string_view merge_key, bool maps) : merge_key_(merge_key), maps_(maps) {
    for (std::size_t i = 0; i < list.size(); ++i) first_.emplace(IdentityOf(list[i], merge_key_, maps_), i);
  }
  /// The position of `item`, or -1.
  std::ptrdiff_t Find(const json::value& item) const {
    auto it = first_.find(IdentityOf(item, merge_key_, maps_));
    return it == first_.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  }

 private:
  std::string merge_key_;
  bool maps_;
  std::unordered_map<std::string, std::size_t> first_;
};

// `findMapInSliceBasedOnKeyValue` precondition: every element is a map.
Result<void> AllMaps(const json::array& list) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) return Unclassified(fmt::format("value for key {} is not a map", i));
  }
  return {};
}

Result<void> ValidateMergeKeyIn(std::string_view merge_key, const json::array& list) {
  for (const auto& item : list) {
    if (!item.is_object()) return BadArgType("map[string]interface {}", item);
    if (!item.get_object().contains(merge_key)) return NoMergeKey(item, merge_key);
  }
  return {};
}

bool IsDeleteElement(const json::value& v) {
  if (!v.is_object()) return false;
  const auto* d = v.get_object().if_contains(kDirectiveMarker);
  return d != nullptr && d->is_string() && d->get_string() == "delete";
}

// `normalizeSliceOrder`: `to_sort` stably ordered by the positions of its elements in `order`
// ($patch: delete elements last). Elements `order` lacks go after the others (kube's comparator
// is not a strict order there; they cannot occur for well-formed input).
Result<json::array> NormalizeSliceOrder(json::array to_sort, const json::array& order, std::string_view merge_key,
                                        bool maps) {
  json::array deletes;
  if (maps) {
    KUBE_RETURN_IF_ERROR(ValidateMergeKeyIn(merge_key, to_sort));
    KUBE_RETURN_IF_ERROR(ValidateMergeKeyIn(merge_key, order));
    json::array keep;
    for (auto& v : to_sort) (IsDeleteElement(v) ? deletes : keep).push_back(std::move(v));
    to_sort = std::move(keep);
  }
  const OrderIndex index(order, merge_key, maps);
  std::vector<std::pair<std::ptrdiff_t, std::size_t>> keys;
  keys.reserve(to_sort.size());
  for (std::size_t i = 0; i < to_sort.size(); ++i) {
    std::ptrdiff_t idx = index.Find(to_sort[i]);
    if (idx < 0) idx = std::numeric_limits<std::ptrdiff_t>::max();
    keys.emplace_back(idx, i);
  }
  std::stable_sort(keys.begin(), keys.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  json::array out;
  out.reserve(to_sort.size() + deletes.size());
  for (const auto& [idx, i] : keys) out.push_back(std::move(to_sort[i]));
  for (auto& d : deletes) out.push_back(std::move(d));
  return out;
}

// `mergeSortedSlice`: interleaves the server-only elements (`left`) into the patch elements
// (`right`): a server-only element goes first only when both are in `server_order` and it comes
// earlier there.
json::array MergeSortedSlice(json::array left, json::array right, const json::array& server_order,
                             std::string_view merge_key, bool maps) {
  const OrderIndex index(server_order, merge_key, maps);
  json::array out;
  out.reserve(left.size() + right.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      out.push_back(std::move(left[i++]));
    } else {
      const auto li = index.Find(left[i]);
      const auto ri = index.Find(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

Result<json::array> NormalizeElementOrder(json::array patch_items, json::array server_only,
                                          const json::array& patch_order, const json::array& server_order,
                                          std::string_view merge_key, bool maps) {
  auto sorted_patch = NormalizeSliceOrder(std::move(patch_items), patch_order, merge_key, maps);
  if (!sorted_patch.ok()) return std::move(sorted_patch).error();
  auto sorted_server = NormalizeSliceOrder(std::move(server_only), server_order, merge_key, maps);
  if (!sorted_server.ok()) return std::move(sorted_server).error();
  return MergeSortedSlice(std::move(*sorted_server), std::move(*sorted_patch), server_order, merge_key, maps);
}

// Splits `merged` into the elements present in `by` and the others ("server-only").
Result<std::pair<json::array, json::array>> Partition(const json::array& merged, const json::array& by,
                                                      std::string_view merge_key) {
  const bool maps = !merge_key.empty();
  if (maps) KUBE_RETURN_IF_ERROR(AllMaps(by));
  const OrderIndex index(by, merge_key, maps);
  std::pair<json::array, json::array> out;
  for (const auto& v : merged) {
    if (maps) {
      if (!v.is_object()) return BadArgType("map[string]interface {}", v);
      if (!v.get_object().contains(merge_key)) return NoMergeKey(v, merge_key);
    }
    (index.Find(v) >= 0 ? out.first : out.second).push_back(v);
  }
  return out;
}

class Merger {
 public:
  Result<json::object> MergeMap(json::object original, json::object patch, const TypeSchema* schema,
                                std::size_t depth);

 private:
  Result<void> ApplyRetainKeys(json::object& original, json::object& patch);
  Result<void> MergeSetElementOrder(json::object& original, json::object& patch, const TypeSchema* schema,
                                    std::size_t depth);
  Result<json::array> MergeSliceHandler(json::array original, json::array patch, const TypeSchema* field,
                                        std::string_view field_name, bool is_delete_list, std::size_t depth);
  Result<json::array> MergeSlice(json::array original, json::array patch, const TypeSchema* field,
                                 std::string_view field_name, bool is_delete_list, std::size_t depth);
};

Result<json::object> Merger::MergeMap(json::object original, json::object patch, const TypeSchema* schema,
                                      std::size_t depth) {
  if (depth > kStrategicMergeMaxDepth) return TooDeep();
  if (const auto* directive = patch.if_contains(kDirectiveMarker)) {
    if (directive->is_string() && directive->get_string() == "replace") {
      patch.stable_erase(kDirectiveMarker);
      return patch;
    }
    if (directive->is_string() && directive->get_string() == "delete") return json::object();
    return BadPatchType(*directive, patch);
  }
  KUBE_RETURN_IF_ERROR(ApplyRetainKeys(original, patch));
  KUBE_RETURN_IF_ERROR(MergeSetElementOrder(original, patch, schema, depth));

  for (auto& member : patch) {
    std::string key(member.key());
    json::value& patch_value = member.value();
    bool is_delete_list = false;
    if (StartsWith(key, kDeleteFromPrimitiveList)) {
      auto field = ExtractKey(key, kDeleteFromPrimitiveList);
      if (!field.ok()) return std::move(field).error();
      key = std::move(*field);
      is_delete_list = true;
    }
    if (patch_value.is_null()) {
      original.stable_erase(key);
      continue;
    }
    json::value* current = original.if_contains(key);
    if (current == nullptr || TypeOf(*current) != TypeOf(patch_value)) {
      if (is_delete_list) continue;
      json::value taken = std::move(patch_value);
      if (RemoveDirectives(taken)) {
        original[key] = std::move(taken);
      } else {
        original.stable_erase(key);
      }
      continue;
    }
    const TypeSchema* field = MemberOf(schema, key);
    if (current->is_object()) {
      if (MainStrategy(field) == "replace") {
        *current = std::move(patch_value);
        continue;
      }
      auto merged = MergeMap(std::move(current->get_object()), std::move(patch_value.get_object()), field, depth + 1);
      if (!merged.ok()) return std::move(merged).error();
      *original.if_contains(key) = std::move(*merged);
    } else if (current->is_array()) {
      auto merged = MergeSliceHandler(std::move(current->get_array()), std::move(patch_value.get_array()), field,
                                      key, is_delete_list, depth + 1);
      if (!merged.ok()) return std::move(merged).error();
      *original.if_contains(key) = std::move(*merged);
    } else {
      *current = std::move(patch_value);
    }
  }
  return original;
}

Result<void> Merger::ApplyRetainKeys(json::object& original, json::object& patch) {
  auto it = patch.find(kRetainKeys);
  if (it == patch.end()) return {};
  json::value retain = std::move(it->value());
  patch.stable_erase(it);
  if (!retain.is_array()) return BadRetainKeys();
  auto retained = [&](std::string_view key) {
    return std::any_of(retain.get_array().begin(), retain.get_array().end(),
                       [&](const json::value& v) { return v.is_string() && v.get_string() == key; });
  };
  for (const auto& member : patch) {
    if (member.value().is_null() || StartsWith(member.key(), kDeleteFromPrimitiveList) ||
        StartsWith(member.key(), kSetElementOrder)) {
      continue;
    }
    if (!retained(member.key())) return BadRetainKeys();
  }
  for (auto o = original.begin(); o != original.end();) {
    if (retained(o->key())) {
      ++o;
    } else {
      o = original.stable_erase(o);
    }
  }
  return {};
}

Result<void> Merger::MergeSetElementOrder(json::object& original, json::object& patch, const TypeSchema* schema,
                                          std::size_t depth) {
  std::vector<std::string> keys;
  for (const auto& member : patch) {
    if (StartsWith(member.key(), kSetElementOrder)) keys.emplace_back(member.key());
  }
  for (const auto& key : keys) {
    json::value order_value = std::move(patch.at(key));
    patch.stable_erase(key);
    if (!order_value.is_array()) return BadArgType("[]interface {}", order_value);
    const json::array& order = order_value.get_array();
    auto field_name = ExtractKey(key, kSetElementOrder);
    if (!field_name.ok()) return std::move(field_name).error();

    const json::value* original_list = original.if_contains(*field_name);
    const json::value* patch_list = patch.if_contains(*field_name);
    if (original_list != nullptr && !original_list->is_array()) return BadArgType("[]interface {}", *original_list);
    if (patch_list != nullptr && !patch_list->is_array()) return BadArgType("[]interface {}", *patch_list);
    const json::array empty;
    const json::array& original_items = original_list != nullptr ? original_list->get_array() : empty;
    const json::array& patch_items = patch_list != nullptr ? patch_list->get_array() : empty;

    const TypeSchema* field = MemberOf(schema, *field_name);
    const std::string merge_key(MergeKeyOf(field));

    // validatePatchWithSetOrderList: the patch's elements appear in the order list, in its order.
    if (!order.empty() && !patch_items.empty()) {
      json::array non_delete;
      if (!merge_key.empty()) {
        for (const auto& v : patch_items) {
          if (!v.is_object()) return BadArgType("map[string]interface {}", v);
          if (!IsDeleteElement(v)) non_delete.push_back(v);
        }
      } else {
        non_delete = patch_items;
      }
      std::size_t p = 0;
      std::size_t s = 0;
      while (p < non_delete.size() && s < order.size()) {
        if (non_delete[p].is_object() && non_delete[p].get_object().contains(kDirectiveMarker)) {
          ++p;
          continue;
        }
        bool equal = false;
        if (merge_key.empty()) {
          equal = GoEqual(non_delete[p], order[s]);
        } else {
          if (!order[s].is_object()) return BadArgType("map[string]interface {}", order[s]);
          const auto* l = non_delete[p].get_object().if_contains(merge_key);
          if (l == nullptr) return NoMergeKey(non_delete[p], merge_key);
          const auto* r = order[s].get_object().if_contains(merge_key);
          if (r == nullptr) return NoMergeKey(order[s], merge_key);
          equal = GoEqual(*l, *r);
        }
        if (equal) ++p;
        ++s;
      }
      if (p < non_delete.size() && s >= order.size()) {
        return Unclassified(fmt::format("the order in patch list:\n{}\n doesn't match {} list:\n{}",
                                        GoString(json::value(patch_items)), kSetElementOrder,
                                        GoString(order_value)));
      }
    }

    if (original_list == nullptr && patch_list == nullptr) continue;
    json::array merged;
    if (original_list != nullptr && patch_list == nullptr) {
      merged = original_items;
    } else if (original_list == nullptr) {
      json::value taken = patch_items;
      RemoveDirectives(taken);
      merged = std::move(taken.get_array());
    } else {
      auto m = MergeSliceHandler(original_items, patch_items, field, *field_name, false, depth + 1);
      if (!m.ok()) return std::move(m).error();
      merged = std::move(*m);
    }

    auto parts = Partition(merged, order, merge_key);
    if (!parts.ok()) return std::move(parts).error();
    auto element_type = SliceElementType(original_items, patch_items);
    if (!element_type.ok()) return std::move(element_type).error();
    auto both = NormalizeElementOrder(std::move(parts->first), std::move(parts->second), order, original_items,
                                      merge_key, *element_type == GoType::kMap);
    if (!both.ok()) return std::move(both).error();
    original[*field_name] = std::move(*both);
    patch.stable_erase(*field_name);
  }
  return {};
}

Result<json::array> Merger::MergeSliceHandler(json::array original, json::array patch, const TypeSchema* field,
                                              std::string_view field_name, bool is_delete_list, std::size_t depth) {
  if (MainStrategy(field) == "merge" || is_delete_list) {
    return MergeSlice(std::move(original), std::move(patch), field, field_name, is_delete_list, depth);
  }
  return patch;
}

Result<json::array> Merger::MergeSlice(json::array original, json::array patch, const TypeSchema* field,
                                       std::string_view field_name, bool is_delete_list, std::size_t depth) {
  if (depth > kStrategicMergeMaxDepth) return TooDeep();
  if (original.empty() && patch.empty()) return original;
  auto element_type = SliceElementType(original, patch);
  if (!element_type.ok()) return std::move(element_type).error();
  const std::string merge_key(MergeKeyOf(field));

  json::array merged;
  if (*element_type != GoType::kMap) {
    if (is_delete_list) {
      const OrderIndex doomed(patch, "", false);
      json::array kept;
      for (auto& v : original) {
        if (doomed.Find(v) < 0) kept.push_back(std::move(v));
      }
      return kept;
    }
    std::unordered_set<std::string> seen;
    for (const json::array* list : {&original, &patch}) {
      for (const auto& v : *list) {
        if (seen.insert(HashKey(v)).second) merged.push_back(v);
      }
    }
  } else {
    if (merge_key.empty()) {
      return Unclassified(fmt::format("cannot merge lists without merge key for {}", field_name));
    }
    // mergeSliceWithSpecialElements: deletions and the list-level replace.
    json::array plain;
    bool replace = false;
    for (auto& v : patch) {
      const auto* directive = v.get_object().if_contains(kDirectiveMarker);
      if (directive == nullptr) {
        plain.push_back(std::move(v));
        continue;
      }
      const std::string_view d = directive->is_string() ? std::string_view(directive->get_string()) : "";
      if (directive->is_string() && d == "delete") {
        const auto* key = v.get_object().if_contains(merge_key);
        if (key == nullptr) return NoMergeKey(v, merge_key);
        const std::string doomed = HashKey(*key);
        json::array kept;
        for (auto& o : original) {
          const auto* k = o.get_object().if_contains(merge_key);
          if (k == nullptr || HashKey(*k) != doomed) kept.push_back(std::move(o));
        }
        original = std::move(kept);
      } else if (directive->is_string() && d == "replace") {
        replace = true;
      } else if (directive->is_string() && d == "merge") {
        return Unclassified("merging lists cannot yet be specified in the patch");
      } else {
        return BadPatchType(*directive, v);
      }
    }
    if (replace) {
      original = std::move(plain);
      plain.clear();
    }
    // mergeSliceWithoutSpecialElements: merge by key, append the new ones.
    merged = original;
    std::unordered_map<std::string, std::size_t> position;  // first element per merge-key value
    for (std::size_t i = 0; i < merged.size(); ++i) {
      if (const auto* k = merged[i].get_object().if_contains(merge_key)) position.emplace(HashKey(*k), i);
    }
    for (const auto& v : plain) {
      const auto* key = v.get_object().if_contains(merge_key);
      if (key == nullptr) return NoMergeKey(v, merge_key);
      std::string id = HashKey(*key);
      auto at = position.find(id);
      if (at == position.end()) {
        position.emplace(std::move(id), merged.size());
        merged.push_back(v);
        continue;
      }
      auto& slot = merged[at->second];
      auto m = MergeMap(std::move(slot.get_object()), v.get_object(), ItemsOf(field), depth + 1);
      if (!m.ok()) return std::move(m).error();
      slot = std::move(*m);
    }
    patch = std::move(plain);
  }

  auto parts = Partition(merged, patch, merge_key);
  if (!parts.ok()) return std::move(parts).error();
  return NormalizeElementOrder(std::move(parts->first), std::move(parts->second), patch, original, merge_key,
                               *element_type == GoType::kMap);
}

}  // namespace

Result<json::value> ApplyStrategicMergePatch(const json::value& original, const json::value& patch,
                                             const TypeSchema* schema) {
  if (!patch.is_object()) {
    return NewBadRequest(fmt::format("json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                                     JsonTypeName(patch)));
  }
  if (DeeperThan(patch, kStrategicMergeMaxDepth) || DeeperThan(original, kStrategicMergeMaxDepth)) return TooDeep();
  try {
    Merger merger;
    auto merged = merger.MergeMap(original.is_object() ? original.get_object() : json::object(), patch.get_object(),
                                  schema, 0);
    if (!merged.ok()) return std::move(merged).error();
    json::value out(std::move(*merged));
    StripDirectiveKeys(out, 0);
    return out;
  } catch (const std::bad_alloc&) {
    return NewInternalError("strategic merge patch: out of memory");
  }
}

}  // namespace kube
