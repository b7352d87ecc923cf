#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/apiserver/discovery.hpp>
#include <kube/apiserver/http_server.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/service_account_token.hpp"

/// The TokenRequest API (POST serviceaccounts/NAME/token, served by `HandleServiceAccountToken`
/// in ops.hpp) and the service-account issuer's discovery endpoints, as kube-apiserver 1.32
/// serves them (pkg/registry/core/serviceaccount/storage/token.go, pkg/routes/openidmetadata.go).
/// **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// kube's ValidateTokenRequest for the v1 spec of a decoded, defaulted TokenRequest:
/// `spec.expirationSeconds` at least 600 (`may not specify a duration less than 10 minutes`)
/// and at most 2^32 (`may not specify a duration larger than 2^32 seconds`).
std::vector<FieldError> ValidateTokenRequestSpec(const boost::json::object& spec);

/// `GET /.well-known/openid-configuration` and `GET /openid/v1/jwks` (a trailing slash allowed)
/// with `issuer`'s documents, as go-restful routes them: another method is a 405 Status, a path
/// below either a 404 Status, an Accept header without `*/*` or the document's media type
/// (`application/json`, `application/jwk-set+json`) a 406 Status. Answered with
/// `Cache-Control: public, max-age=3600`. nullopt for any other path, and for every path when the
/// issuer is not an https URL (kube serves no discovery documents then).
std::optional<SimpleResponse> ServeServiceAccountIssuerDiscovery(const HttpRequest& req,
                                                                 const ServiceAccountTokenIssuer& issuer,
                                                                 std::string_view jwks_uri);

}  // namespace kube::apiserver::rest
