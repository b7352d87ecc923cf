#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/gvk.hpp>

namespace kube {

class Object;
/// The shared, immutable handle every cache, queue and handler passes around.
using ObjectPtr = std::shared_ptr<const Object>;

namespace core::internal {
/// A byte range inside an Object's buffer (compact: 8 bytes instead of a 16-byte string_view).
struct Span {
  uint32_t off = 0;
  uint32_t len = 0;
};
struct OwnerRefSpans {
  Span api_version, kind, name, uid;
  int8_t controller = -1;            // -1 unset, 0 false, 1 true
  int8_t block_owner_deletion = -1;  // -1 unset, 0 false, 1 true
};
}  // namespace core::internal

/// A copy of `obj` without `metadata.managedFields` (the same pointer when it has none). The
/// informer transform that most controllers want: managedFields is often half an object's size.
ObjectPtr StripManagedFields(const ObjectPtr& obj);

/// A read-only view of a string map (labels, annotations) stored inside an Object, sorted by key.
/// **Lifetime:** valid while the Object it came from is alive.
class StringMapView final {
 public:
  using value_type = std::pair<std::string_view, std::string_view>;
  class iterator {
   public:
    using value_type = StringMapView::value_type;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const char* base, const core::internal::Span* p) : base_(base), p_(p) {}
    value_type operator*() const {
      return {{base_ + p_[0].off, p_[0].len}, {base_ + p_[1].off, p_[1].len}};
    }
    iterator& operator++() {
      p_ += 2;
      return *this;
    }
    iterator operator++(int) {
      auto copy = *this;
      p_ += 2;
      return copy;
    }
    bool operator==(const iterator& o) const { return p_ == o.p_; }

   private:
    const char* base_ = nullptr;
    const core::internal::Span* p_ = nullptr;
  };

  StringMapView() = default;
  StringMapView(const char* base, const core::internal::Span* pairs, std::size_t count)
      : base_(base), pairs_(pairs), count_(count) {}

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  iterator begin() const { return {base_, pairs_}; }
  iterator end() const { return {base_, pairs_ + 2 * count_}; }
  /// The value for `key`, or nullopt (binary search).
  std::optional<std::string_view> Get(std::string_view key) const;
  bool Contains(std::string_view key) const { return Get(key).has_value(); }
  /// An owning copy.
  std::map<std::string, std::string> ToMap() const;

 private:
  const char* base_ = nullptr;
  const core::internal::Span* pairs_ = nullptr;  // key, value, key, value, ...
  std::size_t count_ = 0;
};

/// A read-only view of a string list (finalizers) stored inside an Object, in document order.
/// **Lifetime:** valid while the Object it came from is alive.
class StringListView final {
 public:
  class iterator {
   public:
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const char* base, const core::internal::Span* p) : base_(base), p_(p) {}
    std::string_view operator*() const { return {base_ + p_->off, p_->len}; }
    iterator& operator++() {
      ++p_;
      return *this;
    }
    iterator operator++(int) {
      auto copy = *this;
      ++p_;
      return copy;
    }
    bool operator==(const iterator& o) const { return p_ == o.p_; }

   private:
    const char* base_ = nullptr;
    const core::internal::Span* p_ = nullptr;
  };

  StringListView() = default;
  StringListView(const char* base, const core::internal::Span* items, std::size_t count)
      : base_(base), items_(items), count_(count) {}
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::string_view operator[](std::size_t i) const { return {base_ + items_[i].off, items_[i].len}; }
  iterator begin() const { return {base_, items_}; }
  iterator end() const { return {base_, items_ + count_}; }
  bool Contains(std::string_view s) const;
  std::vector<std::string> ToVector() const;

 private:
  const char* base_ = nullptr;
  const core::internal::Span* items_ = nullptr;
  std::size_t count_ = 0;
};

/// One `metadata.ownerReferences` entry (views into the Object; valid while it lives).
struct OwnerReference {
  std::string_view api_version;
  std::string_view kind;
  std::string_view name;
  std::string_view uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
};

/// A Kubernetes object: immutable, shared through `ObjectPtr`, built from JSON.
///
/// Representation: the compact JSON text is kept verbatim (so serialization is free and exact),
/// and the metadata is parsed once at construction into compact offsets into that text. Labels and
/// annotations are sorted for binary search. Any other field is read through a JSON pointer
/// (`Get("/spec/replicas")`), which scans the text without building a DOM.
/// Typical retained heap: about 1.3x the JSON size.
///
/// To change an object, copy it into an `ObjectBuilder`, edit, and `Build()` a new one.
/// **Thread-safety:** immutable; safe to share across threads.
class Object final {
 public:
  /// Parses one JSON object. Whitespace outside strings is removed, so `Json()` is compact.
  /// **Errors:** BadRequest for malformed JSON (with line/column/offset), a non-object top level,
  /// or a metadata field of the wrong type (naming the field, e.g.
  /// `metadata.labels: expected object, found string`); limits: 4 GiB.
  static Result<ObjectPtr> Parse(std::string_view json);
  /// Serializes `json` (must be an object) and parses it.
  static Result<ObjectPtr> FromJson(const boost::json::value& json);
  /// Like FromJson, for an object DOM.
  static Result<ObjectPtr> FromJson(const boost::json::object& json);

