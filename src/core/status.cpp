#include <kube/core/status.hpp>

#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

namespace kube {
namespace {

namespace json = boost::json;

std::string_view Sv(const json::string& s) { return {s.data(), s.size()}; }

// ---------------------------------------------------------------------------------------------
// Go-compatible string output

// Decodes one UTF-8 sequence at s[i]. Returns the rune and its length, or length 0 when the
// bytes are not valid UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
std::pair<char32_t, std::size_t> DecodeRune(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  char32_t r = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, r = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, r = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, r = b0 & 0x07, min = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + n > s.size()) return {0, 0};
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {0, 0};
    r = (r << 6) | (b & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return {0, 0};
  return {r, n};
}

// Approximates Go's unicode.IsPrint for non-ASCII runes: the C1 controls and the format and
// separator characters that commonly appear are reported as non-printable.
bool IsPrintableRune(char32_t r) {
  if (r >= 0x80 && r <= 0x9F) return false;
  if (r == 0xAD || r == 0x2028 || r == 0x2029 || r == 0xFEFF) return false;
  if (r >= 0x200B && r <= 0x200F) return false;
  if (r >= 0x202A && r <= 0x202E) return false;
  if (r >= 0x2060 && r <= 0x206F) return false;
  if (r >= 0xFFF9 && r <= 0xFFFB) return false;
  return true;
}

// Go's strconv.Quote (what `%q` prints).
void AppendGoQuoted(std::string& out, std::string_view s) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          if (c < 0x20 || c == 0x7F) {
            out += fmt::format("\\x{:02x}", c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const auto [r, n] = DecodeRune(s, i);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (IsPrintableRune(r)) {
      out.append(s.substr(i, n));
    } else if (r < 0x10000) {
      out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(r));
    } else {
      out += fmt::format("\\U{:08x}", static_cast<std::uint32_t>(r));
    }
    i += n;
  }
  out += '"';
}

std::string GoQuote(std::string_view s) {
  std::string out;
  AppendGoQuoted(out, s);
  return out;
}

// Go's encoding/json string encoding with HTML escaping on (what kube-apiserver writes):
// <, > and & as \u003c \u003e \u0026, U+2028/U+2029 escaped, invalid UTF-8 as \ufffd.
void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const auto [r, n] = DecodeRune(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (r == 0x2028) {
      out += "\\u2028";
    } else if (r == 0x2029) {
      out += "\\u2029";
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

// Appends `,"key":"value"` (or without the comma for the first member) when value is not empty.
void AppendStringMember(std::string& out, bool& first, std::string_view key,
                        std::string_view value) {
  if (value.empty()) return;
  if (!first) out += ',';
  first = false;
  out += '"';
  out += key;
  out += "\":";
  AppendJsonString(out, value);
}

void AppendIntMember(std::string& out, bool& first, std::string_view key, std::int64_t value) {
  if (value == 0) return;
  if (!first) out += ',';
  first = false;
  out += '"';
  out += key;
  out += "\":";
  out += std::to_string(value);
}

void AppendDetails(std::string& out, const StatusDetails& d) {
  out += '{';
  bool first = true;
  AppendStringMember(out, first, "name", d.name);
  AppendStringMember(out, first, "group", d.group);
  AppendStringMember(out, first, "kind", d.kind);
  AppendStringMember(out, first, "uid", d.uid);
  if (!d.causes.empty()) {
    if (!first) out += ',';
    first = false;
    out += "\"causes\":[";
    for (std::size_t i = 0; i < d.causes.size(); ++i) {
      if (i > 0) out += ',';
      out += '{';
      bool cause_first = true;
      AppendStringMember(out, cause_first, "reason", d.causes[i].reason);
      AppendStringMember(out, cause_first, "message", d.causes[i].message);
      AppendStringMember(out, cause_first, "field", d.causes[i].field);
      out += '}';
    }
    out += ']';
  }
  AppendIntMember(out, first, "retryAfterSeconds", d.retry_after_seconds);
  out += '}';
}

// ---------------------------------------------------------------------------------------------
// Decoding

std::string_view KindName(json::kind k) {
  switch (k) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "value";
}

// A string member: absent or null = empty.
Result<std::string> StringMember(const json::object& o, std::string_view key,
                                 std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string()) {
    return BadRequest(fmt::format("{}.{}: expected a string, got {}", path, key, KindName(v->kind())));
  }
  return std::string(Sv(v->get_string()));
}

// An int32 member: absent or null = 0.
Result<int> Int32Member(const json::object& o, std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return 0;
  std::int64_t n = 0;
  if (v->is_int64()) {
    n = v->get_int64();
  } else if (v->is_uint64()) {
    n = std::numeric_limits<std::int64_t>::max();
  } else {
    return BadRequest(
        fmt::format("{}.{}: expected an integer, got {}", path, key, KindName(v->kind())));
  }
  if (n < std::numeric_limits<std::int32_t>::min() || n > std::numeric_limits<std::int32_t>::max()) {
    return BadRequest(fmt::format("{}.{}: integer out of the int32 range", path, key));
  }
  return static_cast<int>(n);
}

Result<const json::object*> ObjectMember(const json::object& o, std::string_view key,
                                         std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return static_cast<const json::object*>(nullptr);
  if (!v->is_object()) {
    return BadRequest(
        fmt::format("{}.{}: expected an object, got {}", path, key, KindName(v->kind())));
  }
  return &v->get_object();
}

Result<StatusDetails> ParseDetails(const json::object& o) {
  StatusDetails d;
  auto name = StringMember(o, "name", "Status.details");
  if (!name.ok()) return std::move(name).error();
  auto group = StringMember(o, "group", "Status.details");
  if (!group.ok()) return std::move(group).error();
  auto kind = StringMember(o, "kind", "Status.details");
  if (!kind.ok()) return std::move(kind).error();
  auto uid = StringMember(o, "uid", "Status.details");
  if (!uid.ok()) return std::move(uid).error();
  auto retry = Int32Member(o, "retryAfterSeconds", "Status.details");
  if (!retry.ok()) return std::move(retry).error();
  d.name = std::move(*name);
  d.group = std::move(*group);
  d.kind = std::move(*kind);
  d.uid = std::move(*uid);
  d.retry_after_seconds = *retry;
  if (const auto* causes = o.if_contains("causes"); causes != nullptr && !causes->is_null()) {
    if (!causes->is_array()) {
      return BadRequest(fmt::format("Status.details.causes: expected an array, got {}",
                                    KindName(causes->kind())));
    }
    for (const auto& c : causes->get_array()) {
      if (!c.is_object()) {
        return BadRequest(fmt::format("Status.details.causes[]: expected an object, got {}",
                                      KindName(c.kind())));
      }
      const auto& co = c.get_object();
      auto reason = StringMember(co, "reason", "Status.details.causes[]");
      if (!reason.ok()) return std::move(reason).error();
      auto message = StringMember(co, "message", "Status.details.causes[]");
      if (!message.ok()) return std::move(message).error();
      auto field = StringMember(co, "field", "Status.details.causes[]");
      if (!field.ok()) return std::move(field).error();
      d.causes.push_back({std::move(*reason), std::move(*message), std::move(*field)});
    }
  }
  return d;
}

// `require_type_meta`: ParseStatus requires kind "Status"; client-go's response decoding
// defaults a missing kind/apiVersion to v1 Status, so ErrorFromResponse passes false.
Result<Status> ParseStatusImpl(std::string_view text, bool require_type_meta) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return BadRequest(fmt::format("Status: invalid JSON: {}", ec.message()));
  if (!v.is_object()) {
    return BadRequest(fmt::format("Status: expected a JSON object, got {}", KindName(v.kind())));
  }
  const auto& o = v.get_object();
  auto kind = StringMember(o, "kind", "Status");
  if (!kind.ok()) return std::move(kind).error();
  if (*kind != "Status" && (require_type_meta || !kind->empty())) {
    return BadRequest(fmt::format("Status: expected kind \"Status\", got {}", GoQuote(*kind)));
  }
  auto api_version = StringMember(o, "apiVersion", "Status");
  if (!api_version.ok()) return std::move(api_version).error();
  if (!api_version->empty() && *api_version != "v1" && *api_version != "meta.k8s.io/v1") {
    return BadRequest(
        fmt::format("Status: unexpected apiVersion {} (want \"v1\")", GoQuote(*api_version)));
  }

  Status s;
  auto status = StringMember(o, "status", "Status");
  if (!status.ok()) return std::move(status).error();
  auto message = StringMember(o, "message", "Status");
  if (!message.ok()) return std::move(message).error();
  auto reason = StringMember(o, "reason", "Status");
  if (!reason.ok()) return std::move(reason).error();
  auto code = Int32Member(o, "code", "Status");
  if (!code.ok()) return std::move(code).error();
  s.status = std::move(*status);
  s.error.message = std::move(*message);
  s.error.reason = std::move(*reason);
  s.error.code = *code;

  auto metadata = ObjectMember(o, "metadata", "Status");
  if (!metadata.ok()) return std::move(metadata).error();
  if (*metadata != nullptr) {
    auto rv = StringMember(**metadata, "resourceVersion", "Status.metadata");
    if (!rv.ok()) return std::move(rv).error();
    auto cont = StringMember(**metadata, "continue", "Status.metadata");
    if (!cont.ok()) return std::move(cont).error();
    s.resource_version = std::move(*rv);
    s.continue_token = std::move(*cont);
  }
  auto details = ObjectMember(o, "details", "Status");
  if (!details.ok()) return std::move(details).error();
  if (*details != nullptr) {
    auto d = ParseDetails(**details);
    if (!d.ok()) return std::move(d).error();
    s.error.details = std::move(*d);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// field.Error rendering

std::string_view FieldErrorTypeText(std::string_view type) {
  if (type == cause::kFieldValueNotFound) return "Not found";
  if (type == cause::kFieldValueRequired) return "Required value";
  if (type == cause::kFieldValueDuplicate) return "Duplicate value";
  if (type == cause::kFieldValueInvalid) return "Invalid value";
  if (type == cause::kFieldValueNotSupported) return "Unsupported value";
  if (type == cause::kFieldValueForbidden) return "Forbidden";
  if (type == cause::kFieldValueTooLong) return "Too long";
  if (type == "FieldValueTooMany") return "Too many";
  if (type == "InternalError") return "Internal error";
  if (type == cause::kFieldValueTypeInvalid) return "Invalid value";
  return type;  // Go panics on an unknown type; print it rather than lose the error.
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

// Prints a bad value the way field.Error.ErrorBody prints the corresponding Go value.
std::string RenderBadValue(std::string_view value_json) {
  const auto trimmed = TrimSpace(value_json);
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(trimmed.data(), trimmed.size()), ec);
  if (ec) return std::string(trimmed);
  if (v.is_string()) return GoQuote(Sv(v.get_string()));
  if (v.is_array()) {
    const auto& a = v.get_array();
    bool all_strings = true;
    for (const auto& e : a) all_strings = all_strings && e.is_string();
    if (all_strings) {
      std::string out = "[]string{";
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i > 0) out += ", ";
        AppendGoQuoted(out, Sv(a[i].get_string()));
      }
      out += '}';
      return out;
    }
  }
  return std::string(trimmed);
}

StatusDetails ResourceDetails(const GroupResource& gr, std::string_view name) {
  StatusDetails d;
  d.name = std::string(name);
  d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

std::string JoinStrings(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += sep;
    out += v[i];
  }
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// client-go's isTextResponse: no Content-Type, or a text/* media type.
bool IsTextContentType(std::string_view content_type) {
  if (content_type.empty()) return true;
  auto media = AsciiLower(TrimSpace(content_type.substr(0, content_type.find(';'))));
  return media.rfind("text/", 0) == 0;
}

// client-go's maxUnstructuredResponseTextBytes.
constexpr std::size_t kMaxUnstructuredResponseTextBytes = 2048;

Error GenericServerResponse(int code, std::string_view body, const ResponseInfo& info) {
  std::string server_message = "unknown";
  if (IsTextContentType(info.content_type)) {
    server_message = std::string(TrimSpace(body.substr(0, kMaxUnstructuredResponseTextBytes)));
  }
  std::string_view reason = reason::kUnknown;
  std::string message =
      fmt::format("the server responded with the status code {} but did not return more information",
                  code);
  switch (code) {
    case 409:
      reason = info.verb == "POST" ? reason::kAlreadyExists : reason::kConflict;
      message = "the server reported a conflict";
      break;
    case 404:
      reason = reason::kNotFound;
      message = "the server could not find the requested resource";
      break;
    case 400:
      reason = reason::kBadRequest;
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      reason = reason::kUnauthorized;
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      reason = reason::kForbidden;
      message = server_message;  // it says who may not do what
      break;
    case 406:
      reason = reason::kNotAcceptable;
      message = server_message.empty() || server_message == "unknown"
                    ? "the server was unable to respond with a content type that the client supports"
                    : server_message;
      break;
    case 415:
      reason = reason::kUnsupportedMediaType;
      message = server_message;
      break;
    case 405:
      reason = reason::kMethodNotAllowed;
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      reason = reason::kInvalid;
      message = "the server rejected our request due to an error in our request";
      break;
    case 503:
      reason = reason::kServiceUnavailable;
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = reason::kTimeout;
      message =
          "the server was unable to return a response in the time allotted, but may still be "
          "processing the request";
      break;
    case 429:
      reason = reason::kTooManyRequests;
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) {
        reason = reason::kInternalError;
        message = fmt::format("an error on the server ({}) has prevented the request from succeeding",
                              GoQuote(server_message));
      }
  }
  const bool has_resource = !info.resource.group.empty() || !info.resource.resource.empty();
  if (has_resource && !info.name.empty()) {
    message = fmt::format("{} ({} {} {})", message, AsciiLower(info.verb), info.resource.String(),
                          info.name);
  } else if (has_resource) {
    message = fmt::format("{} ({} {})", message, AsciiLower(info.verb), info.resource.String());
  }
  Error e = MakeError(code, reason, std::move(message));
  StatusDetails d = ResourceDetails(info.resource, info.name);
  d.causes.push_back({std::string(cause::kUnexpectedServerResponse), server_message, ""});
  d.retry_after_seconds = info.retry_after_seconds;
  e.details = std::move(d);
  return e;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Encoding / decoding

std::string StatusJson(const Status& s) {
  std::string out = R"({"kind":"Status","apiVersion":"v1","metadata":{)";
  bool meta_first = true;
  AppendStringMember(out, meta_first, "resourceVersion", s.resource_version);
  AppendStringMember(out, meta_first, "continue", s.continue_token);
  out += '}';
  bool first = false;  // kind, apiVersion and metadata precede
  AppendStringMember(out, first, "status", s.status);
  AppendStringMember(out, first, "message", s.error.message);
  AppendStringMember(out, first, "reason", s.error.reason);
  if (s.error.details) {
    out += ",\"details\":";
    AppendDetails(out, *s.error.details);
  }
  AppendIntMember(out, first, "code", s.error.code);
  out += '}';
  return out;
}

std::string StatusJson(const Error& e) {
  return StatusJson(Status{.status = std::string(kStatusFailure), .error = e,
                           .resource_version = {}, .continue_token = {}});
}

std::string SuccessStatusJson(const StatusDetails& details) {
  Status s{.status = std::string(kStatusSuccess), .error = {}, .resource_version = {},
           .continue_token = {}};
  s.error.details = details;
  return StatusJson(s);
}

Status ContinueExpiredStatus(std::string fresh_token) {
  Status s{.status = std::string(kStatusFailure),
           .error = NewResourceExpired(std::string(fresh_token.empty() ? kContinueExpiredMsg
                                                                       : kInconsistentContinueMsg)),
           .resource_version = {},
           .continue_token = std::move(fresh_token)};
  return s;
}

Result<Status> ParseStatus(std::string_view json_text) {
  return ParseStatusImpl(json_text, /*require_type_meta=*/true);
}

Error ErrorFromResponse(int http_status, std::string_view body, const ResponseInfo& info) {
  if (!TrimSpace(body).empty()) {
    auto s = ParseStatusImpl(body, /*require_type_meta=*/false);
    if (s.ok() && s->status == kStatusFailure) {
      Error e = std::move(s->error);
      if (e.code == 0) e.code = http_status;
      return e;
    }
  }
  return GenericServerResponse(http_status, body, info);
}

// ---------------------------------------------------------------------------------------------
// FieldError

FieldError FieldError::Invalid(std::string field, std::string bad_value_json, std::string detail) {
  return {std::string(cause::kFieldValueInvalid), std::move(field), std::move(detail),
          std::move(bad_value_json)};
}
FieldError FieldError::Required(std::string field, std::string detail) {
  return {std::string(cause::kFieldValueRequired), std::move(field), std::move(detail), ""};
}
FieldError FieldError::Forbidden(std::string field, std::string detail) {
  return {std::string(cause::kFieldValueForbidden), std::move(field), std::move(detail), ""};
}
FieldError FieldError::Duplicate(std::string field, std::string bad_value_json) {
  return {std::string(cause::kFieldValueDuplicate), std::move(field), "",
          std::move(bad_value_json)};
}
FieldError FieldError::NotFound(std::string field, std::string bad_value_json) {
  return {std::string(cause::kFieldValueNotFound), std::move(field), "", std::move(bad_value_json)};
}
FieldError FieldError::NotSupported(std::string field, std::string bad_value_json,
                                    const std::vector<std::string>& valid_values) {
  std::string detail;
  if (!valid_values.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < valid_values.size(); ++i) {
      if (i > 0) detail += ", ";
      AppendGoQuoted(detail, valid_values[i]);
    }
  }
  return {std::string(cause::kFieldValueNotSupported), std::move(field), std::move(detail),
          std::move(bad_value_json)};
}
FieldError FieldError::TooLong(std::string field, std::string detail) {
  return {std::string(cause::kFieldValueTooLong), std::move(field), std::move(detail), ""};
}
FieldError FieldError::TypeInvalid(std::string field, std::string bad_value_json,
                                   std::string detail) {
  return {std::string(cause::kFieldValueTypeInvalid), std::move(field), std::move(detail),
          std::move(bad_value_json)};
}

std::string FieldError::Body() const {
  std::string s(FieldErrorTypeText(type));
  const bool value_hidden = type == cause::kFieldValueRequired ||
                            type == cause::kFieldValueForbidden ||
                            type == cause::kFieldValueTooLong || type == "InternalError";
  if (!value_hidden && !bad_value_go.empty()) {
    s += ": ";
    s += bad_value_go;
  } else if (!value_hidden && !bad_value_json.empty()) {
    s += ": ";
    s += RenderBadValue(bad_value_json);
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::String() const { return field + ": " + Body(); }

// ---------------------------------------------------------------------------------------------
// Constructors

Error NewNotFound(const GroupResource& gr, std::string_view name) {
  Error e = MakeError(404, reason::kNotFound, fmt::format("{} {} not found", gr.String(), GoQuote(name)));
  e.details = ResourceDetails(gr, name);
  return e;
}

Error NewAlreadyExists(const GroupResource& gr, std::string_view name) {
  Error e = MakeError(409, reason::kAlreadyExists,
                      fmt::format("{} {} already exists", gr.String(), GoQuote(name)));
  e.details = ResourceDetails(gr, name);
  return e;
}

Error NewGenerateNameConflict(const GroupResource& gr, std::string_view name,
                              int retry_after_seconds) {
  Error e = MakeError(
      409, reason::kAlreadyExists,
      fmt::format("{} {} already exists, the server was not able to generate a unique name for "
                  "the object",
                  gr.String(), GoQuote(name)));
  e.details = ResourceDetails(gr, name);
  e.details->retry_after_seconds = retry_after_seconds;
  return e;
}

Error NewConflict(const GroupResource& gr, std::string_view name, std::string_view cause_msg) {
  Error e = MakeError(409, reason::kConflict,
                      fmt::format("Operation cannot be fulfilled on {} {}: {}", gr.String(),
                                  GoQuote(name), cause_msg));
  e.details = ResourceDetails(gr, name);
  return e;
}

Error NewApplyConflict(std::vector<StatusCause> causes, std::string message) {
  Error e = MakeError(409, reason::kConflict, std::move(message));
  e.details = StatusDetails{};
  e.details->causes = std::move(causes);
  return e;
}

Error NewInvalid(const GroupKind& gk, std::string_view name, const std::vector<FieldError>& errs) {
  StatusDetails d;
  d.name = std::string(name);
  d.group = gk.group;
  d.kind = gk.kind;
  // The aggregate drops errors whose message repeats; the causes keep every error.
  std::vector<std::string> messages;
  std::set<std::string> seen;
  for (const auto& fe : errs) {
    d.causes.push_back({fe.type, fe.Body(), fe.field});
    auto msg = fe.String();
    if (seen.insert(msg).second) messages.push_back(std::move(msg));
  }
  std::string message;
  if (messages.empty()) {
    message = fmt::format("{} {} is invalid", gk.String(), GoQuote(name));
  } else if (messages.size() == 1) {
    message = fmt::format("{} {} is invalid: {}", gk.String(), GoQuote(name), messages[0]);
  } else {
    message = fmt::format("{} {} is invalid: [{}]", gk.String(), GoQuote(name),
                          JoinStrings(messages, ", "));
  }
  Error e = MakeError(422, reason::kInvalid, std::move(message));
  e.details = std::move(d);
  return e;
}

Error NewBadRequest(std::string message) {
  return MakeError(400, reason::kBadRequest, std::move(message));
}

Error NewResourceExpired(std::string message) {
  return MakeError(410, reason::kExpired, std::move(message));
}

Error NewGone(std::string message) { return MakeError(410, reason::kGone, std::move(message)); }

Error NewTooOldResourceVersion(std::uint64_t requested, std::uint64_t oldest_available) {
  return NewResourceExpired(
      fmt::format("too old resource version: {} ({})", requested, oldest_available));
}

Error NewForbidden(const GroupResource& gr, std::string_view name, std::string_view why) {
  std::string message;
  if (gr.group.empty() && gr.resource.empty()) {
    message = fmt::format("forbidden: {}", why);
  } else if (name.empty()) {
    message = fmt::format("{} is forbidden: {}", gr.String(), why);
  } else {
    message = fmt::format("{} {} is forbidden: {}", gr.String(), GoQuote(name), why);
  }
  Error e = MakeError(403, reason::kForbidden, std::move(message));
  e.details = ResourceDetails(gr, name);
  return e;
}

Error NewUnauthorized(std::string message) {
  if (message.empty()) message = "not authorized";
  return MakeError(401, reason::kUnauthorized, std::move(message));
}

Error NewTooManyRequests(std::string message, int retry_after_seconds) {
  Error e = MakeError(429, reason::kTooManyRequests, std::move(message));
  e.details = StatusDetails{};
  e.details->retry_after_seconds = retry_after_seconds;
  return e;
}

Error NewServerTimeout(const GroupResource& gr, std::string_view operation,
                       int retry_after_seconds) {
  Error e = MakeError(500, reason::kServerTimeout,
                      fmt::format("The {} operation against {} could not be completed at this "
                                  "time, please try again.",
                                  operation, gr.String()));
  e.details = ResourceDetails(gr, operation);
  e.details->retry_after_seconds = retry_after_seconds;
  return e;
}

Error NewTimeout(std::string_view message, int retry_after_seconds) {
  Error e = MakeError(504, reason::kTimeout, fmt::format("Timeout: {}", message));
  e.details = StatusDetails{};
  e.details->retry_after_seconds = retry_after_seconds;
  return e;
}

Error NewTooLargeResourceVersion(std::uint64_t requested, std::uint64_t current) {
  // The watch cache's resourceVersionTooHighRetrySeconds.
  constexpr int kRetrySeconds = 1;
  Error e = NewTimeout(
      fmt::format("Too large resource version: {}, current: {}", requested, current), kRetrySeconds);
  e.details->causes.push_back(
      {std::string(cause::kResourceVersionTooLarge), "Too large resource version", ""});
  return e;
}

Error NewMethodNotSupported(const GroupResource& gr, std::string_view action) {
  Error e = MakeError(405, reason::kMethodNotAllowed,
                      fmt::format("{} is not supported on resources of kind {}", action,
                                  GoQuote(gr.String())));
  e.details = ResourceDetails(gr, "");
  return e;
}

Error NewUnsupportedMediaType(const std::vector<std::string>& accepted) {
  return MakeError(415, reason::kUnsupportedMediaType,
                   fmt::format("the body of the request was in an unknown format - accepted media "
                               "types include: {}",
                               JoinStrings(accepted, ", ")));
}

Error NewNotAcceptable(const std::vector<std::string>& accepted) {
  return MakeError(406, reason::kNotAcceptable,
                   fmt::format("only the following media types are accepted: {}",
                               JoinStrings(accepted, ", ")));
}

Error NewInternalError(std::string_view message) {
  Error e = MakeError(500, reason::kInternalError, fmt::format("Internal error occurred: {}", message));
  e.details = StatusDetails{};
  e.details->causes.push_back({"", std::string(message), ""});
  return e;
}

Error NewRequestEntityTooLarge(std::string_view message) {
  return MakeError(413, reason::kRequestEntityTooLarge,
                   fmt::format("Request entity too large: {}", message));
}

Error NewServiceUnavailable(std::string message) {
  return MakeError(503, reason::kServiceUnavailable, std::move(message));
}

}  // namespace kube
