#pragma once

#include <boost/json/object.hpp>
#include <kube/apiserver/resource.hpp>
#include <kube/core/status.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/rest/strategy.hpp"

/// certificates.k8s.io/v1 CertificateSigningRequests: kube 1.32's strategies for the main
/// resource and the `/status` and `/approval` subresources (pkg/registry/certificates) and its
/// validation (pkg/apis/certificates/validation), over the stored (v1) JSON DOM. Internal to
/// src/apiserver/rest. **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// True for certificates.k8s.io's certificatesigningrequests.
bool IsCertificateSigningRequest(const ResourceInfo& info);

/// PrepareForCreate: the requester fields of `spec` (username, uid, groups, extra) are the
/// authenticated `user`'s ("admin", the embedded server's superuser, is in the groups kube gives a
/// `system:masters` token user: `system:masters`, `system:authenticated`; `system:anonymous` is
/// in `system:unauthenticated`; "" (no authentication) leaves them empty), and the status is
/// empty.
void PrepareCsrCreate(boost::json::object& obj, std::string_view user);

/// PrepareForUpdate after the generic one (which kept the old status for the main resource,
/// merged the new metadata and status for `/status`, and the new conditions for `/approval`):
/// the spec is always the old one; `/status` keeps the old Approved and Denied conditions when
/// the new object has as many of each; `/status` and `/approval` set the conditions'
/// lastUpdateTime (when unset) and lastTransitionTime (when unset: the old one of a condition
/// of the same type and status, else `now`, RFC 3339).
void PrepareCsrUpdate(Subresource sub, boost::json::object& obj, const boost::json::object& old, std::string_view now);

/// kube's ValidateCertificateSigningRequestCreate (`old` nullptr) or the Update, StatusUpdate and
/// ApprovalUpdate validations for `sub`, without the object metadata: the request (a PEM
/// `CERTIFICATE REQUEST` with a valid signature), usages, signerName, expirationSeconds, the
/// conditions, the certificate, and which conditions and certificate an update may change.
/// What the old object already breaks is tolerated, as kube does.
void ValidateCertificateSigningRequest(const boost::json::object& obj, const boost::json::object* old, Subresource sub,
                                       std::vector<FieldError>& errs);

/// The reset fields of kube's strategy for writes through `sub` besides the main resource's
/// `status` (which the generic rules handle): `spec` always, `status.conditions` for `/status`
/// and `status.certificate` for `/approval` (dotted paths).
std::vector<std::string> CsrResetFields(Subresource sub);

// ---- PEM and X.509, as Go's encoding/pem and crypto/x509 see them (csr_pki.cpp) ----

/// One PEM block (Go's pem.Block).
struct PemBlock {
  std::string type;                            ///< "CERTIFICATE REQUEST"
  std::map<std::string, std::string> headers;  ///< `Key: value` lines before the body
  std::string bytes;                           ///< the decoded body
};

/// Go's pem.Decode: the first well-formed block of `data` (text before it is skipped, malformed
/// blocks are passed over), and in `rest` what follows it; nullopt when there is none.
std::optional<PemBlock> DecodePem(std::string_view data, std::string_view* rest = nullptr);

/// kube's validateCSR on the decoded `spec.request` bytes: "" when they are a PEM `CERTIFICATE
/// REQUEST` whose PKCS#10 request parses and is signed by its own key, else Go's error text
/// (`PEM block type must be CERTIFICATE REQUEST`, encoding/asn1's errors for a malformed outer
/// structure, `x509: ECDSA verification failure`, `crypto/rsa: verification error`, ...).
std::string CertificateRequestError(std::string_view pem);

/// kube's validateCertificate on the decoded `status.certificate` bytes: "" for none or a chain
/// of PEM `CERTIFICATE` blocks that parse, else kube's message.
std::string CertificateError(std::string_view pem);

}  // namespace kube::apiserver::rest
