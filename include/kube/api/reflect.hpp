#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <kube/api/codec.hpp>

/// Structs declared in C++ with a field list, for custom resources (the role of kubebuilder's
/// markers and kube-rs's `#[derive(CustomResource)]`): one declaration gives the JSON codec and
/// the structural OpenAPI schema of the CRD (`<kube/api/custom_resource.hpp>`).
///
/// ```cpp
/// struct WebsiteSpec {
///   std::string image;
///   int32_t replicas = 1;
///   std::optional<std::string> domain;
///   static auto Fields() {
///     using kube::api::Field;
///     return std::tuple{
///         Field("image", &WebsiteSpec::image).Required().Pattern("^[a-z0-9./:-]+$"),
///         Field("replicas", &WebsiteSpec::replicas).Minimum(0).Maximum(100).Default(1),
///         Field("domain", &WebsiteSpec::domain).Description("Where the site is served.")};
///   }
///   bool operator==(const WebsiteSpec&) const = default;
/// };
/// ```
///
/// Presence follows the generated types: `std::optional` and `Box` members are encoded when set;
/// lists, maps, strings and scalars are omitted when empty or zero unless `Required()` (Go's
/// `omitempty`). A member `unknown_fields` (an UnknownFields), when the struct has one, keeps
/// members it does not declare; without one they are dropped, as the API server prunes them.
namespace kube::api {

/// `x-kubernetes-list-type`.
enum class ListType { kUnset, kAtomic, kSet, kMap };

/// A JSON scalar for `default` and `enum`.
using SchemaScalar = std::variant<std::monostate, bool, int64_t, double, std::string>;

/// The schema options of one field (kubebuilder's validation markers).
struct FieldOptions {
  bool required = false;
  std::string description{};
  SchemaScalar default_value{};
  std::vector<SchemaScalar> enum_values{};
  std::optional<double> minimum{};
  std::optional<double> maximum{};
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<int64_t> min_length{};
  std::optional<int64_t> max_length{};
  std::optional<int64_t> min_items{};
  std::optional<int64_t> max_items{};
  std::string pattern{};
  std::string format{};
  ListType list_type = ListType::kUnset;
  std::vector<std::string> list_map_keys{};
  bool nullable = false;
  bool preserve_unknown_fields = false;
};

/// One member of a reflected struct: its JSON name, the member pointer and the schema options.
/// Built with `Field(name, &T::member)` and the chainable setters below.
template <class T, class M>
struct FieldDescriptor {
  std::string_view name;
  M T::* member;
  FieldOptions options{};

  /// Required in the schema, and always encoded.
  FieldDescriptor Required() && { return Set([](FieldOptions& o) { o.required = true; }); }
  FieldDescriptor Description(std::string text) && {
    return Set([&](FieldOptions& o) { o.description = std::move(text); });
  }
  /// The schema default (applied by the API server on create and read).
  template <class V>
  FieldDescriptor Default(V value) && {
    return Set([&](FieldOptions& o) { o.default_value = ToScalar(std::move(value)); });
  }
  /// The allowed values.
  template <class V>
  FieldDescriptor Enum(std::initializer_list<V> values) && {
    return Set([&](FieldOptions& o) {
      for (const V& v : values) o.enum_values.push_back(ToScalar(v));
    });
  }
  FieldDescriptor Minimum(double v, bool exclusive = false) && {
    return Set([&](FieldOptions& o) {
      o.minimum = v;
      o.exclusive_minimum = exclusive;
    });
  }
  FieldDescriptor Maximum(double v, bool exclusive = false) && {
    return Set([&](FieldOptions& o) {
      o.maximum = v;
      o.exclusive_maximum = exclusive;
    });
  }
  FieldDescriptor MinLength(int64_t n) && { return Set([&](FieldOptions& o) { o.min_length = n; }); }
  FieldDescriptor MaxLength(int64_t n) && { return Set([&](FieldOptions& o) { o.max_length = n; }); }
  FieldDescriptor MinItems(int64_t n) && { return Set([&](FieldOptions& o) { o.min_items = n; }); }
  FieldDescriptor MaxItems(int64_t n) && { return Set([&](FieldOptions& o) { o.max_items = n; }); }
  FieldDescriptor Pattern(std::string regex) && { return Set([&](FieldOptions& o) { o.pattern = std::move(regex); }); }
  FieldDescriptor Format(std::string f) && { return Set([&](FieldOptions& o) { o.format = std::move(f); }); }
  FieldDescriptor Nullable() && { return Set([](FieldOptions& o) { o.nullable = true; }); }
  /// `x-kubernetes-preserve-unknown-fields: true` on this field's schema.
  FieldDescriptor PreserveUnknownFields() && { return Set([](FieldOptions& o) { o.preserve_unknown_fields = true; }); }
  /// `x-kubernetes-list-type` (and for kMap, the `x-kubernetes-list-map-keys`; a key that the
  /// element neither requires nor defaults is added to the element schema's `required`, since
  /// kube-apiserver rejects a CRD with such a key).
  FieldDescriptor List(ListType type, std::vector<std::string> map_keys = {}) && {
    return Set([&](FieldOptions& o) {
      o.list_type = type;
      o.list_map_keys = std::move(map_keys);
    });
  }

