#pragma once

#include <string_view>

#include <kube/base/result.hpp>

/// PEM checks with OpenSSL, so that bad certificate material is reported when the configuration
/// is loaded (naming the kubeconfig field) rather than at the first TLS handshake.
namespace kube::client::internal {

/// Checks that `pem` holds at least one X.509 certificate and nothing unparsable; returns the
/// number of certificates. **Errors:** BadRequest `no PEM certificate found` or the OpenSSL reason.
Result<int> CheckCertificatesPem(std::string_view pem);
/// Checks that `pem` holds a private key. **Errors:** BadRequest with the OpenSSL reason.
Result<void> CheckPrivateKeyPem(std::string_view pem);
/// Checks that the key matches the first certificate (Go's `tls.X509KeyPair`).
/// **Errors:** BadRequest `private key does not match public key`, or as the checks above.
Result<void> CheckKeyPair(std::string_view cert_pem, std::string_view key_pem);

}  // namespace kube::client::internal
