#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// Accept-header parsing as kube-apiserver does it (munnerz/goautoneg `ParseAccept`).
namespace kube::apiserver::internal {

/// One media range of an Accept header, e.g. `application/json;as=Table;g=meta.k8s.io;v=v1`.
struct MediaRange {
  std::string type;     ///< lower-cased, e.g. "application", or "*"
  std::string subtype;  ///< lower-cased, e.g. "json", or "*"
  /// Parameters other than `q`, in header order; names as written, surrounding quotes of values
  /// removed.
  std::vector<std::pair<std::string, std::string>> params;
  double q = 1.0;

  /// The value of parameter `name`, or nullopt.
  std::optional<std::string_view> Param(std::string_view name) const;
  /// True for `application/json`, `application/*` and `*/*`: ranges a JSON answer satisfies.
  bool AcceptsJson() const;
  /// True when any of the conversion parameters `as`, `g`, `v` is present.
  bool HasConversion() const;
};

/// Parses an Accept header into media ranges ordered by preference: higher q first, then a
/// concrete type before `*`, then a concrete subtype before `*`, otherwise header order (a stable
/// sort). Ranges with `q=0` (explicitly unacceptable) and unparsable ranges are dropped.
std::vector<MediaRange> ParseAccept(std::string_view header);

}  // namespace kube::apiserver::internal
