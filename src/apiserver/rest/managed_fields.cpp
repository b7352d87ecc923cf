// Field sets, FieldsV1 and the managedFields bookkeeping of server-side apply
// (apiserver-semantics.md §3.4). Semantics follow sigs.k8s.io/structured-merge-diff (fieldpath,
// typed ToFieldSet / Compare / Merge, merge.Updater) and the fieldmanager chain of
// k8s.io/apiserver (stripMeta, managedFieldsUpdater, skipNonApplied, conflict messages).

#include "apiserver/rest/managed_fields.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <tuple>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::size_t kFieldManagerMaxLength = 128;

// Type rank of a JSON value in the total order of set elements and key values.
int TypeRank(const json::value& v) {
  if (v.is_number()) return 0;
  if (v.is_string()) return 1;
  if (v.is_bool()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
}

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

int CompareValues(const json::value& a, const json::value& b) {
  const int ra = TypeRank(a);
  const int rb = TypeRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: {
      if (a.is_int64() && b.is_int64()) {
        return a.get_int64() < b.get_int64() ? -1 : (a.get_int64() > b.get_int64() ? 1 : 0);
      }
      const double x = AsDouble(a);
      const double y = AsDouble(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case 1: {
      const int c = std::string_view(a.get_string()).compare(std::string_view(b.get_string()));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 2:
      return a.get_bool() == b.get_bool() ? 0 : (a.get_bool() ? 1 : -1);
    case 3: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (int c = CompareValues(x[i], y[i]); c != 0) return c;
      }
      return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
    case 4: {
      const std::string x = SerializeJson(a);
      const std::string y = SerializeJson(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    default:
      return 0;
  }
}

// Go's value.ToString for a key or set value in a printed path.
std::string ValueToString(const json::value& v) {
  if (v.is_string()) return QuoteJson(std::string_view(v.get_string()));
  return SerializeJson(v);
}

const TypeSchema* MemberSchema(const TypeSchema* s, std::string_view name) {
  return s != nullptr ? s->Member(name) : nullptr;
}
const TypeSchema* ItemsSchema(const TypeSchema* s) { return s != nullptr ? s->items.get() : nullptr; }
bool AtomicList(const TypeSchema* s) { return s == nullptr || s->list_type == TypeSchema::ListType::kAtomic; }
bool AtomicMap(const TypeSchema* s) { return s != nullptr && s->map_atomic; }
// A member of a map-typed object (additionalProperties / preserved unknown field): it is a member
// of the leaf set even when it has children.
bool Undeclared(const TypeSchema* s, std::string_view name) {
  return s != nullptr && s->properties.find(name) == s->properties.end() &&
         (s->additional_properties != nullptr || s->preserve_unknown_fields);
}

bool EmptyOrNullObject(const json::value* v) {
  return v == nullptr || v->is_null() || (v->is_object() && v->get_object().empty());
}
bool EmptyOrNullArray(const json::value* v) {
  return v == nullptr || v->is_null() || (v->is_array() && v->get_array().empty());
}

// Path elements of the elements of a granular list, in order (duplicates keep their first index).
struct IndexedList {
  std::vector<PathElement> pes;
  std::map<PathElement, std::size_t> first;  // pe -> index of the first element with it
};

Result<IndexedList> IndexList(const json::array& list, const TypeSchema* schema, const FieldPath& at) {
  IndexedList out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto pe = ListElementPath(list[i], schema);
    if (!pe.ok()) {
      return MakeError(500, "", PathString(at) + ": element " + std::to_string(i) + ": " + pe.error().message);
    }
    out.pes.push_back(**pe);
    out.first.emplace(**pe, i);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// PathElement

PathElement PathElement::Field(std::string name) {
  PathElement pe;
  pe.kind = Kind::kField;
  pe.name = std::move(name);
  return pe;
}

PathElement PathElement::Key(std::vector<std::pair<std::string, json::value>> key) {
  PathElement pe;
  pe.kind = Kind::kKey;
  std::sort(key.begin(), key.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  pe.key = std::move(key);
  return pe;
}

PathElement PathElement::Value(json::value v) {
  PathElement pe;
  pe.kind = Kind::kValue;
  pe.value = std::move(v);
  return pe;
}

PathElement PathElement::Index(int64_t i) {
  PathElement pe;
  pe.kind = Kind::kIndex;
  pe.index = i;
  return pe;
}

std::string PathElement::ToFieldsV1Key() const {
  switch (kind) {
    case Kind::kField:
      return "f:" + name;
    case Kind::kKey: {
      json::object o;
      for (const auto& [k, v] : key) o[k] = v;
      return "k:" + SerializeJson(o);
    }
    case Kind::kValue:
      return "v:" + SerializeJson(value);
    case Kind::kIndex:
      return "i:" + std::to_string(index);
  }
  return {};
}

std::string PathElement::ToString() const {
  switch (kind) {
    case Kind::kField:
      return "." + name;
    case Kind::kKey: {
      std::string s = "[";
      for (std::size_t i = 0; i < key.size(); ++i) {
        if (i > 0) s += ",";
        s += key[i].first + "=" + ValueToString(key[i].second);
      }
      return s + "]";
    }
    case Kind::kValue:
      return "[=" + ValueToString(value) + "]";
    case Kind::kIndex:
      return "[" + std::to_string(index) + "]";
  }
  return {};
}

Result<PathElement> PathElement::Parse(std::string_view s) {
  if (s.size() < 2 || s[1] != ':') return NewBadRequest("unknown path element " + QuoteJson(s));
  const std::string_view rest = s.substr(2);
  switch (s[0]) {
    case 'f':
      return Field(std::string(rest));
    case 'k': {
      auto v = ParseJson(rest);
      if (!v.ok() || !v->is_object()) return NewBadRequest("invalid key path element " + QuoteJson(s));
      std::vector<std::pair<std::string, json::value>> key;
      for (const auto& kv : v->get_object()) key.emplace_back(std::string(kv.key()), kv.value());
      return Key(std::move(key));
    }
    case 'v': {
      auto v = ParseJson(rest);
      if (!v.ok()) return NewBadRequest("invalid value path element " + QuoteJson(s));
      return Value(std::move(*v));
    }
    case 'i': {
      int64_t i = 0;
      const auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), i);
      if (ec != std::errc() || p != rest.data() + rest.size()) {
        return NewBadRequest("invalid index path element " + QuoteJson(s));
      }
      return Index(i);
    }
    default:
      return NewBadRequest("unknown path element " + QuoteJson(s));
  }
}

int PathElement::Compare(const PathElement& a, const PathElement& b) {
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  switch (a.kind) {
    case Kind::kField: {
      const int c = a.name.compare(b.name);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kKey: {
      for (std::size_t i = 0; i < a.key.size() && i < b.key.size(); ++i) {
        if (int c = a.key[i].first.compare(b.key[i].first); c != 0) return c < 0 ? -1 : 1;
        if (int c = CompareValues(a.key[i].second, b.key[i].second); c != 0) return c;
      }
      return a.key.size() < b.key.size() ? -1 : (a.key.size() > b.key.size() ? 1 : 0);
    }
    case Kind::kValue:
      return CompareValues(a.value, b.value);
    case Kind::kIndex:
      return a.index < b.index ? -1 : (a.index > b.index ? 1 : 0);
  }
  return 0;
}

std::string PathString(const FieldPath& p) {
  std::string s;
  for (const auto& pe : p) s += pe.ToString();
  return s;
}

// ---------------------------------------------------------------------------------------------
// FieldSet

void FieldSet::Insert(const FieldPath& p) {
  if (p.empty()) return;
  FieldSet* node = this;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) node = &node->children_[p[i]];
  node->members_.insert(p.back());
}

bool FieldSet::Has(const FieldPath& p) const {
  if (p.empty()) return false;
  const FieldSet* node = this;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    auto it = node->children_.find(p[i]);
    if (it == node->children_.end()) return false;
    node = &it->second;
  }
  return node->members_.count(p.back()) > 0;
}

bool FieldSet::Empty() const {
  if (!members_.empty()) return false;
  return std::all_of(children_.begin(), children_.end(), [](const auto& c) { return c.second.Empty(); });
}

std::size_t FieldSet::Size() const {
  std::size_t n = members_.size();
  for (const auto& [pe, child] : children_) n += child.Size();
  return n;
}

void FieldSet::Add(const FieldSet& o) {
  members_.insert(o.members_.begin(), o.members_.end());
  for (const auto& [pe, child] : o.children_) {
    auto it = children_.find(pe);
    if (it == children_.end()) {
      if (!child.Empty()) children_.emplace(pe, child);
    } else {
      it->second.Add(child);
    }
  }
}

void FieldSet::Remove(const FieldSet& o) {
  for (const auto& pe : o.members_) members_.erase(pe);
  for (auto it = children_.begin(); it != children_.end();) {
    auto other = o.children_.find(it->first);
    if (other != o.children_.end()) it->second.Remove(other->second);
    it = it->second.Empty() ? children_.erase(it) : std::next(it);
  }
}

FieldSet FieldSet::Union(const FieldSet& o) const {
  FieldSet out = *this;
  out.Add(o);
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& o) const {
  FieldSet out = *this;
  out.Remove(o);
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& o) const {
  FieldSet out;
  for (const auto& pe : members_) {
    if (o.members_.count(pe) > 0) out.members_.insert(pe);
  }
  for (const auto& [pe, child] : children_) {
    auto it = o.children_.find(pe);
    if (it == o.children_.end()) continue;
    FieldSet d = child.Intersection(it->second);
    if (!d.Empty()) out.children_.emplace(pe, std::move(d));
  }
  return out;
}

bool FieldSet::HasMemberBelow(const FieldPath& prefix) const {
  const FieldSet* node = this;
  for (const auto& pe : prefix) {
    auto it = node->children_.find(pe);
    if (it == node->children_.end()) return false;
    node = &it->second;
  }
  return !node->Empty();
}

void FieldSet::IterateFrom(FieldPath& prefix, const std::function<void(const FieldPath&)>& f) const {
  for (const auto& pe : members_) {
    prefix.push_back(pe);
    f(prefix);
    prefix.pop_back();
  }
  for (const auto& [pe, child] : children_) {
    prefix.push_back(pe);
    child.IterateFrom(prefix, f);
    prefix.pop_back();
  }
}

void FieldSet::Iterate(const std::function<void(const FieldPath&)>& f) const {
  FieldPath prefix;
  IterateFrom(prefix, f);
}

json::object FieldSet::ToFieldsV1() const {
  json::object out;
  auto m = members_.begin();
  auto c = children_.begin();
  while (m != members_.end() || c != children_.end()) {
    const bool take_member = c == children_.end() || (m != members_.end() && *m < c->first);
    const bool take_child = m == members_.end() || (c != children_.end() && c->first < *m);
    if (take_member) {
      out[m->ToFieldsV1Key()] = json::object();
      ++m;
    } else if (take_child) {
      if (!c->second.Empty()) out[c->first.ToFieldsV1Key()] = c->second.ToFieldsV1();
      ++c;
    } else {  // both: the node itself and fields below it
      json::object node;
      node["."] = json::object();
      for (auto& kv : c->second.ToFieldsV1()) node[kv.key()] = std::move(kv.value());
      out[m->ToFieldsV1Key()] = std::move(node);
      ++m;
      ++c;
    }
  }
  return out;
}

Result<FieldSet> FieldSet::FromFieldsV1(const json::value& v) {
  if (!v.is_object()) return NewBadRequest("FieldsV1: expected an object, found " + std::string(JsonTypeName(v)));
  FieldSet out;
  for (const auto& kv : v.get_object()) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (key == ".") continue;  // handled by the parent
    auto pe = PathElement::Parse(key);
    if (!pe.ok()) return std::move(pe).error();
    if (!kv.value().is_object()) {
      return NewBadRequest("FieldsV1: " + std::string(key) + ": expected an object");
    }
    const auto& node = kv.value().get_object();
    if (node.empty() || node.contains(".")) out.members_.insert(*pe);
    auto child = FromFieldsV1(kv.value());
    if (!child.ok()) return child;
    if (!child->Empty()) out.children_.emplace(std::move(*pe), std::move(*child));
  }
  return out;
}

bool FieldSet::operator==(const FieldSet& o) const {
  return Difference(o).Empty() && o.Difference(*this).Empty();
}

// ---------------------------------------------------------------------------------------------
// Walking values

Result<std::optional<PathElement>> ListElementPath(const json::value& item, const TypeSchema* schema) {
  if (schema == nullptr) return std::optional<PathElement>();
  switch (schema->list_type) {
    case TypeSchema::ListType::kAtomic:
      return std::optional<PathElement>();
    case TypeSchema::ListType::kSet:
      if (item.is_object() || item.is_array()) {
        return NewBadRequest("associative list without keys has an element that's a map or list type");
      }
      return std::optional<PathElement>(PathElement::Value(item));
    case TypeSchema::ListType::kMap: {
      if (!item.is_object()) return NewBadRequest("expected map, got " + std::string(JsonTypeName(item)));
      std::vector<std::pair<std::string, json::value>> key;
      const TypeSchema* items = ItemsSchema(schema);
      for (const auto& k : schema->list_map_keys) {
        if (const auto* v = item.get_object().if_contains(k)) {
          key.emplace_back(k, *v);
          continue;
        }
        const TypeSchema* ks = MemberSchema(items, k);
        if (ks != nullptr && ks->has_default) {
          key.emplace_back(k, ks->default_value);
          continue;
        }
        return NewBadRequest("associative list with keys has an element that omits key field " + QuoteJson(k) +
                             " (and doesn't have default value)");
      }
      return std::optional<PathElement>(PathElement::Key(std::move(key)));
    }
  }
  return std::optional<PathElement>();
}

namespace {

Result<void> LeafWalk(const json::value& v, const TypeSchema* s, FieldPath& path, FieldSet& out) {
  if (v.is_object()) {
    if (AtomicMap(s)) {
      out.Insert(path);
      return Ok();
    }
    for (const auto& kv : v.get_object()) {
      const std::string_view name(kv.key().data(), kv.key().size());
      path.push_back(PathElement::Field(std::string(name)));
      KUBE_RETURN_IF_ERROR(LeafWalk(kv.value(), MemberSchema(s, name), path, out));
      if (EmptyOrNullObject(&kv.value()) || Undeclared(s, name)) out.Insert(path);
      path.pop_back();
    }
    return Ok();
  }
  if (v.is_array()) {
    if (AtomicList(s)) {
      out.Insert(path);
      return Ok();
    }
    const auto& list = v.get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto pe = ListElementPath(list[i], s);
      if (!pe.ok()) {
        return MakeError(500, "", PathString(path) + ": element " + std::to_string(i) + ": " + pe.error().message);
      }
      path.push_back(**pe);
      KUBE_RETURN_IF_ERROR(LeafWalk(list[i], ItemsSchema(s), path, out));
      out.Insert(path);
      path.pop_back();
    }
    return Ok();
  }
  out.Insert(path);
  return Ok();
}

void LeafRule(const json::value* lhs, const json::value* rhs, const FieldPath& path, Comparison& c) {
  if (lhs == nullptr) {
    c.added.Insert(path);
  } else if (rhs == nullptr) {
    c.removed.Insert(path);
  } else if (!JsonEqual(*lhs, *rhs)) {
    c.modified.Insert(path);
  }
}

// metadata.managedFields (at path .metadata) is the field manager's own bookkeeping.
bool IsManagedFieldsMember(const FieldPath& path, std::string_view name) {
  return path.size() == 1 && path[0].kind == PathElement::Kind::kField && path[0].name == "metadata" &&
         name == "managedFields";
}

const json::value& EmptyObjectValue() {
  static const json::value kEmpty = json::object();
  return kEmpty;
}

Result<void> CompareWalk(const json::value* lhs, const json::value* rhs, const TypeSchema* s, FieldPath& path,
                         Comparison& c, const std::vector<std::string>* implicit, bool rhs_merged);

// The members of two objects (granular map) at `path`. `l_present` / `r_present`: the object
// exists on that side (an absent one has no members, not even those of Go's zero value).
// `rhs_merged`: the new side is a merge result that never went through Go's encoding, so its
// empty maps and slices are there.
Result<void> CompareMembers(const json::object& lo, const json::object& ro, const TypeSchema* s, FieldPath& path,
                           Comparison& c, const std::vector<std::string>* implicit, bool l_present = true,
                           bool r_present = true, bool rhs_merged = false) {
  // Members that a typed Go object always has (its zero value's) count as there where absent;
  // at the root, those named in `implicit` too.
  const bool root = path.empty() && implicit != nullptr;
  auto implied = [&](std::string_view name, const json::value* v, bool present) -> const json::value* {
    if (v != nullptr || !present) return v;
    if (s != nullptr) {
      if (auto it = s->go_zero_members.find(name); it != s->go_zero_members.end()) return &it->second;
    }
    if (!root) return nullptr;
    for (const auto& n : *implicit) {
      if (n == name) return &EmptyObjectValue();
    }
    return nullptr;
  };
  // Go's omitempty drops an empty map or slice member of a typed object: it is absent.
  auto member = [&](const json::object& o, std::string_view name) -> const json::value* {
    const json::value* v = o.if_contains(name);
    if (rhs_merged && &o == &ro) return v;
    if (v == nullptr || s == nullptr || !s->go_type || s->go_zero_members.contains(name)) return v;
    const TypeSchema* m = MemberSchema(s, name);
    if (m == nullptr) return v;
    const bool empty_map = v->is_object() && v->get_object().empty() && m->properties.empty() &&
                           m->additional_properties != nullptr;
    const bool empty_list = v->is_array() && v->get_array().empty() && m->type == TypeSchema::Type::kArray;
    return empty_map || empty_list ? nullptr : v;
  };
  for (const auto& kv : lo) {
    const std::string_view name(kv.key().data(), kv.key().size());
    if (IsManagedFieldsMember(path, name)) continue;
    const json::value* mine = implied(name, member(lo, name), l_present);
    const json::value* other = implied(name, member(ro, name), r_present);
    if (mine == nullptr && other == nullptr) continue;
    path.push_back(PathElement::Field(std::string(name)));
    KUBE_RETURN_IF_ERROR(CompareWalk(mine, other, MemberSchema(s, name), path, c, nullptr, rhs_merged));
    path.pop_back();
  }
  for (const auto& kv : ro) {
    const std::string_view name(kv.key().data(), kv.key().size());
    if (lo.contains(name) || IsManagedFieldsMember(path, name)) continue;
    const json::value* mine = implied(name, nullptr, l_present);
    const json::value* other = member(ro, name);
    if (other == nullptr) continue;
    path.push_back(PathElement::Field(std::string(name)));
    KUBE_RETURN_IF_ERROR(CompareWalk(mine, other, MemberSchema(s, name), path, c, nullptr, rhs_merged));
    path.pop_back();
  }
  return Ok();
}

Result<void> CompareWalk(const json::value* lhs, const json::value* rhs, const TypeSchema* s, FieldPath& path,
                         Comparison& c, const std::vector<std::string>* implicit, bool rhs_merged) {
  auto is = [](const json::value* v, bool (json::value::*pred)() const noexcept) {
    return v == nullptr || v->is_null() || ((*v).*pred)();
  };
  const bool objects = (lhs != nullptr && lhs->is_object()) || (rhs != nullptr && rhs->is_object());
  const bool arrays = (lhs != nullptr && lhs->is_array()) || (rhs != nullptr && rhs->is_array());
  if (objects && is(lhs, &json::value::is_object) && is(rhs, &json::value::is_object)) {
    if (AtomicMap(s) || (EmptyOrNullObject(lhs) && EmptyOrNullObject(rhs))) {
      LeafRule(lhs, rhs, path, c);
      return Ok();
    }
    static const json::object kEmpty;
    const bool l_present = lhs != nullptr && lhs->is_object();
    const bool r_present = rhs != nullptr && rhs->is_object();
    const json::object& lo = l_present ? lhs->get_object() : kEmpty;
    const json::object& ro = r_present ? rhs->get_object() : kEmpty;
    KUBE_RETURN_IF_ERROR(CompareMembers(lo, ro, s, path, c, implicit, l_present, r_present, rhs_merged));
  } else if (arrays && is(lhs, &json::value::is_array) && is(rhs, &json::value::is_array)) {
    if (AtomicList(s) || (EmptyOrNullArray(lhs) && EmptyOrNullArray(rhs))) {
      LeafRule(lhs, rhs, path, c);
      return Ok();
    }
    static const json::array kEmpty;
    const json::array& la = lhs != nullptr && lhs->is_array() ? lhs->get_array() : kEmpty;
    const json::array& ra = rhs != nullptr && rhs->is_array() ? rhs->get_array() : kEmpty;
    auto li = IndexList(la, s, path);
    if (!li.ok()) return std::move(li).error();
    auto ri = IndexList(ra, s, path);
    if (!ri.ok()) return std::move(ri).error();
    std::set<PathElement> seen;
    auto visit = [&](const PathElement& pe) -> Result<void> {
      if (!seen.insert(pe).second) return Ok();
      const auto l = li->first.find(pe);
      const auto r = ri->first.find(pe);
      path.push_back(pe);
      auto res = CompareWalk(l == li->first.end() ? nullptr : &la[l->second],
                             r == ri->first.end() ? nullptr : &ra[r->second], ItemsSchema(s), path, c, nullptr, rhs_merged);
      path.pop_back();
      return res;
    };
    for (const auto& pe : li->pes) KUBE_RETURN_IF_ERROR(visit(pe));
    for (const auto& pe : ri->pes) KUBE_RETURN_IF_ERROR(visit(pe));
  } else {
    LeafRule(lhs, rhs, path, c);
    return Ok();
  }
  // A non-leaf node that appeared or disappeared (structured-merge-diff's postItemHook).
  if (lhs == nullptr) {
    c.added.Insert(path);
  } else if (rhs == nullptr) {
    c.removed.Insert(path);
  }
  return Ok();
}

Result<json::value> MergeWalk(const json::value& live, const json::value& config, const TypeSchema* s,
                              FieldPath& path);

Result<json::value> MergeLists(const json::array& la, const json::array& ra, const TypeSchema* s, FieldPath& path) {
  auto li = IndexList(la, s, path);
  if (!li.ok()) return std::move(li).error();
  auto ri = IndexList(ra, s, path);
  if (!ri.ok()) return std::move(ri).error();
  const TypeSchema* items = ItemsSchema(s);
  json::array out;
  auto merge_item = [&](const PathElement& pe) -> Result<void> {
    const auto l = li->first.find(pe);
    const auto& r = ra[ri->first.at(pe)];
    if (l == li->first.end()) {
      out.push_back(r);
      return Ok();
    }
    path.push_back(pe);
    auto merged = MergeWalk(la[l->second], r, items, path);
    path.pop_back();
    if (!merged.ok()) return std::move(merged).error();
    out.push_back(std::move(*merged));
    return Ok();
  };
  // Elements present on both sides, in the configuration's order.
  std::vector<PathElement> shared;
  for (const auto& pe : ri->pes) {
    if (li->first.count(pe) > 0) shared.push_back(pe);
  }
  std::size_t next_shared = 0;
  auto advance_if = [&](const PathElement& pe) {
    if (next_shared < shared.size() && shared[next_shared] == pe) ++next_shared;
  };
  std::set<PathElement> merged_rhs;
  std::size_t l = 0;
  std::size_t r = 0;
  const std::size_t ln = li->pes.size();
  const std::size_t rn = ri->pes.size();
  while (l < ln || r < rn) {
    if (l < ln && r < rn) {
      const PathElement& pe = li->pes[l];
      if (pe == ri->pes[r]) {
        if (merged_rhs.insert(pe).second) KUBE_RETURN_IF_ERROR(merge_item(pe));
        ++l;
        ++r;
        advance_if(pe);
        continue;
      }
      if (ri->first.count(pe) > 0 && next_shared < shared.size() && !(shared[next_shared] == pe)) {
        ++l;  // a shared element, placed when the configuration reaches it
        continue;
      }
    }
    if (l < ln) {
      const PathElement& pe = li->pes[l];
      if (ri->first.count(pe) == 0) {
        out.push_back(la[l]);  // only live has it
        ++l;
        continue;
      }
      if (merged_rhs.count(pe) > 0) {
        ++l;
        continue;
      }
    }
    if (r < rn) {
      const PathElement& pe = ri->pes[r];
      if (merged_rhs.insert(pe).second) KUBE_RETURN_IF_ERROR(merge_item(pe));
      ++r;
      advance_if(pe);
    }
  }
  return json::value(std::move(out));
}

Result<json::value> MergeWalk(const json::value& live, const json::value& config, const TypeSchema* s,
                              FieldPath& path) {
  if (live.is_object() && (config.is_object() || config.is_null())) {
    if (AtomicMap(s)) return config;
    if (live.get_object().empty() && EmptyOrNullObject(&config)) return config;
    json::object out = live.get_object();
    if (config.is_null()) return json::value(std::move(out));
    for (const auto& kv : config.get_object()) {
      const std::string_view name(kv.key().data(), kv.key().size());
      auto* existing = out.if_contains(name);
      if (existing == nullptr) {
        out[name] = kv.value();
        continue;
      }
      path.push_back(PathElement::Field(std::string(name)));
      auto merged = MergeWalk(*existing, kv.value(), MemberSchema(s, name), path);
      path.pop_back();
      if (!merged.ok()) return merged;
      *existing = std::move(*merged);
    }
    return json::value(std::move(out));
  }
  if (live.is_array() && config.is_array() && !AtomicList(s)) {
    return MergeLists(live.get_array(), config.get_array(), s, path);
  }
  if (config.is_array() && !AtomicList(s)) {
    // Validate the configuration's elements even without a live list.
    auto idx = IndexList(config.get_array(), s, path);
    if (!idx.ok()) return std::move(idx).error();
  }
  return config;
}

// Removes members of `remove` below `v` (at `path`); returns true when `v` itself must go.
bool RemoveWalk(json::value& v, const FieldSet& remove, const FieldSet& keep, const TypeSchema* s, FieldPath& path,
                const std::vector<std::string>* protected_keys) {
  const bool self = !path.empty() && remove.Has(path) && !keep.Has(path) && !keep.HasMemberBelow(path);
  if (self) return true;
  if (!remove.HasMemberBelow(path) && !path.empty()) return false;
  if (v.is_object()) {
    auto& o = v.get_object();
    std::vector<std::string> erase;
    for (auto& kv : o) {
      const std::string name(kv.key());
      if (protected_keys != nullptr &&
          std::find(protected_keys->begin(), protected_keys->end(), name) != protected_keys->end()) {
        continue;
      }
      path.push_back(PathElement::Field(name));
      if (RemoveWalk(kv.value(), remove, keep, MemberSchema(s, name), path, nullptr)) erase.push_back(name);
      path.pop_back();
    }
    if (!erase.empty()) {
      // Rebuilt rather than erased: json::object::erase moves the last member into the hole.
      json::object kept(o.storage());
      for (auto& kv : o) {
        if (std::find(erase.begin(), erase.end(), std::string_view(kv.key())) == erase.end()) {
          kept[kv.key()] = std::move(kv.value());
        }
      }
      o = std::move(kept);
    }
  } else if (v.is_array() && !AtomicList(s)) {
    auto& a = v.get_array();
    json::array kept;
    const std::vector<std::string>* keys =
        s->list_type == TypeSchema::ListType::kMap ? &s->list_map_keys : nullptr;
    for (auto& item : a) {
      auto pe = ListElementPath(item, s);
      if (!pe.ok() || !pe->has_value()) {
        kept.push_back(std::move(item));
        continue;
      }
      path.push_back(**pe);
      const bool drop = RemoveWalk(item, remove, keep, ItemsSchema(s), path, keys);
      path.pop_back();
      if (!drop) kept.push_back(std::move(item));
    }
    a = std::move(kept);
  }
  return false;
}

// --- managedFields entries ---

bool SameIdentity(const ManagedEntry& e, std::string_view manager, std::string_view operation,
                  std::string_view subresource, std::string_view api_version) {
  return e.manager == manager && e.operation == operation && e.subresource == subresource &&
         (operation == "Apply" || e.api_version == api_version);
}

FieldSet StripMeta(const FieldSet& s) { return s.Difference(StrippedFields()); }

// kube's capManagersManager: more than kMaxUpdateManagers Update entries -> the oldest are merged,
// per apiVersion, into an `ancient-changes` entry (the first one of a version becomes the bucket
// once a second one joins it).
constexpr std::size_t kMaxUpdateManagers = 10;
void CapUpdateManagers(std::vector<ManagedEntry>& managed) {
  std::vector<std::size_t> updaters;
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (managed[i].operation == "Update" && !managed[i].fields.Empty()) updaters.push_back(i);
  }
  if (updaters.size() <= kMaxUpdateManagers) return;
  std::stable_sort(updaters.begin(), updaters.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(managed[a].time, managed[a].manager, managed[a].subresource) <
           std::tie(managed[b].time, managed[b].manager, managed[b].subresource);
  });
  std::map<std::string, std::size_t> first_of_version;  // apiVersion -> entry index
  std::size_t length = updaters.size();
  std::vector<bool> dropped(managed.size(), false);
  for (std::size_t k = 0; k < updaters.size() && length > kMaxUpdateManagers; ++k) {
    const std::size_t i = updaters[k];
    auto first = first_of_version.find(managed[i].api_version);
    if (first == first_of_version.end()) {
      first_of_version.emplace(managed[i].api_version, i);
      continue;
    }
    ManagedEntry& bucket = managed[first->second];
    if (bucket.manager != "ancient-changes" || !bucket.subresource.empty()) {
      bucket.manager = "ancient-changes";
      bucket.subresource.clear();
    }
    bucket.fields = bucket.fields.Union(managed[i].fields);
    bucket.time = managed[i].time;  // the more recent one
    dropped[i] = true;
    --length;
  }
  std::vector<ManagedEntry> kept;
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (!dropped[i]) kept.push_back(std::move(managed[i]));
  }
  managed = std::move(kept);
}

