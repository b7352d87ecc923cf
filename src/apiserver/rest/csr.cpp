// CertificateSigningRequest strategies and validation, as kube 1.32's registry and
// pkg/apis/certificates/validation have them.

#include "apiserver/rest/csr.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <kube/base/base64.hpp>
#include <kube/core/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/names.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kLegacyUnknownSigner = "kubernetes.io/legacy-unknown";
constexpr std::size_t kDns1123SubdomainMaxLength = 253;
constexpr std::size_t kDns1123LabelMaxLength = 63;
constexpr int64_t kMinExpirationSeconds = 600;

const json::object kNone;

const json::object& Sub(const json::object& o, std::string_view key) {
  const auto* v = ObjectAt(o, key);
  return v != nullptr ? *v : kNone;
}

const json::array& Conditions(const json::object& csr) {
  static const json::array kEmpty;
  const auto* v = Sub(csr, "status").if_contains("conditions");
  return v != nullptr && v->is_array() ? v->get_array() : kEmpty;
}

std::string_view TypeOf(const json::value& c) { return c.is_object() ? StringAt(c.get_object(), "type") : ""; }
std::string_view StatusOf(const json::value& c) { return c.is_object() ? StringAt(c.get_object(), "status") : ""; }

std::vector<json::value> Find(const json::object& csr, std::string_view type) {
  std::vector<json::value> out;
  for (const auto& c : Conditions(csr)) {
    if (TypeOf(c) == type) out.push_back(c);
  }
  return out;
}

bool Has(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && !v->is_null() && !(v->is_string() && v->get_string().empty());
}

// Go's %#v of a []byte.
std::string GoBytes(const json::value* v, const std::string& decoded) {
  if (v == nullptr || v->is_null()) return "[]byte(nil)";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "[]byte{";
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    const auto c = static_cast<unsigned char>(decoded[i]);
    if (i > 0) out += ", ";
    out += "0x";
    if (c >= 16) out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out + "}";
}

// The decoded bytes of a base64 member (decoding checked it already).
std::string BytesAt(const json::object& o, std::string_view key) {
  const auto text = StringAt(o, key);
  auto decoded = Base64Decode(text);
  return decoded.ok() ? *decoded : std::string();
}

const std::vector<std::string>& ValidUsages() {
  static const std::vector<std::string> k = {"any",
                                             "cert sign",
                                             "client auth",
                                             "code signing",
                                             "content commitment",
                                             "crl sign",
                                             "data encipherment",
                                             "decipher only",
                                             "digital signature",
                                             "email protection",
                                             "encipher only",
                                             "ipsec end system",
                                             "ipsec tunnel",
                                             "ipsec user",
                                             "key agreement",
                                             "key encipherment",
                                             "microsoft sgc",
                                             "netscape sgc",
                                             "ocsp signing",
                                             "s/mime",
                                             "server auth",
                                             "signing",
                                             "timestamping"};
  return k;
}

std::vector<std::string> Usages(const json::object& csr) {
  std::vector<std::string> out;
  const auto* v = Sub(csr, "spec").if_contains("usages");
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& u : v->get_array()) out.emplace_back(u.is_string() ? std::string(u.get_string()) : "");
  return out;
}

bool Unknown(const std::vector<std::string>& usages) {
  const auto& valid = ValidUsages();
  return std::any_of(usages.begin(), usages.end(),
                     [&](const std::string& u) { return std::find(valid.begin(), valid.end(), u) == valid.end(); });
}

bool Duplicated(const std::vector<std::string>& values) {
  std::set<std::string> seen;
  for (const auto& v : values) {
    if (!seen.insert(v).second) return true;
  }
  return false;
}

std::vector<std::string> ConditionTypes(const json::object& csr) {
  std::vector<std::string> out;
  for (const auto& c : Conditions(csr)) out.emplace_back(TypeOf(c));
  return out;
}

// What kube tolerates because the stored object already has it.
struct Options {
  bool setting_approval_conditions = false;
  bool setting_certificate = false;
  bool both_approved_and_denied = false;
  bool legacy_signer = false;
  bool duplicate_condition_types = false;
  bool empty_condition_type = false;
  bool arbitrary_certificate = false;
  bool unknown_usages = false;
  bool duplicate_usages = false;
};

