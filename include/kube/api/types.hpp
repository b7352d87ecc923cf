#pragma once

/// The value types that generated API structs are made of, and the codec classes they declare
/// functions of. Included by every generated header; include <kube/api/codec.hpp> to encode or
/// decode.

#include <kube/api/box.hpp>
#include <kube/api/int_or_string.hpp>
#include <kube/api/quantity.hpp>
#include <kube/api/raw_json.hpp>
#include <kube/api/time.hpp>
#include <kube/api/unknown_fields.hpp>

namespace kube::api {
class Decoder;
class Encoder;
}  // namespace kube::api