// The object without metadata.managedFields (what the field walks see).
json::value WithoutManagedFields(const json::object& obj) {
  json::object copy = obj;
  if (auto* meta = ObjectAt(copy, "metadata")) meta->erase("managedFields");
  return json::value(std::move(copy));
}

}  // namespace

Result<FieldSet> LeafFieldSet(const json::value& obj, const TypeSchema* schema) {
  FieldSet out;
  FieldPath path;
  KUBE_RETURN_IF_ERROR(LeafWalk(obj, schema, path, out));
  return out;
}

Result<Comparison> CompareObjects(const json::value* lhs, const json::value* rhs, const TypeSchema* schema,
                                  const std::vector<std::string>& implicit, bool rhs_merged) {
  Comparison c;
  FieldPath path;
  if (lhs == nullptr && rhs == nullptr) return c;
  KUBE_RETURN_IF_ERROR(CompareWalk(lhs, rhs, schema, path, c, &implicit, rhs_merged));
  return c;
}

Result<json::value> MergeApplied(const json::value& live, const json::value& config, const TypeSchema* schema) {
  FieldPath path;
  return MergeWalk(live, config, schema, path);
}

void RemoveFields(json::value& obj, const FieldSet& remove, const FieldSet& keep, const TypeSchema* schema) {
  FieldPath path;
  RemoveWalk(obj, remove, keep, schema, path, nullptr);
}

