#pragma once

#include <cstddef>
#include <utility>

namespace kube::api {

/// An optional value held on the heap, with value semantics: copies are deep, moves steal.
/// Empty means absent, as `std::nullopt` does for `std::optional`, whose interface it follows
/// (`has_value`, `operator bool`, `*`, `->`, `emplace`, `reset`, `value_or`-free).
///
/// Generated types use it for every optional struct member (Go's pointer fields, such as
/// `Container::livenessProbe`), and for members whose type contains itself
/// (`JSONSchemaProps::not_`): an absent member costs 8 bytes instead of the size of the whole
/// struct, and a header of many such members compiles in well under half the time of one with
/// `std::optional<T>` (whose traits instantiate T's whole member tree). It owns a raw pointer
/// for the same reason: `std::unique_ptr<T>` costs as much to instantiate as the optional.
/// Copies and deletions of a generated type's boxes are compiled once, in the type's library:
/// the generated header declares `T* BoxClone(const T&)` and `void BoxDestroy(T*)` beside each
/// type, and a Box finds them by argument-dependent lookup. Without them (a user's own types)
/// the box copies and deletes inline. Either way the behaviour is the same.
/// **Thread-safety:** as for any value type.
template <class T>
class Box final {
 public:
  Box() = default;
  Box(std::nullptr_t) {}  // NOLINT implicit: `probe = nullptr` clears
  Box(const T& value);    // NOLINT implicit, as std::optional
  Box(T&& value);         // NOLINT implicit, as std::optional
  Box(const Box& other);
  Box(Box&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }
  Box& operator=(const Box& other);
  Box& operator=(Box&& other) noexcept;
  ~Box();

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  /// The value; only valid when `has_value()`.
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_; }
  const T* operator->() const { return p_; }
  /// A pointer to the value, or nullptr when empty.
  T* get() { return p_; }
  const T* get() const { return p_; }
  /// Makes the box hold a new value built from `args` and returns it.
  template <class... Args>
  T& emplace(Args&&... args);
  /// Empties the box.
  void reset();

  /// Equal when both are empty or both hold equal values.
  template <class U>
  friend bool operator==(const Box<U>& a, const Box<U>& b);

 private:
  T* p_ = nullptr;  // owned; null when empty
};

namespace internal {

/// A heap copy of `value`: the type's out-of-line BoxClone when it declares one.
template <class T>
T* BoxNew(const T& value) {
  if constexpr (requires { BoxClone(value); }) {
    return BoxClone(value);
  } else {
    return new T(value);
  }
}

/// Deletes `p` (may be null): the type's out-of-line BoxDestroy when it declares one.
template <class T>
void BoxDelete(T* p) noexcept {
  if constexpr (requires { BoxDestroy(p); }) {
    if (p) BoxDestroy(p);
  } else {
    delete p;
  }
}

}  // namespace internal

template <class T>
Box<T>::Box(const T& value) : p_(internal::BoxNew(value)) {}

template <class T>
Box<T>::Box(T&& value) : p_(new T(std::move(value))) {}

template <class T>
Box<T>::Box(const Box& other) : p_(other.p_ ? internal::BoxNew(*other.p_) : nullptr) {}

template <class T>
Box<T>& Box<T>::operator=(const Box& other) {
  if (this != &other) {
    T* copy = other.p_ ? internal::BoxNew(*other.p_) : nullptr;
    internal::BoxDelete(p_);
    p_ = copy;
  }
  return *this;
}

template <class T>
Box<T>& Box<T>::operator=(Box&& other) noexcept {
  if (this != &other) {
    internal::BoxDelete(p_);
    p_ = other.p_;
    other.p_ = nullptr;
  }
  return *this;
}

template <class T>
Box<T>::~Box() {
  internal::BoxDelete(p_);
}

template <class T>
template <class... Args>
T& Box<T>::emplace(Args&&... args) {
  T* fresh = new T(std::forward<Args>(args)...);
  internal::BoxDelete(p_);
  p_ = fresh;
  return *p_;
}

template <class T>
void Box<T>::reset() {
  internal::BoxDelete(p_);
  p_ = nullptr;
}

template <class U>
bool operator==(const Box<U>& a, const Box<U>& b) {
  if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
  return *a.p_ == *b.p_;
}

}  // namespace kube::api
