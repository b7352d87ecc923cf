#include "apiserver/rest/go_zero.hpp"

#include <memory>
#include <string>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

const json::object& Table() {
  static const json::object table = [] {
    auto parsed = json::parse(internal::GoZeroTableJson());
    return parsed.is_object() ? std::move(parsed.as_object()) : json::object();
  }();
  return table;
}

// Descends `node` and the definition `def` together. Schema nodes are owned by the tree being
// built and not yet shared, so they may be changed.
void Annotate(TypeSchema& node, const json::object& defs, std::string_view def, int depth) {
  if (depth > 64) return;
  const auto* entry_v = defs.if_contains(def);
  if (entry_v == nullptr || !entry_v->is_object()) return;
  const auto& entry = entry_v->get_object();
  node.go_type = true;
  if (const auto* zero = entry.if_contains("z"); zero != nullptr && zero->is_object()) {
    for (const auto& kv : zero->get_object()) node.go_zero_members[std::string(kv.key())] = kv.value();
  }
  if (const auto* atomic = entry.if_contains("a"); atomic != nullptr && atomic->is_bool() && atomic->get_bool()) {
    node.map_atomic = true;
  }
  const auto* children = entry.if_contains("c");
  if (children == nullptr || !children->is_object()) return;
  for (const auto& kv : children->get_object()) {
    if (!kv.value().is_string()) continue;
    const std::string_view child_def(kv.value().get_string().data(), kv.value().get_string().size());
    auto it = node.properties.find(std::string_view(kv.key().data(), kv.key().size()));
    if (it == node.properties.end() || it->second == nullptr) continue;
    TypeSchema* member = const_cast<TypeSchema*>(it->second.get());
    // The definition describes the member's value, its items or its map values.
    if (member->type == TypeSchema::Type::kArray && member->items != nullptr) {
      member = const_cast<TypeSchema*>(member->items.get());
    } else if (member->properties.empty() && member->additional_properties != nullptr) {
      member = const_cast<TypeSchema*>(member->additional_properties.get());
    }
    Annotate(*member, defs, child_def, depth + 1);
  }
}

}  // namespace

void AnnotateGoZero(TypeSchema& root, std::string_view group, std::string_view version, std::string_view kind) {
  const json::object& table = Table();
  const auto* kinds = table.if_contains("kinds");
  const auto* defs = table.if_contains("defs");
  if (kinds == nullptr || !kinds->is_object() || defs == nullptr || !defs->is_object()) return;
  const std::string key = std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
  const auto* def = kinds->get_object().if_contains(key);
  if (def == nullptr || !def->is_string()) return;
  Annotate(root, defs->get_object(), std::string_view(def->get_string().data(), def->get_string().size()), 0);
}

}  // namespace kube::apiserver::rest
