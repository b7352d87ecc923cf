#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/base/result.hpp>

/// Reading CustomResourceDefinitions from manifests (envtest's readCRDFiles).
namespace kube::testing::internal {

/// One CRD to install, with where it came from.
struct CrdManifest {
  std::string source{};  ///< "<file> document <n>" or "crds[<i>]", for error messages
  std::string name{};    ///< metadata.name
  std::string group{};
  std::string plural{};
  std::vector<std::string> served_versions{};
  boost::json::object object{};
};

/// Splits a YAML stream into its documents as Kubernetes' YAMLReader does: a line that starts
/// with `---` followed by nothing but blanks or a comment separates two documents.
std::vector<std::string_view> SplitYamlDocuments(std::string_view text);

/// The CRDs in `paths` (files, or directories whose *.yaml, *.yml, *.json files are read in name
/// order, not recursively). Documents that are empty or are not a CustomResourceDefinition are
/// skipped. **Errors:** 404 NotFound for a missing path when `error_if_missing` (else skipped);
/// 400 BadRequest naming the file and 1-based document index for a document that does not
/// parse, is not an object, or is an invalid CRD (see `ParseCrdText`).
Result<std::vector<CrdManifest>> ReadCrdPaths(const std::vector<std::string>& paths, bool error_if_missing);

/// One CRD given as JSON or YAML text; `source` names it in errors. **Errors:** 400 BadRequest
/// when it does not parse, is not an apiextensions.k8s.io/v1 CustomResourceDefinition, or lacks
/// metadata.name, spec.group, spec.names.plural or a served version.
Result<CrdManifest> ParseCrdText(std::string_view text, const std::string& source);

}  // namespace kube::testing::internal