bool ManagedEntry::SameManager(const ManagedEntry& o) const {
  return SameIdentity(*this, o.manager, o.operation, o.subresource, o.api_version);
}

std::string ManagedEntry::Describe() const {
  std::string s = QuoteJson(manager);
  if (!subresource.empty()) s += " with subresource " + QuoteJson(subresource);
  if (operation == "Update") s += " using " + api_version;
  return s;
}

Result<std::vector<ManagedEntry>> DecodeManagedFields(const json::object& obj) {
  std::vector<ManagedEntry> out;
  const auto* v = MetadataOf(obj).if_contains("managedFields");
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return NewBadRequest("metadata.managedFields: expected an array");
  for (const auto& e : v->get_array()) {
    if (!e.is_object()) return NewBadRequest("metadata.managedFields: expected objects");
    const auto& o = e.get_object();
    ManagedEntry m;
    m.manager = std::string(StringAt(o, "manager"));
    m.operation = std::string(StringAt(o, "operation"));
    m.api_version = std::string(StringAt(o, "apiVersion"));
    m.time = std::string(StringAt(o, "time"));
    m.subresource = std::string(StringAt(o, "subresource"));
    const auto type = StringAt(o, "fieldsType");
    if (type != "FieldsV1") {
      return NewBadRequest(type.empty() ? "missing fieldsType in managed fields entry"
                                        : "invalid fieldsType " + QuoteJson(type) + " in managed fields entry");
    }
    if (const auto* f = o.if_contains("fieldsV1"); f != nullptr && !f->is_null()) {
      auto set = FieldSet::FromFieldsV1(*f);
      if (!set.ok()) return std::move(set).error();
      m.fields = std::move(*set);
    }
    // Entries of one manager identity are merged (kube keeps one per identity).
    auto same = std::find_if(out.begin(), out.end(), [&](const ManagedEntry& x) { return x.SameManager(m); });
    if (same != out.end()) {
      same->fields = same->fields.Union(m.fields);
      continue;
    }
    out.push_back(std::move(m));
  }
  return out;
}

