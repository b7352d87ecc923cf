#pragma once

namespace kube::api {

/// apimachinery's `equality.Semantic.DeepEqual` for API values: every generated type's
/// `operator==` already is that equality, because
/// - lists and maps are plain containers, so an absent list equals an empty one (Go: nil slice
///   == empty slice under Semantic);
/// - `Quantity` compares by value ("1" == "1000m"), `Time` and `MicroTime` by instant;
/// - everything else compares member by member (unknown fields and raw JSON by their compact
///   text).
/// Spelled out so that reconcilers read like their Go counterparts:
/// `if (!SemanticEqual(desired.spec, current.spec)) ...`.
template <class T>
bool SemanticEqual(const T& a, const T& b) {
  return a == b;
}

}  // namespace kube::api
