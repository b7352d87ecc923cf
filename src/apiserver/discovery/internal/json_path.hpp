#pragma once

#include <string_view>

#include <boost/json/value.hpp>

/// The JSONPath subset CRD `additionalPrinterColumns` use, evaluated as client-go's jsonpath
/// does for a printer column (first result only).
namespace kube::apiserver::internal {

/// The first value `path` selects in `root`, or nullptr when it selects nothing or cannot be
/// parsed. Supported: an optional `{...}` wrapper and leading `$`; `.name` (with `\.` escaping a
/// dot inside a name); `['name']` / `["name"]`; `[N]` (negative counts from the end); `[*]` and
/// `.*`; filters `[?(@.a.b)]`, `[?(@.a == "x")]`, `[?(@.a != 'x')]` and numeric/boolean
/// comparisons with `==`, `!=`, `<`, `<=`, `>`, `>=`. Unsupported syntax (recursive descent
/// `..`, slices, unions) selects nothing.
/// **Lifetime:** the result points into `root`.
const boost::json::value* EvalJsonPath(const boost::json::value& root, std::string_view path);

}  // namespace kube::apiserver::internal