void EncodeManagedFields(json::object& obj, std::vector<ManagedEntry> entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const ManagedEntry& e) { return e.fields.Empty(); }),
                entries.end());
  std::stable_sort(entries.begin(), entries.end(), [](const ManagedEntry& p, const ManagedEntry& q) {
    // RFC 3339 seconds in UTC sort as text; an absent time counts as the epoch.
    return std::tie(p.operation, p.time, p.manager, p.api_version, p.subresource) <
           std::tie(q.operation, q.time, q.manager, q.api_version, q.subresource);
  });
  auto& meta = EnsureObject(obj, "metadata");
  if (entries.empty()) {
    meta.erase("managedFields");
    return;
  }
  json::array list;
  for (const auto& e : entries) {
    json::object o;
    o["manager"] = e.manager;
    o["operation"] = e.operation;
    if (!e.api_version.empty()) o["apiVersion"] = e.api_version;
    if (!e.time.empty()) o["time"] = e.time;
    o["fieldsType"] = "FieldsV1";
    o["fieldsV1"] = e.fields.ToFieldsV1();
    if (!e.subresource.empty()) o["subresource"] = e.subresource;
    list.push_back(std::move(o));
  }
  meta["managedFields"] = std::move(list);
}

const FieldSet& StrippedFields() {
  static const FieldSet kStripped = [] {
    FieldSet s;
    auto f = [](std::string n) { return PathElement::Field(std::move(n)); };
    s.Insert({f("apiVersion")});
    s.Insert({f("kind")});
    s.Insert({f("metadata")});
    for (const char* m : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                          "managedFields", "resourceVersion"}) {
      s.Insert({f("metadata"), f(m)});
    }
    return s;
  }();
  return kStripped;
}

