#include "apiserver/rest/names.hpp"

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/validation.hpp>

namespace kube::apiserver::rest {
namespace {

using validation::IsAlnum;
using validation::MaxLenError;
using validation::RegexError;

constexpr std::size_t kDns1123SubdomainMaxLength = 253;
constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;

constexpr std::string_view kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
constexpr std::string_view kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";

std::string_view MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') name.remove_suffix(1);
  return name;
}

std::string JsonString(std::string_view s) { return QuoteJson(s); }

}  // namespace

std::vector<std::string> IsValidPathSegmentName(std::string_view value) {
  if (value == "." || value == "..") return {"may not be '" + std::string(value) + "'"};
  std::vector<std::string> errs;
  if (value.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (value.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

std::vector<std::string> IsConfigMapKey(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDns1123SubdomainMaxLength));
  }
  bool ok = !value.empty();
  for (char c : value) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') ok = false;
  }
  if (!ok) {
    errs.push_back(RegexError(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  if (value == ".") {
    errs.push_back("must not be '.'");
  } else if (value == "..") {
    errs.push_back("must not be '..'");
  } else if (value.substr(0, 2) == "..") {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

std::vector<std::string> ValidateName(NameRule rule, std::string_view name, bool prefix) {
  if (prefix && rule != NameRule::kPathSegment) name = MaskTrailingDash(name);
  switch (rule) {
    case NameRule::kDnsSubdomain:
      return IsDns1123Subdomain(name);
    case NameRule::kDnsLabel:
      return IsDns1123Label(name);
    case NameRule::kDns1035Label:
      return IsDns1035Label(name);
    case NameRule::kPathSegment:
      if (prefix) {
        // ValidatePathSegmentName with prefix=true only checks for '/' and '%'.
        std::vector<std::string> errs;
        if (name.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
        if (name.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
        return errs;
      }
      return IsValidPathSegmentName(name);
  }
  return {};
}

std::vector<FieldError> ValidateObjectMeta(const boost::json::object& metadata, NameRule rule) {
  std::vector<FieldError> errs;
  auto str = [&](std::string_view key) -> std::string_view {
    const auto* v = metadata.if_contains(key);
    if (v == nullptr || !v->is_string()) return {};
    const auto& s = v->get_string();
    return {s.data(), s.size()};
  };
  const auto name = str("name");
  const auto generate_name = str("generateName");
  if (!generate_name.empty()) {
    for (auto& msg : ValidateName(rule, generate_name, true)) {
      errs.push_back(FieldError::Invalid("metadata.generateName", JsonString(generate_name), msg));
    }
  }
  if (name.empty()) {
    errs.push_back(FieldError::Required("metadata.name", "name or generateName is required"));
  } else {
    for (auto& msg : ValidateName(rule, name, false)) {
      errs.push_back(FieldError::Invalid("metadata.name", JsonString(name), msg));
    }
  }
  if (const auto* g = metadata.if_contains("generation"); g && g->is_int64() && g->get_int64() < 0) {
    errs.push_back(FieldError::Invalid("metadata.generation", std::to_string(g->get_int64()),
                                       "must be greater than or equal to 0"));
  }
  if (const auto* labels = metadata.if_contains("labels"); labels && labels->is_object()) {
    for (const auto& kv : labels->get_object()) {
      const std::string_view key(kv.key().data(), kv.key().size());
      for (auto& msg : IsQualifiedName(key)) {
        errs.push_back(FieldError::Invalid("metadata.labels", JsonString(key), msg));
      }
      if (kv.value().is_string()) {
        const auto& s = kv.value().get_string();
        const std::string_view value(s.data(), s.size());
        for (auto& msg : IsValidLabelValue(value)) {
          errs.push_back(FieldError::Invalid("metadata.labels", JsonString(value), msg));
        }
      }
    }
  }
  if (const auto* ann = metadata.if_contains("annotations"); ann && ann->is_object()) {
    std::size_t total = 0;
    for (const auto& kv : ann->get_object()) {
      const std::string_view key(kv.key().data(), kv.key().size());
      std::string lower(key);
      for (auto& c : lower) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      for (auto& msg : IsQualifiedName(lower)) {
        errs.push_back(FieldError::Invalid("metadata.annotations", JsonString(key), msg));
      }
      total += key.size();
      if (kv.value().is_string()) total += kv.value().get_string().size();
    }
    if (total > kTotalAnnotationSizeLimit) {
      errs.push_back(FieldError::TooLong(
          "metadata.annotations",
          "may not be more than " + std::to_string(kTotalAnnotationSizeLimit) + " bytes"));
    }
  }
  // ValidateOwnerReferences (its path has no index, as kube's).
  if (const auto* refs = metadata.if_contains("ownerReferences"); refs && refs->is_array()) {
    for (const auto& ref : refs->get_array()) {
      if (!ref.is_object()) continue;
      const auto& o = ref.get_object();
      auto member = [&](std::string_view key) -> std::string_view {
        const auto* v = o.if_contains(key);
        return v != nullptr && v->is_string() ? std::string_view(v->get_string().data(), v->get_string().size())
                                              : std::string_view();
      };
      const auto api_version = member("apiVersion");
      const auto slash = api_version.find('/');
      const auto version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
      if (version.empty()) {
        errs.push_back(FieldError::Invalid("metadata.ownerReferences.apiVersion", JsonString(api_version), "version must not be empty"));
      }
      if (member("kind").empty()) errs.push_back(FieldError::Invalid("metadata.ownerReferences.kind", JsonString(""), "kind must not be empty"));
      if (member("name").empty()) errs.push_back(FieldError::Invalid("metadata.ownerReferences.name", JsonString(""), "name must not be empty"));
      if (member("uid").empty()) errs.push_back(FieldError::Invalid("metadata.ownerReferences.uid", JsonString(""), "uid must not be empty"));
    }
  }
  // ValidateFinalizers: qualified names.
  if (const auto* fins = metadata.if_contains("finalizers"); fins && fins->is_array()) {
    std::size_t i = 0;
    for (const auto& f : fins->get_array()) {
      const std::string path = "metadata.finalizers[" + std::to_string(i++) + "]";
      if (!f.is_string()) continue;
      const std::string_view fin(f.get_string().data(), f.get_string().size());
      for (auto& msg : IsQualifiedName(fin)) errs.push_back(FieldError::Invalid(path, JsonString(fin), msg));
    }
  }
  return errs;
}

std::vector<FieldError> ValidateKubeFinalizerNames(const boost::json::object& metadata) {
  std::vector<FieldError> errs;
  const auto* fins = metadata.if_contains("finalizers");
  if (fins == nullptr || !fins->is_array()) return errs;
  std::size_t i = 0;
  for (const auto& f : fins->get_array()) {
    const std::string path = "metadata.finalizers[" + std::to_string(i++) + "]";
    if (!f.is_string()) continue;
    const std::string_view fin(f.get_string().data(), f.get_string().size());
    if (fin.find('/') == std::string_view::npos && fin != "kubernetes" && fin != "orphan" && fin != "foregroundDeletion") {
      errs.push_back(FieldError::Invalid(path, JsonString(fin), "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return errs;
}

}  // namespace kube::apiserver::rest
