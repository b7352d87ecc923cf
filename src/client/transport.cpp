#include <kube/client/transport.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

bool HasCause(const Error& e, std::string_view cause) {
  if (e.code != 0 || !e.details) return false;
  for (const auto& c : e.details->causes) {
    if (c.reason == cause) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string_view> FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (internal::EqualsIgnoreCase(k, name)) return std::string_view(v);
  }
  return std::nullopt;
}

Error MakeTransportError(std::string_view cause, std::string message) {
  Error e = TransportError(message);
  StatusDetails details;
  details.causes.push_back(StatusCause{std::string(cause), std::move(message), ""});
  e.details = std::move(details);
  return e;
}

bool IsConnectionReset(const Error& e) { return HasCause(e, transport_cause::kConnectionReset); }
bool IsClientTimeout(const Error& e) { return HasCause(e, transport_cause::kClientTimeout); }
bool IsTlsError(const Error& e) { return HasCause(e, transport_cause::kTls); }

}  // namespace kube::client
