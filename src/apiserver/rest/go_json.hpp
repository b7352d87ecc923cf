#pragma once

#include <string>
#include <string_view>

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

}  // namespace kube::apiserver::rest