  /// The compact JSON text of the whole object.
  std::string_view Json() const { return {buf_.data(), raw_len_}; }

  /// A hint with no effect on behaviour: starts loading the object's header (and the reference
  /// count in front of it, for objects made by Parse) without reading it. For loops over many
  /// objects not touched recently: call it some items ahead of PrefetchIdentity.
  static void PrefetchHeader(const Object* obj) noexcept {
    // As integers: the control block in front of the object is outside it.
    const auto p = reinterpret_cast<std::uintptr_t>(obj);
    __builtin_prefetch(reinterpret_cast<const void*>(p - 16));  // make_shared's control block
    __builtin_prefetch(reinterpret_cast<const void*>(p + 48));
  }
  /// A hint with no effect on behaviour: starts loading Name() and Namespace(). Reads the
  /// header, so it stalls unless PrefetchHeader ran a little earlier.
  void PrefetchIdentity() const noexcept {
    __builtin_prefetch(buf_.data() + name_.off);
    __builtin_prefetch(buf_.data() + namespace_.off);
  }

  std::string_view ApiVersion() const { return View(api_version_); }
  std::string_view Kind() const { return View(kind_); }
  std::string_view Name() const { return View(name_); }
  std::string_view GenerateName() const { return View(generate_name_); }
  std::string_view Namespace() const { return View(namespace_); }
  std::string_view Uid() const { return View(uid_); }
  std::string_view ResourceVersion() const { return View(resource_version_); }
  /// RFC 3339 text as stored ("" when absent).
  std::string_view CreationTimestamp() const { return View(creation_timestamp_); }
  /// RFC 3339 text as stored ("" when the object is not being deleted).
  std::string_view DeletionTimestamp() const { return View(deletion_timestamp_); }
  int64_t Generation() const { return generation_; }
  std::optional<int64_t> DeletionGracePeriodSeconds() const;
  /// True once `metadata.deletionTimestamp` is set.
  bool IsBeingDeleted() const { return deletion_timestamp_.len != 0; }

  StringMapView Labels() const { return {buf_.data(), refs_.data(), n_labels_}; }
  StringMapView Annotations() const {
    return {buf_.data(), refs_.data() + 2 * n_labels_, n_annotations_};
  }
  StringListView Finalizers() const {
    return {buf_.data(), refs_.data() + 2 * (n_labels_ + n_annotations_), n_finalizers_};
  }
  /// `metadata.ownerReferences`, in document order.
  std::vector<OwnerReference> OwnerReferences() const;
  std::size_t OwnerReferenceCount() const { return owner_refs_.size(); }
  /// The owner reference with `controller: true`, if any.
  std::optional<OwnerReference> ControllerRef() const;
  /// True if `metadata.managedFields` is present.
  bool HasManagedFields() const { return managed_fields_.len != 0; }

  /// `namespace/name` or `name` (client-go MetaNamespaceKeyFunc).
  std::string Key() const;
  ObjectKey GetObjectKey() const { return {std::string(Namespace()), std::string(Name())}; }
  /// apiVersion + kind. **Errors:** when apiVersion/kind are missing or malformed.
  Result<GroupVersionKind> Gvk() const;

  /// The value at RFC 6901 pointer `pointer` (e.g. "/spec/replicas"), parsed on demand; nullopt
  /// if absent or the pointer is malformed. Cost: a scan of the text up to the value.
  std::optional<boost::json::value> Get(std::string_view pointer) const;
  /// The raw JSON text of the value at `pointer`, or nullopt.
  std::optional<std::string_view> GetRaw(std::string_view pointer) const;
  /// The string at `pointer` (nullopt if absent or not a string).
  std::optional<std::string> GetString(std::string_view pointer) const;
  /// The integer at `pointer` (nullopt if absent or not an int64).
  std::optional<int64_t> GetInt(std::string_view pointer) const;
  /// The boolean at `pointer` (nullopt if absent or not a boolean).
  std::optional<bool> GetBool(std::string_view pointer) const;
  /// The whole object as a mutable DOM (a parse of `Json()`).
  boost::json::object ToJson() const;

  /// Heap bytes owned by this object (buffer + index + owner references), excluding the
  /// shared_ptr control block. Used by benchmarks and memory accounting.
  std::size_t RetainedBytes() const;

  /// A value derived from this object and kept with it: the typed API keeps the decoded
  /// struct of a cached object here, so that every lister and handler reading it as T shares
  /// one decode. `tag` names the kind of value (one address per kind). Returns the kept value
  /// when it has this tag, else nullptr. **Thread-safety:** safe from any thread.
  std::shared_ptr<const void> DerivedValue(const void* tag) const;
  /// Keeps `value` under `tag` unless a value is kept already (only the first is kept; there is
  /// one slot). Returns the value kept for `tag` (`value`, or the one another thread stored
  /// first), or nullptr when the slot holds another tag's value. **Thread-safety:** safe from
  /// any thread; lock-free. The value is not counted by HeapBytes or RetainedBytes.
  std::shared_ptr<const void> KeepDerivedValue(const void* tag, std::shared_ptr<const void> value) const;

