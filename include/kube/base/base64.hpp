#pragma once

#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube {

/// Standard base64 (RFC 4648 with padding), as Go's `base64.StdEncoding`; '\r' and '\n' are
/// ignored. **Errors:** BadRequest `illegal base64 data at input byte N` (Go's wording).
Result<std::string> Base64Decode(std::string_view in);
/// Standard base64 with padding.
std::string Base64Encode(std::string_view in);

}  // namespace kube