Options OptionsFor(const json::object& obj, const json::object* old) {
  Options o;
  if (old == nullptr) return o;
  const auto types = ConditionTypes(*old);
  o.both_approved_and_denied = std::find(types.begin(), types.end(), "Approved") != types.end() &&
                               std::find(types.begin(), types.end(), "Denied") != types.end();
  o.legacy_signer = StringAt(Sub(*old, "spec"), "signerName") == kLegacyUnknownSigner;
  o.duplicate_condition_types = Duplicated(types);
  o.empty_condition_type = std::find(types.begin(), types.end(), "") != types.end();
  const std::string old_cert = BytesAt(Sub(*old, "status"), "certificate");
  o.arbitrary_certificate =
      BytesAt(Sub(obj, "status"), "certificate") == old_cert || !CertificateError(old_cert).empty();
  o.unknown_usages = Unknown(Usages(*old));
  o.duplicate_usages = Duplicated(Usages(*old));
  return o;
}

void ValidateSignerName(std::string_view signer, std::vector<FieldError>& errs) {
  const std::string path = "spec.signerName";
  if (signer.empty()) {
    errs.push_back(FieldError::Required(path));
    return;
  }
  std::vector<std::string_view> segments;
  for (std::size_t start = 0;;) {
    const auto slash = signer.find('/', start);
    segments.push_back(signer.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (segments.size() != 2) {
    errs.push_back(FieldError::Invalid(
        path, QuoteJson(signer), "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return;
  }
  const std::string_view domain = segments[0];
  const std::string_view name = segments[1];
  if (domain.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(
        FieldError::TooLong(path, "may not be more than " + std::to_string(kDns1123SubdomainMaxLength) + " bytes"));
  }
  auto split = [](std::string_view s) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
      const auto dot = s.find('.', start);
      parts.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    return parts;
  };
  const auto labels = split(domain);
  for (auto label : labels) {
    auto msgs = IsDns1123Label(label);
    if (msgs.empty()) continue;
    // Further messages would repeat this one.
    for (auto& msg : msgs) {
      errs.push_back(FieldError::Invalid(path, QuoteJson(domain), "validating label " + QuoteJson(label) + ": " + msg));
    }
    break;
  }
  if (labels.size() < 2) {
    errs.push_back(FieldError::Invalid(path, QuoteJson(domain),
                                       "should be a domain with at least two segments separated by dots"));
  }
  for (auto label : split(name)) {
    auto msgs = IsDns1123Subdomain(label);
    if (msgs.empty()) continue;
    for (auto& msg : msgs) {
      errs.push_back(FieldError::Invalid(path, QuoteJson(name), "validating label " + QuoteJson(label) + ": " + msg));
    }
    break;
  }
  const std::size_t max_length =
      kDns1123SubdomainMaxLength + (kDns1123SubdomainMaxLength + kDns1123LabelMaxLength + 1) + 1;
  if (signer.size() > max_length) {
    errs.push_back(FieldError::TooLong(path, "may not be more than " + std::to_string(max_length) + " bytes"));
  }
}

void ValidateConditions(const json::object& csr, const Options& opts, std::vector<FieldError>& errs) {
  const auto& conditions = Conditions(csr);
  std::set<std::string> seen;
  bool approved = false;
  bool denied = false;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const std::string type(TypeOf(conditions[i]));
    const std::string status(StatusOf(conditions[i]));
    if (!opts.empty_condition_type && type.empty()) errs.push_back(FieldError::Required(at + ".type"));
    const bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    const std::vector<std::string> allowed =
        true_only ? std::vector<std::string>{"True"} : std::vector<std::string>{"False", "True", "Unknown"};
    if (status.empty()) {
      errs.push_back(FieldError::Required(at + ".status"));
    } else if (std::find(allowed.begin(), allowed.end(), status) == allowed.end()) {
      errs.push_back(FieldError::NotSupported(at + ".status", QuoteJson(status), allowed));
    }
    if (!opts.both_approved_and_denied) {
      if (type == "Approved") {
        approved = true;
        if (denied)
          errs.push_back(FieldError::Invalid(at + ".type", QuoteJson(type),
                                             "Approved and Denied conditions are mutually exclusive"));
      } else if (type == "Denied") {
        denied = true;
        if (approved)
          errs.push_back(FieldError::Invalid(at + ".type", QuoteJson(type),
                                             "Approved and Denied conditions are mutually exclusive"));
      }
    }
    if (!opts.duplicate_condition_types && !seen.insert(type).second) {
      errs.push_back(FieldError::Duplicate(at + ".type", QuoteJson(type)));
    }
  }
}

// Sets lastUpdateTime where unset, and lastTransitionTime where unset: the old one of a condition
// of the same type and status, else now.
void PopulateConditionTimestamps(json::object& obj, const json::object& old, std::string_view now) {
  auto* status = ObjectAt(obj, "status");
  auto* conditions = status != nullptr ? status->if_contains("conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return;
  for (auto& c : conditions->get_array()) {
    if (!c.is_object()) continue;
    auto& condition = c.get_object();
    if (!Has(condition, "lastUpdateTime")) condition["lastUpdateTime"] = json::string(now);
    if (Has(condition, "lastTransitionTime")) continue;
    json::value transition = json::string(now);
    for (const auto& o : Conditions(old)) {
      if (TypeOf(o) == StringAt(condition, "type") && StatusOf(o) == StringAt(condition, "status") &&
          Has(o.get_object(), "lastTransitionTime")) {
        transition = o.get_object().at("lastTransitionTime");
        break;
      }
    }
    condition["lastTransitionTime"] = std::move(transition);
  }
}

// The /status strategy keeps the old instances of `type` when the new object has as many.
void PreserveConditions(json::object& obj, const json::object& old, std::string_view type) {
  const auto& old_conditions = Conditions(old);
  auto* status = ObjectAt(obj, "status");
  auto* conditions = status != nullptr ? status->if_contains("conditions") : nullptr;
  std::vector<std::size_t> old_at;
  for (std::size_t i = 0; i < old_conditions.size(); ++i) {
    if (TypeOf(old_conditions[i]) == type) old_at.push_back(i);
  }
  std::vector<std::size_t> new_at;
  if (conditions != nullptr && conditions->is_array()) {
    for (std::size_t i = 0; i < conditions->get_array().size(); ++i) {
      if (TypeOf(conditions->get_array()[i]) == type) new_at.push_back(i);
    }
  }
  if (old_at.size() != new_at.size()) return;
  for (std::size_t i = 0; i < old_at.size(); ++i) conditions->get_array()[new_at[i]] = old_conditions[old_at[i]];
}

}  // namespace

bool IsCertificateSigningRequest(const ResourceInfo& info) {
  return info.builtin && info.group == "certificates.k8s.io" && info.resource == "certificatesigningrequests";
}

void PrepareCsrCreate(json::object& obj, std::string_view user) {
  auto& spec = EnsureObject(obj, "spec");
  for (std::string_view member : {"username", "uid", "groups", "extra"}) spec.erase(member);
  if (!user.empty()) {
    spec["username"] = json::string(user);
    if (user == "system:anonymous") {
      spec["groups"] = json::array{"system:unauthenticated"};
    } else if (user == "admin") {
      spec["groups"] = json::array{"system:masters", "system:authenticated"};
    } else {
      spec["groups"] = json::array{"system:authenticated"};
    }
  }
  obj["status"] = json::object();
}

void PrepareCsrUpdate(Subresource sub, json::object& obj, const json::object& old, std::string_view now) {
  CopyMember(obj, old, "spec");
  if (sub == Subresource::kStatus) {
    PreserveConditions(obj, old, "Approved");
    PreserveConditions(obj, old, "Denied");
  }
  if (sub == Subresource::kStatus || sub == Subresource::kApproval) PopulateConditionTimestamps(obj, old, now);
}

void ValidateCertificateSigningRequest(const json::object& obj, const json::object* old, Subresource sub,
                                       std::vector<FieldError>& errs) {
  Options opts = OptionsFor(obj, old);
  opts.setting_certificate = sub == Subresource::kStatus;
  opts.setting_approval_conditions = sub == Subresource::kApproval;
  const json::object& spec = Sub(obj, "spec");

  const json::value* request = spec.if_contains("request");
  const std::string request_bytes = BytesAt(spec, "request");
  if (std::string problem = CertificateRequestError(request_bytes); !problem.empty()) {
    FieldError e = FieldError::Invalid("spec.request", "", std::move(problem));
    e.bad_value_go = GoBytes(request, request_bytes);
    errs.push_back(std::move(e));
  }
  const std::vector<std::string> usages = Usages(obj);
  if (usages.empty()) errs.push_back(FieldError::Required("spec.usages"));
  if (!opts.unknown_usages) {
    const auto& valid = ValidUsages();
    for (std::size_t i = 0; i < usages.size(); ++i) {
      if (std::find(valid.begin(), valid.end(), usages[i]) == valid.end()) {
        errs.push_back(FieldError::NotSupported("spec.usages[" + std::to_string(i) + "]", QuoteJson(usages[i]), valid));
      }
    }
  }
  if (!opts.duplicate_usages) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < usages.size(); ++i) {
      if (!seen.insert(usages[i]).second) {
        errs.push_back(FieldError::Duplicate("spec.usages[" + std::to_string(i) + "]", QuoteJson(usages[i])));
      }
    }
  }
  const auto signer = StringAt(spec, "signerName");
  if (!opts.legacy_signer && signer == kLegacyUnknownSigner) {
    errs.push_back(FieldError::Invalid("spec.signerName", QuoteJson(signer),
                                       "the legacy signerName is not allowed via this API version"));
  } else {
    ValidateSignerName(signer, errs);
  }
  if (const auto* seconds = spec.if_contains("expirationSeconds");
      seconds != nullptr && seconds->is_int64() && seconds->get_int64() < kMinExpirationSeconds) {
    errs.push_back(FieldError::Invalid("spec.expirationSeconds", std::to_string(seconds->get_int64()),
                                       "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  ValidateConditions(obj, opts, errs);
  const std::string certificate = BytesAt(Sub(obj, "status"), "certificate");
  if (!opts.arbitrary_certificate) {
    if (std::string problem = CertificateError(certificate); !problem.empty()) {
      errs.push_back(FieldError::Invalid("status.certificate", QuoteJson("<certificate data>"), problem));
    }
  }
  if (old == nullptr) return;

  for (std::string_view type : {"Approved", "Denied", "Failed"}) {
    if (Find(obj, type).size() < Find(*old, type).size()) {
      errs.push_back(
          FieldError::Forbidden("status.conditions", "updates may not remove a condition of type " + QuoteJson(type)));
    }
  }
  if (!opts.setting_approval_conditions) {
    for (std::string_view type : {"Approved", "Denied"}) {
      const auto now = Find(obj, type);
      const auto before = Find(*old, type);
      if (now.size() > before.size()) {
        errs.push_back(
            FieldError::Forbidden("status.conditions", "updates may not add a condition of type " + QuoteJson(type)));
      } else if (now.size() == before.size() && !std::equal(now.begin(), now.end(), before.begin())) {
        errs.push_back(FieldError::Forbidden("status.conditions",
                                             "updates may not modify a condition of type " + QuoteJson(type)));
      }
    }
  }
  const std::string old_certificate = BytesAt(Sub(*old, "status"), "certificate");
  if (certificate != old_certificate) {
    if (!opts.setting_certificate) {
      errs.push_back(FieldError::Forbidden("status.certificate", "updates may not set certificate content"));
    } else if (!old_certificate.empty()) {
      errs.push_back(
          FieldError::Forbidden("status.certificate", "updates may not modify existing certificate content"));
    }
  }
}

std::vector<std::string> CsrResetFields(Subresource sub) {
  if (sub == Subresource::kStatus) return {"spec", "status.conditions"};
  if (sub == Subresource::kApproval) return {"spec", "status.certificate"};
  return {"spec"};
}

}  // namespace kube::apiserver::rest
