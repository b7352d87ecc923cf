#include <kube/cache/indexer.hpp>

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "store_key.hpp"

namespace kube::cache {

using internal::HashKeyParts;
using internal::KeyPartsEqual;

std::string MetaNamespaceKeyFunc(const Object& obj) { return obj.Key(); }

std::vector<std::string> MetaNamespaceIndexFunc(const Object& obj) {
  return {std::string(obj.Namespace())};
}

bool Indexer::KeyEq::operator()(const Stored& a, const Stored& b) const {
  if (a.hash != b.hash) return false;
  if (a.obj == b.obj) return true;
  if (custom) return (*custom)(*a.obj) == (*custom)(*b.obj);
  return a.obj->Name() == b.obj->Name() && a.obj->Namespace() == b.obj->Namespace();
}

bool Indexer::KeyEq::operator()(const Stored& a, std::string_view b) const {
  if (custom) return (*custom)(*a.obj) == b;
  return KeyPartsEqual(*a.obj, b);
}

Indexer::Stored Indexer::MakeStored(const ObjectPtr& obj) const {
  if (custom_key_) return Stored{obj, std::hash<std::string_view>{}((*custom_key_)(*obj))};
  return Stored{obj, HashKeyParts(obj->Namespace(), obj->Name())};
}

Indexer::Indexer(Indexers indexers, KeyFunc key_func)
    : key_func_(std::move(key_func)),
      custom_key_(key_func_ ? &key_func_ : nullptr),
      items_(0, KeyHash{}, KeyEq{custom_key_}, BlockPoolAllocator<Stored>(&pool_)) {
  WriterLock lock(mu_);
  const bool builtin_ns = !indexers.contains(std::string(kNamespaceIndex));
  if (builtin_ns) indexers.emplace(std::string(kNamespaceIndex), MetaNamespaceIndexFunc);
  for (auto& [name, fn] : indexers) {
    if (builtin_ns && name == kNamespaceIndex) builtin_ns_index_ = index_names_.size();
    index_names_.push_back(name);
    index_funcs_.push_back(std::move(fn));
    postings_.emplace_back();
  }
}

std::string Indexer::KeyOf(const Object& obj) const {
  return custom_key_ ? (*custom_key_)(obj) : obj.Key();
}

std::optional<std::size_t> Indexer::IndexNumber(std::string_view name) const {
  for (std::size_t i = 0; i < index_names_.size(); ++i) {
    if (index_names_[i] == name) return i;
  }
  return std::nullopt;
}

void Indexer::PostLocked(std::size_t index, std::string_view value, const Stored& s) {
  Postings& postings = postings_[index];
  auto it = postings.find(value);
  if (it == postings.end()) it = postings.emplace(std::string(value), NewSet()).first;
  it->second.insert(s);
}

void Indexer::UnpostLocked(std::size_t index, std::string_view value, const Stored& s) {
  Postings& postings = postings_[index];
  auto it = postings.find(value);
  if (it == postings.end()) return;
  it->second.erase(s);
  if (it->second.empty()) postings.erase(it);
}

void Indexer::IndexLocked(std::size_t index, const Stored& s) {
  if (index == builtin_ns_index_) {
    PostLocked(index, s.obj->Namespace(), s);
    return;
  }
  for (const auto& value : index_funcs_[index](*s.obj)) PostLocked(index, value, s);
}

void Indexer::UnindexLocked(std::size_t index, const Stored& s) {
  // Index values are recomputed from the stored object (as client-go does) instead of being kept.
  if (index == builtin_ns_index_) {
    UnpostLocked(index, s.obj->Namespace(), s);
    return;
  }
  for (const auto& value : index_funcs_[index](*s.obj)) UnpostLocked(index, value, s);
}

void Indexer::RemoveLocked(const Stored& stored) {
  for (std::size_t i = 0; i < index_funcs_.size(); ++i) UnindexLocked(i, stored);
  items_.erase(stored);
}

ObjectPtr Indexer::AddLocked(const ObjectPtr& obj) {
  const Stored s = MakeStored(obj);
  ObjectPtr old;
  auto it = items_.find(s);
  if (it == items_.end()) {
    items_.insert(s);
    for (std::size_t i = 0; i < index_funcs_.size(); ++i) IndexLocked(i, s);
    return old;
  }
  const Stored prev = *it;
  old = prev.obj;
  for (std::size_t i = 0; i < index_funcs_.size(); ++i) {
    if (i == builtin_ns_index_ && custom_key_ == nullptr) {
      // The store key is "<namespace>/<name>": an object replacing one with the same key has
      // the same namespace, so its namespace posting only needs the new pointer (no erase and
      // insert, no second look at the replaced object).
      auto posting = postings_[i].find(obj->Namespace());
      if (posting != postings_[i].end()) {
        auto entry = posting->second.find(s);
        if (entry != posting->second.end()) {
          const_cast<Stored&>(*entry).obj = obj;  // hash and key unchanged: the set stays valid
          continue;
        }
      }
    }
    UnindexLocked(i, prev);
    IndexLocked(i, s);
  }
  // Same key, same hash: replace the pointer in place rather than erase and insert.
  const_cast<Stored&>(*it).obj = obj;
  return old;
}

void Indexer::Add(const ObjectPtr& obj) {
  if (!obj) return;
  WriterLock lock(mu_);
  AddLocked(obj);
}

ObjectPtr Indexer::Upsert(const ObjectPtr& obj) {
  if (!obj) return nullptr;
  WriterLock lock(mu_);
  return AddLocked(obj);
}

void Indexer::Delete(const Object& obj) { DeleteKey(KeyOf(obj)); }

void Indexer::DeleteKey(std::string_view key) {
  WriterLock lock(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return;
  const Stored stored = *it;
  RemoveLocked(stored);
}

void Indexer::Replace(const std::vector<ObjectPtr>& objects) {
  WriterLock lock(mu_);
  items_.clear();
  for (auto& p : postings_) p.clear();
  items_.reserve(objects.size());
  for (const auto& obj : objects) {
    if (obj) AddLocked(obj);
  }
}

ObjectPtr Indexer::GetByKey(std::string_view key) const {
  ReaderLock lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->obj;
}

ObjectPtr Indexer::Get(const Object& obj) const { return GetByKey(KeyOf(obj)); }

std::vector<std::string> Indexer::ListKeys() const {
  ReaderLock lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(items_.size());
  for (const auto& s : items_) keys.push_back(KeyOf(*s.obj));
  return keys;
}

std::vector<ObjectPtr> Indexer::List() const {
  ReaderLock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& s : items_) out.push_back(s.obj);
  return out;
}

void Indexer::Reserve(std::size_t n) {
  WriterLock lock(mu_);
  if (n > items_.size()) items_.reserve(n);
}

std::size_t Indexer::Size() const {
  ReaderLock lock(mu_);
  return items_.size();
}

Result<std::vector<ObjectPtr>> Indexer::Index(std::string_view index_name, const Object& obj) const {
  ReaderLock lock(mu_);
  auto idx = IndexNumber(index_name);
  if (!idx) return MakeError(404, reason::kNotFound, fmt::format("index with name {} does not exist", index_name));
  std::vector<ObjectPtr> out;
  const auto values = index_funcs_[*idx](obj);
  if (values.size() == 1) {
    auto it = postings_[*idx].find(values[0]);
    if (it != postings_[*idx].end()) {
      out.reserve(it->second.size());
      for (const auto& s : it->second) out.push_back(s.obj);
    }
    return out;
  }
  ObjectSet seen = ScratchSet();
  for (const auto& v : values) {
    auto it = postings_[*idx].find(v);
    if (it == postings_[*idx].end()) continue;
    for (const auto& o : it->second) {
      if (seen.insert(o).second) out.push_back(o.obj);
    }
  }
  return out;
}

Result<std::vector<ObjectPtr>> Indexer::ByIndex(std::string_view index_name, std::string_view value) const {
  ReaderLock lock(mu_);
  auto idx = IndexNumber(index_name);
  if (!idx) return MakeError(404, reason::kNotFound, fmt::format("index with name {} does not exist", index_name));
  auto it = postings_[*idx].find(value);
  if (it == postings_[*idx].end()) return std::vector<ObjectPtr>{};
  std::vector<ObjectPtr> out;
  out.reserve(it->second.size());
  for (const auto& s : it->second) out.push_back(s.obj);
  return out;
}

Result<std::vector<std::string>> Indexer::IndexKeys(std::string_view index_name, std::string_view value) const {
  auto objects = ByIndex(index_name, value);
  if (!objects.ok()) return std::move(objects).error();
  std::vector<std::string> keys;
  keys.reserve(objects->size());
  for (const auto& o : *objects) keys.push_back(KeyOf(*o));
  return keys;
}

std::vector<std::string> Indexer::ListIndexFuncValues(std::string_view index_name) const {
  ReaderLock lock(mu_);
  std::vector<std::string> out;
  auto idx = IndexNumber(index_name);
  if (!idx) return out;
  out.reserve(postings_[*idx].size());
  for (const auto& [value, set] : postings_[*idx]) out.push_back(value);
  return out;
}

Result<void> Indexer::AddIndexers(const Indexers& indexers) {
  WriterLock lock(mu_);
  for (const auto& [name, fn] : indexers) {
    if (IndexNumber(name)) {
      return MakeError(409, reason::kAlreadyExists, fmt::format("indexer conflict: {}", name));
    }
  }
  for (const auto& [name, fn] : indexers) {
    index_names_.push_back(name);
    index_funcs_.push_back(fn);
    postings_.emplace_back();
    for (const auto& s : items_) IndexLocked(index_names_.size() - 1, s);
  }
  return Ok();
}

std::vector<ObjectPtr> Lister::List(const LabelSelector& selector) const {
  auto all = indexer_.List();
  if (selector.Empty()) return all;
  std::vector<ObjectPtr> out;
  for (auto& o : all) {
    if (selector.Matches(o->Labels())) out.push_back(std::move(o));
  }
  return out;
}

std::vector<ObjectPtr> Lister::List(std::string_view ns, const LabelSelector& selector) const {
  auto in_ns = indexer_.ByIndex(kNamespaceIndex, ns);
  std::vector<ObjectPtr> out;
  if (!in_ns.ok()) return out;  // the namespace index always exists
  for (auto& o : *in_ns) {
    if (selector.Empty() || selector.Matches(o->Labels())) out.push_back(std::move(o));
  }
  return out;
}

Result<ObjectPtr> Lister::Get(std::string_view ns, std::string_view name) const {
  std::string key = ns.empty() ? std::string(name) : fmt::format("{}/{}", ns, name);
  auto obj = indexer_.GetByKey(key);
  if (!obj) return MakeError(404, reason::kNotFound, fmt::format("\"{}\" not found", key));
  return obj;
}

}  // namespace kube::cache