void TrackUpdate(const json::object* live, json::object& obj, const WriteManager& who, const TypeSchema* schema,
                 const TrackOptions& options) {
  const json::value* live_list = live != nullptr ? MetadataOf(*live).if_contains("managedFields") : nullptr;
  // The entries the write starts from (as JSON; decoded only when something changed).
  json::value source;
  std::optional<std::vector<ManagedEntry>> managed;
  if (who.subresource.empty()) {
    const auto* body = MetadataOf(obj).if_contains("managedFields");
    if (body != nullptr && body->is_array() && !body->get_array().empty()) {
      // `[{}]` (only empty entries) resets the managed fields (kube's documented way to clear them).
      const auto& list = body->get_array();
      if (std::all_of(list.begin(), list.end(), [](const json::value& e) { return e.is_object() && e.get_object().empty(); })) {
        EnsureObject(obj, "metadata").erase("managedFields");
        return;
      }
      if (live_list != nullptr && JsonEqual(*body, *live_list)) {
        source = *body;  // what the client read back: known to decode
      } else if (auto decoded = DecodeManagedFields(obj); decoded.ok()) {
        source = *body;
        managed = std::move(*decoded);
      }
    }
  }
  if (source.is_null() && live_list != nullptr) source = *live_list;
  const bool no_entries = !source.is_array() || source.get_array().empty();
  if (no_entries && live != nullptr) {
    // kube's skipNonApplied: an existing object without managed fields stays untracked.
    EnsureObject(obj, "metadata").erase("managedFields");
    return;
  }
  // Compared in place (the walk skips metadata.managedFields); a create compares with nothing.
  static const json::object kNothing;
  Comparison comparison;
  FieldPath root;
  Result<void> cmp = CompareMembers(live != nullptr ? *live : kNothing, obj, schema, root, comparison, &options.implicit);
  if (!cmp.ok()) {
    // kube's UpdateNoErrors: on failure the managed fields are dropped rather than left wrong.
    EnsureObject(obj, "metadata").erase("managedFields");
    return;
  }
  if (live != nullptr && comparison.added.Empty() && comparison.modified.Empty() && comparison.removed.Empty() &&
      !managed.has_value()) {
    // Nothing changed hands: the entries stay exactly as they are (no decode/encode).
    EnsureObject(obj, "metadata")["managedFields"] = std::move(source);
    return;
  }
  if (!managed.has_value()) {
    json::object holder;
    if (!no_entries) holder["metadata"] = json::object{{"managedFields", source}};
    auto decoded = DecodeManagedFields(holder);
    if (!decoded.ok()) {
      EnsureObject(obj, "metadata").erase("managedFields");
      return;
    }
    managed = std::move(*decoded);
  }
  const Comparison* cmp_result = &comparison;
  FieldSet changed = StripMeta(cmp_result->modified.Union(cmp_result->added));
  for (const auto& name : options.ignored) {
    // The member (a dotted path of fields) and everything below it.
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      const auto dot = name.find('.', start);
      fields.emplace_back(std::string_view(name).substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    FieldSet below;
    changed.Iterate([&](const FieldPath& p) {
      if (p.size() < fields.size()) return;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (p[i].kind != PathElement::Kind::kField || p[i].name != fields[i]) return;
      }
      below.Insert(p);
    });
    changed = changed.Difference(below);
  }
  const FieldSet& removed = cmp_result->removed;
  for (auto& e : *managed) {
    e.fields.Remove(removed);
    e.fields.Remove(changed);
    e.fields.Remove(StrippedFields());
  }
  if (!changed.Empty()) {
    auto self = std::find_if(managed->begin(), managed->end(), [&](const ManagedEntry& e) {
      return SameIdentity(e, who.manager, "Update", who.subresource, who.api_version);
    });
    if (self == managed->end()) {
      managed->push_back(ManagedEntry{who.manager, "Update", who.api_version, who.time, who.subresource, changed});
    } else {
      self->fields.Add(changed);
      self->time = who.time;
    }
  }
  CapUpdateManagers(*managed);
  EncodeManagedFields(obj, std::move(*managed));
}

