#pragma once

// The embedded API server as most integration tests start it: memory storage, plain HTTP on
// 127.0.0.1 with a free port, no authentication; and an unthrottled REST client for it.

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <kube/apiserver/apiserver.hpp>
#include <kube/base/result.hpp>
#include <kube/client/rest_client.hpp>

namespace kube::test_support {

/// A started in-process server and a REST client pointed at it.
struct InProcessServer {
  std::unique_ptr<apiserver::ApiServer> server;
  std::shared_ptr<client::RestClient> rest;
  std::string url;  ///< "http://127.0.0.1:<port>"
};

/// Starts a test-mode server; `tweak` adjusts the options (bookmark interval, compaction...)
/// before the start. **Errors:** the server's start error or the client's configuration error.
inline Result<InProcessServer> StartInProcessServer(
    const std::function<void(apiserver::ApiServerOptions&)>& tweak = {}) {
  apiserver::ApiServerOptions o;
  o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
  o.tls = false;
  o.authenticate = false;
  if (tweak) tweak(o);
  auto server = apiserver::ApiServer::Start(o);
  if (!server.ok()) return std::move(server).error();
  InProcessServer out;
  out.server = std::move(server).value();
  out.url = "http://127.0.0.1:" + std::to_string(out.server->port());
  auto rest = client::RestClient::Create({.host = out.url, .qps = -1});
  if (!rest.ok()) return std::move(rest).error();
  out.rest = std::move(rest).value();
  return out;
}

}  // namespace kube::test_support