 private:
  template <class Fn>
  FieldDescriptor Set(Fn&& fn) {
    fn(options);
    return std::move(*this);
  }
  template <class V>
  static SchemaScalar ToScalar(V v) {
    if constexpr (std::is_same_v<V, bool>) {
      return SchemaScalar(v);
    } else if constexpr (std::is_integral_v<V>) {
      return SchemaScalar(static_cast<int64_t>(v));
    } else if constexpr (std::is_floating_point_v<V>) {
      return SchemaScalar(static_cast<double>(v));
    } else {
      return SchemaScalar(std::string(v));
    }
  }
};

/// Starts a field descriptor: `Field("replicas", &WebsiteSpec::replicas)`.
template <class T, class M>
FieldDescriptor<T, M> Field(std::string_view name, M T::* member) {
  return FieldDescriptor<T, M>{name, member, {}};
}

namespace internal {

template <class T>
const auto& FieldsOf() {
  static const auto fields = T::Fields();  // built once per type
  return fields;
}

template <class M>
bool IsEmptyValue(const M& v) {
  if constexpr (requires { v.empty(); }) {
    return v.empty();
  } else if constexpr (std::is_arithmetic_v<M>) {
    return v == M{};
  } else {
    return false;  // structs and value types are always written
  }
}

template <class M>
bool IsPresent(const M& v, bool required) {
  if constexpr (requires { v.has_value(); }) {
    return v.has_value();
  } else {
    return required || !IsEmptyValue(v);
  }
}

}  // namespace internal

/// Decodes a reflected struct (unknown members into `unknown_fields` when it has one).
template <Reflected T>
bool Decode(Decoder& d, T& out) {
  if (d.ConsumeNull()) return true;
  if (!d.BeginObject()) return false;
  std::string_view key;
  while (d.NextKey(key)) {
    bool matched = false;
    bool ok = true;
    std::apply(
        [&](const auto&... f) {
          ((!matched && key == f.name ? (matched = true, ok = Decode(d, out.*(f.member)) || d.InField(f.name)) : false),
           ...);
        },
        internal::FieldsOf<T>());
    if (!ok) return false;
    if (matched) continue;
    if constexpr (requires { out.unknown_fields.Append(std::string_view(), std::string_view()); }) {
      if (!d.KeepUnknown(out.unknown_fields)) return false;
    } else {
      UnknownFields dropped;
      if (!d.KeepUnknown(dropped)) return false;
    }
  }
  return !d.failed();
}

/// Encodes a reflected struct in its field order.
template <Reflected T>
void Encode(Encoder& e, const T& v) {
  e.BeginObject();
  std::apply(
      [&](const auto&... f) {
        (([&] {
           const auto& m = v.*(f.member);
           if (!internal::IsPresent(m, f.options.required)) return;
           e.DynamicKey(f.name);
           if constexpr (requires { m.has_value(); }) {
             Encode(e, *m);
           } else {
             Encode(e, m);
           }
         }()),
         ...);
      },
      internal::FieldsOf<T>());
  if constexpr (requires { v.unknown_fields.raw(); }) e.Unknown(v.unknown_fields);
  e.EndObject();
}

}  // namespace kube::api
