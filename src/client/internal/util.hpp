#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <kube/base/base64.hpp>
#include <kube/base/result.hpp>

/// Small helpers shared by the client sources: files, strings (base64 is in kube::base).
namespace kube::client::internal {

using ::kube::Base64Decode;
using ::kube::Base64Encode;

/// The whole content of `path`. **Errors:** 404 NotFound `open <path>: no such file or
/// directory` when it does not exist; 400 BadRequest `open <path>: <strerror>` otherwise.
Result<std::string> ReadFile(const std::string& path);

/// `s` without leading and trailing ASCII whitespace.
std::string_view TrimSpace(std::string_view s);
/// ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
/// ASCII lower-case copy.
std::string ToLower(std::string_view s);
/// The media type of a Content-Type value, lower-cased, without parameters or spaces.
std::string MediaType(std::string_view content_type);
/// Go's `%q` of a string (double quotes, backslash escapes).
std::string Quote(std::string_view s);
/// Go's aggregate error text: one message bare, several as `[a, b]`.
std::string JoinErrors(const std::vector<std::string>& messages);
/// The directory part of `path` ("." when none).
std::string DirName(std::string_view path);
/// `path` made absolute against `base_dir` when relative (empty stays empty).
std::string ResolvePath(std::string_view path, std::string_view base_dir);
/// True when `s` is an IPv4 or IPv6 address literal (no brackets).
bool IsIpLiteral(std::string_view s);

}  // namespace kube::client::internal