  // Construction goes through Parse; the object stays where make_shared put it, because the
  // views it hands out point into its own buffer.
  struct PrivateTag {};
  explicit Object(PrivateTag) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  ~Object();

 private:
  friend class ObjectParser;
  friend ObjectPtr StripManagedFields(const ObjectPtr& obj);
  std::string_view View(core::internal::Span s) const { return {buf_.data() + s.off, s.len}; }

  std::string buf_;  // compact JSON text, then unescaped copies of escaped metadata strings
  uint32_t raw_len_ = 0;
  core::internal::Span api_version_, kind_, name_, generate_name_, namespace_, uid_,
      resource_version_, creation_timestamp_, deletion_timestamp_;
  core::internal::Span managed_fields_;  // the "managedFields" member's bytes incl. a comma
  int64_t generation_ = 0;
  int64_t deletion_grace_period_seconds_ = 0;
  bool has_deletion_grace_period_ = false;
  uint16_t n_labels_ = 0, n_annotations_ = 0, n_finalizers_ = 0;
  std::vector<core::internal::Span> refs_;  // label pairs, annotation pairs, finalizers
  std::vector<core::internal::OwnerRefSpans> owner_refs_;
  struct Derived {
    const void* tag;
    std::shared_ptr<const void> value;
  };
  // Set once (compare-and-swap from null), then immutable until the destructor deletes it.
  mutable std::atomic<const Derived*> derived_{nullptr};
};

/// The tombstone client-go delivers to OnDelete when a delete was missed (the object vanished
/// during a relist): the store key and the last state known to the cache.
struct DeletedFinalStateUnknown {
  std::string key;
  ObjectPtr obj;
};

/// A mutable copy of an object for edits; `Build()` makes a new immutable Object.
/// **Thread-safety:** none (a value owned by one caller).
class ObjectBuilder final {
 public:
  /// An empty object with the given apiVersion and kind.
  ObjectBuilder(std::string_view api_version, std::string_view kind);
  /// A copy of `obj` (parses its JSON).
  explicit ObjectBuilder(const Object& obj);
  /// Takes a DOM as is.
  explicit ObjectBuilder(boost::json::object json);

  ObjectBuilder& SetName(std::string_view name);
  ObjectBuilder& SetGenerateName(std::string_view prefix);
  ObjectBuilder& SetNamespace(std::string_view ns);
  ObjectBuilder& SetResourceVersion(std::string_view rv);
  ObjectBuilder& SetUid(std::string_view uid);
  ObjectBuilder& SetGeneration(int64_t generation);
  ObjectBuilder& SetLabel(std::string_view key, std::string_view value);
  ObjectBuilder& RemoveLabel(std::string_view key);
  ObjectBuilder& SetAnnotation(std::string_view key, std::string_view value);
  ObjectBuilder& RemoveAnnotation(std::string_view key);
  /// Appends `finalizer` unless present. Returns whether it was added.
  bool AddFinalizer(std::string_view finalizer);
  /// Removes every occurrence. Returns whether anything was removed.
  bool RemoveFinalizer(std::string_view finalizer);
  /// Appends an owner reference (replacing one with the same uid).
  ObjectBuilder& AddOwnerReference(const OwnerReference& ref);
  ObjectBuilder& RemoveManagedFields();

  /// Sets the value at `pointer`, creating intermediate objects. **Errors:** BadRequest for a
  /// malformed pointer or when a parent is not an object/array.
  Result<void> Set(std::string_view pointer, boost::json::value value);
  /// Removes the value at `pointer`; returns whether it existed.
  bool Remove(std::string_view pointer);
  /// The value at `pointer`, or nullptr.
  const boost::json::value* Find(std::string_view pointer) const;

  /// The DOM, for arbitrary edits.
  boost::json::object& Json() { return json_; }
  const boost::json::object& Json() const { return json_; }
  /// `metadata`, created if absent (or replaced if not an object).
  boost::json::object& Metadata();

  /// Builds an immutable Object. **Errors:** as Object::Parse (e.g. a label set to a non-string).
  Result<ObjectPtr> Build() const;

 private:
  boost::json::object json_;
};

/// A parsed List response (`PodList`, `List`, ...): list metadata and items.
struct ObjectList {
  std::string api_version;
  std::string kind;
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
  std::vector<ObjectPtr> items;

  /// Parses a List. Items without apiVersion/kind get the list's apiVersion and the list kind
  /// minus its "List" suffix (the API server omits them in typed lists).
  /// **Errors:** as Object::Parse, naming the item index (`items[3].metadata.labels: ...`).
  static Result<ObjectList> Parse(std::string_view json);
};

}  // namespace kube
