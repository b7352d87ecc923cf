#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

/// Name and label validation with the rules and the exact messages of apimachinery's
/// `pkg/util/validation`, shared by label selectors (client side) and the embedded API server.
/// Each `Is*` returns the list of problems (empty = valid), worded as kube-apiserver words them.
namespace kube::validation {

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (namespaces, most names' parts).
std::vector<std::string> IsDns1123Label(std::string_view value);
/// Dot-separated DNS-1123 labels, at most 253 characters (most object names, label prefixes).
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (service names).
std::vector<std::string> IsDns1035Label(std::string_view value);
/// `[prefix/]name`: prefix a DNS-1123 subdomain, name 1-63 characters of `[-A-Za-z0-9_.]`
/// starting and ending alphanumeric (label and annotation keys).
std::vector<std::string> IsQualifiedName(std::string_view value);
/// Empty, or at most 63 characters of `[-A-Za-z0-9_.]` starting and ending alphanumeric.
std::vector<std::string> IsValidLabelValue(std::string_view value);

/// True for `[A-Za-z0-9]`.
bool IsAlnum(char c);
/// apimachinery `RegexError`: `msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')`
/// (the double space is kube's).
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples);
/// apimachinery `MaxLenError`: "must be no more than N characters".
std::string MaxLenError(std::size_t n);

}  // namespace kube::validation
