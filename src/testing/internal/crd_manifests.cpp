#include "testing/internal/crd_manifests.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/apiserver/yaml.hpp>
#include <kube/base/error.hpp>

namespace kube::testing::internal {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::string_view kCrdApiVersion = "apiextensions.k8s.io/v1";
constexpr std::string_view kCrdKind = "CustomResourceDefinition";

std::string_view StringAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

/// The CRD in one document; nullopt for an empty document or (unless `must_be_crd`) one of
/// another kind.
Result<std::optional<CrdManifest>> ParseDocument(std::string_view text, const std::string& source, bool must_be_crd) {
  auto parsed = apiserver::ParseYaml(text);
  if (!parsed.ok()) return BadRequest(fmt::format("{}: {}", source, parsed.error().message));
  if (parsed->is_null()) {
    if (must_be_crd) return BadRequest(fmt::format("{}: empty document", source));
    return std::optional<CrdManifest>();
  }
  if (!parsed->is_object()) return BadRequest(fmt::format("{}: not a YAML or JSON object", source));
  json::object& obj = parsed->get_object();
  const std::string_view kind = StringAt(obj, "kind");
  const std::string_view api_version = StringAt(obj, "apiVersion");
  if (kind != kCrdKind) {
    if (must_be_crd) {
      return BadRequest(fmt::format("{}: kind is \"{}\", not {} ({})", source, kind, kCrdKind, kCrdApiVersion));
    }
    return std::optional<CrdManifest>();
  }
  if (api_version != kCrdApiVersion) {
    return BadRequest(fmt::format("{}: a {} of apiVersion \"{}\": only {} is served (kube 1.22 removed v1beta1)",
                                  source, kCrdKind, api_version, kCrdApiVersion));
  }
  CrdManifest crd{.source = source};
  const json::object* meta = ObjectAt(obj, "metadata");
  const json::object* spec = ObjectAt(obj, "spec");
  const json::object* names = spec != nullptr ? ObjectAt(*spec, "names") : nullptr;
  crd.name = meta != nullptr ? std::string(StringAt(*meta, "name")) : std::string();
  crd.group = spec != nullptr ? std::string(StringAt(*spec, "group")) : std::string();
  crd.plural = names != nullptr ? std::string(StringAt(*names, "plural")) : std::string();
  if (crd.name.empty()) return BadRequest(fmt::format("{}: the CRD has no metadata.name", source));
  if (crd.group.empty() || crd.plural.empty()) {
    return BadRequest(fmt::format("{}: CRD {} needs spec.group and spec.names.plural", source, crd.name));
  }
  if (const json::value* versions = spec->if_contains("versions"); versions != nullptr && versions->is_array()) {
    for (const json::value& v : versions->get_array()) {
      if (!v.is_object()) continue;
      const json::value* served = v.get_object().if_contains("served");
      const std::string_view name = StringAt(v.get_object(), "name");
      if (served != nullptr && served->is_bool() && served->get_bool() && !name.empty()) {
        crd.served_versions.emplace_back(name);
      }
    }
  }
  if (crd.served_versions.empty()) {
    return BadRequest(fmt::format("{}: CRD {} serves no version (spec.versions[].served)", source, crd.name));
  }
  crd.object = std::move(obj);
  return std::optional<CrdManifest>(std::move(crd));
}

bool IsManifestFile(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

Result<void> ReadFile(const fs::path& file, std::vector<CrdManifest>& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return BadRequest(fmt::format("{}: cannot be read", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::vector<std::string_view> docs = SplitYamlDocuments(text);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    auto crd = ParseDocument(docs[i], fmt::format("{} document {}", file.string(), i + 1), /*must_be_crd=*/false);
    if (!crd.ok()) return std::move(crd).error();
    if (*crd) out.push_back(std::move(**crd));
  }
  return Ok();
}

}  // namespace

std::vector<std::string_view> SplitYamlDocuments(std::string_view text) {
  std::vector<std::string_view> docs;
  std::size_t doc_start = 0;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    if (line.starts_with("---")) {
      std::string_view rest = line.substr(3);
      const std::size_t first = rest.find_first_not_of(" \t\r");
      if (first == std::string_view::npos || rest[first] == '#') {
        docs.push_back(text.substr(doc_start, line_start - doc_start));
        doc_start = std::min(line_end + 1, text.size());
      }
    }
    line_start = line_end + 1;
  }
  docs.push_back(text.substr(doc_start));
  // A leading `---` (or a trailing one) leaves an empty document: not one the author wrote.
  std::erase_if(docs, IsBlank);
  return docs;
}

Result<std::vector<CrdManifest>> ReadCrdPaths(const std::vector<std::string>& paths, bool error_if_missing) {
  std::vector<CrdManifest> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) {
      if (error_if_missing) return MakeError(404, reason::kNotFound, fmt::format("CRD path {} does not exist", path));
      continue;
    }
    if (!fs::is_directory(st)) {
      KUBE_RETURN_IF_ERROR(ReadFile(path, out));
      continue;
    }
    std::vector<fs::path> files;
    // increment(ec), not a range-for: its operator++ throws.
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && IsManifestFile(it->path())) files.push_back(it->path());
    }
    if (ec) return BadRequest(fmt::format("CRD directory {}: {}", path, ec.message()));
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) KUBE_RETURN_IF_ERROR(ReadFile(f, out));
  }
  return out;
}

Result<CrdManifest> ParseCrdText(std::string_view text, const std::string& source) {
  auto crd = ParseDocument(text, source, /*must_be_crd=*/true);
  if (!crd.ok()) return std::move(crd).error();
  return std::move(**crd);
}

}  // namespace kube::testing::internal