Result<ApplyOutcome> ApplyConfiguration(const json::object* live, const json::object& config, const WriteManager& who,
                                        bool force, const TypeSchema* schema) {
  std::vector<ManagedEntry> managed;
  if (live != nullptr) {
    auto decoded = DecodeManagedFields(*live);
    if (!decoded.ok()) return MakeError(500, "", "failed to decode managed fields: " + decoded.error().message);
    managed = std::move(*decoded);
  }
  const json::value live_value = live != nullptr ? WithoutManagedFields(*live) : json::value(json::object());
  const json::value config_value(config);
  auto config_set = LeafFieldSet(config_value, schema);
  if (!config_set.ok()) {
    return MakeError(500, "", "failed to create typed patch object: " + config_set.error().message);
  }
  auto merged = MergeApplied(live_value, config_value, schema);
  if (!merged.ok()) return MakeError(500, "", "failed to create typed patch object: " + merged.error().message);

  std::size_t self = managed.size();  // index of this manager's Apply entry (size = none)
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (SameIdentity(managed[i], who.manager, "Apply", who.subresource, "")) self = i;
  }
  const FieldSet applied = StripMeta(*config_set);
  FieldSet last;
  if (self < managed.size()) last = managed[self].fields;

  // Prune what this manager applied before and no longer applies, unless someone else owns it.
  if (!last.Empty()) {
    FieldSet others = applied;
    for (std::size_t i = 0; i < managed.size(); ++i) {
      if (i != self) others = others.Union(managed[i].fields);
    }
    const FieldSet drop = last.Difference(others);
    if (!drop.Empty()) RemoveFields(*merged, drop, others, schema);
  }

  // As structured-merge-diff compares them: the merged value is typed, not yet Go-encoded.
  auto cmp = CompareObjects(&live_value, &*merged, schema, {}, /*rhs_merged=*/true);
  if (!cmp.ok()) return MakeError(500, "", "failed to compare objects: " + cmp.error().message);
  const FieldSet changed = cmp->modified.Union(cmp->added);

  // Conflicts: fields of other managers whose value this apply changes.
  struct Conflict {
    std::string manager;  // printed form
    FieldPath path;
  };
  std::vector<std::pair<std::size_t, FieldSet>> conflicting;
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (i == self) continue;
    FieldSet c = managed[i].fields.Intersection(changed);
    if (!c.Empty()) conflicting.emplace_back(i, std::move(c));
  }
  if (!conflicting.empty() && !force) {
    std::vector<Conflict> conflicts;
    for (const auto& [i, set] : conflicting) {
      const std::string who_desc = managed[i].Describe();
      set.Iterate([&](const FieldPath& p) { conflicts.push_back({who_desc, p}); });
    }
    std::stable_sort(conflicts.begin(), conflicts.end(),
                     [](const Conflict& a, const Conflict& b) { return a.manager < b.manager; });
    std::vector<StatusCause> causes;
    for (const auto& c : conflicts) causes.push_back({"FieldManagerConflict", "conflict with " + c.manager, PathString(c.path)});
    std::string message;
    if (conflicts.size() == 1) {
      message = "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " + PathString(conflicts[0].path);
    } else {
      message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
      std::string previous;
      bool first = true;
      for (const auto& c : conflicts) {
        if (first || c.manager != previous) {
          message += (first ? "" : "\n") + std::string("conflicts with ") + c.manager + ":";
          previous = c.manager;
          first = false;
        }
        message += "\n- " + PathString(c.path);
      }
    }
    return NewApplyConflict(std::move(causes), std::move(message));
  }
  for (const auto& [i, set] : conflicting) managed[i].fields = managed[i].fields.Difference(set);
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (i == self) continue;
    managed[i].fields = StripMeta(managed[i].fields.Difference(cmp->removed));
  }

  ApplyOutcome out;
  out.changed = !JsonEqual(live_value, *merged);
  if (self == managed.size()) {
    managed.push_back(ManagedEntry{who.manager, "Apply", who.api_version, who.time, who.subresource, applied});
  } else {
    managed[self].fields = applied;
    managed[self].api_version = who.api_version;
    if (out.changed || managed[self].time.empty()) managed[self].time = who.time;
  }
  if (!merged->is_object()) return MakeError(500, "", "the applied object is not a JSON object");
  out.object = std::move(merged->get_object());
  CapUpdateManagers(managed);
  EncodeManagedFields(out.object, std::move(managed));
  return out;
}

