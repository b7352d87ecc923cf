#pragma once

// The message table of the protobuf transcoder (<kube/core/protobuf.hpp>), written into the build
// tree by tools/apigen/protobuf_table.py.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kube::core::protobuf_table {

/// How a field's value is written.
enum class Kind : std::uint8_t {
  kString,
  kBytes,   // base64
  kInt32,
  kInt64,
  kBool,
  kDouble,
  kMessage,     // Field::message
  kMapString,   // map<string, string>
  kMapBytes,    // map<string, bytes>
  kMapMessage,  // map<string, Field::message>
};

/// Messages with their own JSON form.
enum class Special : std::uint8_t {
  kNone,
  kTime,                  // {seconds, nanos} -> RFC 3339, zero -> null
  kMicroTime,             // {seconds, nanos} -> RFC 3339 with microseconds, zero -> null
  kQuantity,              // {string} -> "100m", empty -> "0"
  kIntOrString,           // {type, intVal, strVal} -> 8080 or "http"
  kRawJson,               // {raw} -> the raw JSON, empty -> null (FieldsV1, apiextensions JSON)
  kRawExtension,          // {raw} -> the raw JSON, or a nested envelope transcoded
  kSchemaOrBool,          // {allows, schema} -> the schema, or true / false
  kSchemaOrArray,         // {schema, JSONSchemas} -> the array if any, else the schema
  kSchemaOrStringArray,   // {schema, property} -> the strings if any, else the schema
  kStringArray,           // {items} -> ["a", "b"] (a named []string)
};

inline constexpr std::uint8_t kRepeated = 1;
inline constexpr std::uint8_t kPointer = 2;   // a Go pointer: set means written, zero included
inline constexpr std::uint8_t kInline = 4;    // a Go embedded struct: its fields go into the parent
inline constexpr std::uint8_t kRequired = 8;  // no omitempty: the zero value is written

struct Field {
  std::uint32_t number;
  Kind kind;
  std::uint8_t flags;
  std::uint16_t message;  // index into kMessages for kMessage / kMapMessage
  std::string_view json;  // the JSON key ("" for an inline field)
};

struct Message {
  std::string_view name;  // e.g. "k8s.io.api.core.v1.Pod"
  Special special;
  std::uint16_t first;  // its fields: kFields[first, first + count), in the Go struct's order
  std::uint16_t count;
};

struct TopKind {
  std::string_view api_version;
  std::string_view kind;
  std::uint16_t message;
};

extern const Field kFields[];
extern const Message kMessages[];
extern const TopKind kKinds[];  // sorted by (api_version, kind)
extern const std::size_t kMessageCount;
extern const std::size_t kKindCount;

}  // namespace kube::core::protobuf_table
