#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <kube/base/large_array_allocator.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/object.hpp>

namespace kube::cache {

/// Computes an object's store key; the default is MetaNamespaceKeyFunc ("ns/name" or "name").
using KeyFunc = std::function<std::string(const Object&)>;
/// client-go's MetaNamespaceKeyFunc.
std::string MetaNamespaceKeyFunc(const Object& obj);

/// Computes the values an object is indexed under for one named index.
using IndexFunc = std::function<std::vector<std::string>(const Object&)>;
/// Named index functions.
using Indexers = std::map<std::string, IndexFunc>;

/// The name of the built-in namespace index.
inline constexpr std::string_view kNamespaceIndex = "namespace";
/// Indexes by metadata.namespace (client-go MetaNamespaceIndexFunc).
std::vector<std::string> MetaNamespaceIndexFunc(const Object& obj);

/// The read side of a store, as DeltaFIFO's KnownObjects and listers see it.
class KeyListerGetter {
 public:
  virtual ~KeyListerGetter() = default;
  /// Every key in the store.
  virtual std::vector<std::string> ListKeys() const = 0;
  /// The object stored under `key`, or nullptr.
  virtual ObjectPtr GetByKey(std::string_view key) const = 0;
  /// True when the store holds no key (override when cheaper than listing the keys).
  virtual bool Empty() const { return ListKeys().empty(); }
};

/// client-go's Indexer over a ThreadSafeStore: objects by key plus named indexes, updated
/// atomically with the object. Objects are immutable `ObjectPtr`s; readers get shared snapshots.
/// **Thread-safety:** all members may be called concurrently (a reader-writer lock: many readers).
class Indexer final : public KeyListerGetter {
 public:
  /// A store with the namespace index and `indexers`. `key_func` defaults to MetaNamespaceKeyFunc.
  explicit Indexer(Indexers indexers = {}, KeyFunc key_func = {});

  /// Inserts or replaces `obj` under its key.
  void Add(const ObjectPtr& obj);
  /// Like Add, and returns the object `obj` replaced (nullptr if its key was new), read under the
  /// same lock as the write (what an informer needs to tell an add from an update).
  ObjectPtr Upsert(const ObjectPtr& obj);
  /// Same as Add (client-go keeps both names).
  void Update(const ObjectPtr& obj) { Add(obj); }
  /// Removes the object's key.
  void Delete(const Object& obj);
  /// Removes `key`.
  void DeleteKey(std::string_view key);
  /// Replaces the whole content atomically.
  void Replace(const std::vector<ObjectPtr>& objects);

  ObjectPtr GetByKey(std::string_view key) const override;
  /// The stored object with `obj`'s key, or nullptr.
  ObjectPtr Get(const Object& obj) const;
  std::vector<std::string> ListKeys() const override;
  /// Every object (unordered).
  std::vector<ObjectPtr> List() const;
  std::size_t Size() const;
  bool Empty() const override { return Size() == 0; }
  /// Makes room for `n` objects in all (no effect when there is room already), so that adding
  /// them one by one does not grow the store in steps. Content and indexes are unchanged.
  void Reserve(std::size_t n);
  /// The key of `obj` per this store's KeyFunc.
  std::string KeyOf(const Object& obj) const;

  /// Objects whose `index_name` values intersect `obj`'s. **Errors:** NotFound for an unknown index.
  Result<std::vector<ObjectPtr>> Index(std::string_view index_name, const Object& obj) const;
  /// Objects indexed under `value`. **Errors:** NotFound for an unknown index.
  Result<std::vector<ObjectPtr>> ByIndex(std::string_view index_name, std::string_view value) const;
  /// Keys indexed under `value`. **Errors:** NotFound for an unknown index.
  Result<std::vector<std::string>> IndexKeys(std::string_view index_name, std::string_view value) const;
  /// Every value of the index that has at least one object.
  std::vector<std::string> ListIndexFuncValues(std::string_view index_name) const;
  /// Adds index functions; indexes are built for the current content.
  /// **Errors:** AlreadyExists when a name is taken.
  Result<void> AddIndexers(const Indexers& indexers);