std::string ManagerFromUserAgent(std::string_view user_agent) {
  const std::string_view head = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (char ch : head) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) continue;  // non-printable (ASCII); UTF-8 bytes pass through
    if (out.size() + 1 > kFieldManagerMaxLength) break;
    out.push_back(ch);
  }
  // Never cut a UTF-8 sequence in half.
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
    std::size_t start = out.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(out[start]) & 0xC0) == 0x80) --start;
    const auto lead = static_cast<unsigned char>(out[start]);
    const std::size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (out.size() - start == want) break;
    out.resize(start);
  }
  return out;
}

std::vector<FieldError> ValidateFieldManager(std::string_view field_manager) {
  std::vector<FieldError> errs;
  if (field_manager.size() > kFieldManagerMaxLength) {
    errs.push_back(FieldError::TooLong("fieldManager", "may not be more than 128 bytes"));
  }
  for (std::size_t i = 0; i < field_manager.size(); ++i) {
    const auto c = static_cast<unsigned char>(field_manager[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", c);
      errs.push_back(FieldError::Invalid("fieldManager", QuoteJson(field_manager),
                                         "invalid character " + std::string(buf) + " (at position " +
                                             std::to_string(i) + ")"));
    }
  }
  return errs;
}

}  // namespace kube::apiserver::rest
