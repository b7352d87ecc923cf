#pragma once

#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include <kube/core/status.hpp>

/// What Go's encoding/json says about a request body, for the messages kube-apiserver wraps
/// around it. Internal to src/apiserver/rest. **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// The error Go's json scanner reports for `text` ("unexpected end of JSON input",
/// "invalid character 'x' looking for beginning of value", ...); "" when the text is valid JSON.
std::string GoJsonSyntaxError(std::string_view text);

/// apimachinery's summarizeData(data, 30): "<empty>", the text itself when it starts with '{',
/// else its hex; longer data is cut at 30 bytes and followed by " ...".
std::string SummarizeData(std::string_view data);

/// The message kube gives a body that is not a JSON object ("couldn't get version/kind; json
/// parse error: ..."), after "the object provided is unrecognized (must be of type <Kind>): ".
std::string GoTypeMetaError(std::string_view body);

/// What Go's decoder makes of a JSON object with repeated member names.
struct GoDuplicates {
  /// The paths of the repeated members, in document order, as kube's strict decoder names them
  /// (`data`, `metadata.name`, `spec.containers[0].name`).
  std::vector<std::string> paths;
  /// The document as Go decodes it: a repeated member's later value wins, except that an
  /// object given twice is decoded into the same map or struct (the members merge).
  boost::json::value value;
};

/// Finds repeated member names in `text`, which `parsed` is the (valid) JSON parse of; nullopt
/// when there are none (the common case costs one scan of the text).
std::optional<GoDuplicates> FindGoDuplicates(std::string_view text, const boost::json::value& parsed);

// ---- values as Go's %#v prints them in kube's messages ----

/// Appends `s` as Go's encoding/json writes a string: quoted, `<`, `>`, `&`, control bytes and
/// U+2028/U+2029 escaped.
void AppendGoJsonString(std::string& out, std::string_view s);
/// A string as Go's %q prints it.
std::string GoString(std::string_view s);
/// map[string]string{"a":"b", "c":"d"} (keys sorted, as fmt sorts map keys); nil when absent.
std::string GoStringMap(const boost::json::object* m);
/// []string{"a", "b"}; nil when absent or not an array.
std::string GoStringSlice(const boost::json::value* v);
/// v1.LabelSelector{MatchLabels:..., MatchExpressions:...}
std::string GoLabelSelector(const boost::json::value& sel);
/// A JSON value decoded into `interface{}` as Go's %v prints it: `map[a:1 b:[x <nil>]]` (keys
/// sorted), strings bare, numbers as float64 (`1`, `1.5`, `1e+06`), `true`, `<nil>`.
std::string GoFmtValue(const boost::json::value& v);
/// An Invalid field error whose bad value is printed as Go's %#v (`go_value`).
FieldError InvalidGo(std::string field, std::string go_value, std::string detail);

}  // namespace kube::apiserver::rest