 private:
  // Objects are stored in hash sets keyed by their store key, computed from the object itself
  // (no key strings are kept). Each entry carries its key's hash, so that growing a set never
  // goes back to the objects (a rehash of 100k entries would otherwise read 100k cold objects):
  // 24 bytes per object in the store plus 24 per index.
  struct Stored {
    ObjectPtr obj;
    std::size_t hash = 0;  // std::hash<std::string_view> of the store key
  };
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(const Stored& s) const { return s.hash; }
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  struct KeyEq {
    using is_transparent = void;
    const KeyFunc* custom = nullptr;  // nullptr = MetaNamespaceKeyFunc, compared without allocating
    bool operator()(const Stored& a, const Stored& b) const;
    bool operator()(const Stored& a, std::string_view b) const;
    bool operator()(std::string_view a, const Stored& b) const { return (*this)(b, a); }
  };
  using ObjectSet = boost::unordered_flat_set<Stored, KeyHash, KeyEq, BlockPoolAllocator<Stored>>;
  struct ValueHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // index value -> objects; looked up by string_view without building a string.
  using Postings = boost::unordered_flat_map<std::string, ObjectSet, ValueHash, std::equal_to<>>;

  // An empty store or posting set, drawing on pool_ (writers only: they hold mu_ exclusively).
  ObjectSet NewSet() KUBE_REQUIRES(mu_) {
    return ObjectSet(0, KeyHash{}, KeyEq{custom_key_}, BlockPoolAllocator<Stored>(&pool_));
  }
  // An empty set for a reader's own use (readers may run concurrently: not from pool_).
  ObjectSet ScratchSet() const { return ObjectSet(0, KeyHash{}, KeyEq{custom_key_}, BlockPoolAllocator<Stored>(nullptr)); }
  Stored MakeStored(const ObjectPtr& obj) const;
  ObjectPtr AddLocked(const ObjectPtr& obj) KUBE_REQUIRES(mu_);  // returns the replaced object
  void PostLocked(std::size_t index, std::string_view value, const Stored& s) KUBE_REQUIRES(mu_);
  void UnpostLocked(std::size_t index, std::string_view value, const Stored& s) KUBE_REQUIRES(mu_);
  void RemoveLocked(const Stored& stored) KUBE_REQUIRES(mu_);
  void IndexLocked(std::size_t index, const Stored& s) KUBE_REQUIRES(mu_);
  void UnindexLocked(std::size_t index, const Stored& s) KUBE_REQUIRES(mu_);
  std::optional<std::size_t> IndexNumber(std::string_view name) const KUBE_REQUIRES_SHARED(mu_);

  KeyFunc key_func_;
  const KeyFunc* custom_key_ = nullptr;  // &key_func_ when a custom KeyFunc was given
  // Position of the built-in namespace index (MetaNamespaceIndexFunc, added by the constructor),
  // computed inline from obj.Namespace() instead of through the std::function and its vector.
  std::optional<std::size_t> builtin_ns_index_;
  mutable SharedMutex mu_;
  // The memory of items_ and of the posting sets. Beyond 1 MiB of it in use, it comes from
  // huge-page slabs: 100k objects in 100 namespaces would otherwise touch about 1,200 new small
  // pages as their tables grow. Declared before the sets it backs.
  HugePageBlockPool pool_ KUBE_GUARDED_BY(mu_){std::size_t{1} << 20};
  std::vector<std::string> index_names_ KUBE_GUARDED_BY(mu_);
  std::vector<IndexFunc> index_funcs_ KUBE_GUARDED_BY(mu_);
  std::vector<Postings> postings_ KUBE_GUARDED_BY(mu_);  // parallel to index_names_
  ObjectSet items_ KUBE_GUARDED_BY(mu_);
};

/// Reads objects of one resource from an Indexer, as client-go generated listers do.
/// **Lifetime:** the Indexer must outlive the Lister. **Thread-safety:** as the Indexer.
class Lister final {
 public:
  explicit Lister(const Indexer& indexer) : indexer_(indexer) {}
  /// Every object matching `selector`.
  std::vector<ObjectPtr> List(const LabelSelector& selector = LabelSelector::Everything()) const;
  /// Objects of namespace `ns` matching `selector` (uses the namespace index).
  std::vector<ObjectPtr> List(std::string_view ns,
                              const LabelSelector& selector = LabelSelector::Everything()) const;
  /// The object `ns/name` (or `name` when `ns` is empty). **Errors:** NotFound.
  Result<ObjectPtr> Get(std::string_view ns, std::string_view name) const;

 private:
  const Indexer& indexer_;
};

}  // namespace kube::cache
