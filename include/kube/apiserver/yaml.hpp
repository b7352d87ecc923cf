#pragma once

#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

namespace kube::apiserver {

/// Decodes one YAML 1.1 document into JSON with the rules kube-apiserver (sigs.k8s.io/yaml)
/// applies to request bodies and manifests: plain `true`/`yes`/`on` are booleans, integers and
/// floats are numbers, `~`/`null`/empty are null, quoted scalars are strings. JSON is valid
/// input. The server's own decoder (server-side apply bodies), shared with kube::testing's
/// manifest reader. **Errors:** 400 BadRequest `error decoding YAML: ...` (with yaml-cpp's line
/// and column). **Thread-safety:** safe to call concurrently.
Result<boost::json::value> ParseYaml(std::string_view text);

}  // namespace kube::apiserver
