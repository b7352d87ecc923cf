#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include <kube/base/error.hpp>

namespace kube {

/// The outcome of a fallible call: a `T` or an `Error` (an expected-like type).
/// `[[nodiscard]]`: ignoring a Result is a compile error under -Werror.
/// Accessing `value()` of an error, or `error()` of a value, is a programming error (asserted).
/// **Thread-safety:** as for any value type.
template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Error>, "Result<Error> is ambiguous");

 public:
  /// A successful result.
  template <class U = T>
    requires std::is_constructible_v<T, U&&> && (!std::is_same_v<std::decay_t<U>, Error>) &&
             (!std::is_same_v<std::decay_t<U>, Result>)
  Result(U&& value) : v_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT implicit
  /// A failed result.
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT implicit

  /// True when holding a value.
  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; only valid when `!ok()`.
  const Error& error() const& { assert(!ok()); return std::get<1>(v_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(v_)); }

  /// The value, or `fallback` when this holds an error.
  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> v_;
};

/// The outcome of a fallible call with no value.
template <>
class [[nodiscard]] Result<void> {
 public:
  /// Success. User-provided on purpose: with `= default`, `Ok()` (a value-initialization)
  /// would zero the whole optional<Error> payload, about 200 bytes, on every success.
  Result() noexcept {}  // NOLINT(modernize-use-equals-default)
  /// Failure.
  Result(Error error) : error_(std::move(error)) {}  // NOLINT implicit

  bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  /// The error; only valid when `!ok()`.
  const Error& error() const& { assert(!ok()); return *error_; }
  Error&& error() && { assert(!ok()); return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

/// A successful `Result<void>`.
inline Result<void> Ok() { return {}; }

}  // namespace kube

/// Returns the error of a `Result` expression from the enclosing function if it failed.
#define KUBE_RETURN_IF_ERROR(expr)                     \
  do {                                                 \
    if (auto kube_r_ = (expr); !kube_r_.ok()) {        \
      return std::move(kube_r_).error();               \
    }                                                  \
  } while (0)
