#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/apiserver/apiserver.hpp>

#include "test_client.hpp"

/// The in-process API server for the integration tests: memory storage, plain HTTP on a
/// 127.0.0.1 ephemeral port, no authentication, compaction only when a test calls it (and with no
/// retention floor, so a test can compact up to any revision).
namespace kube::apiserver::testing {

class ApiServerTest : public ::testing::Test {
 protected:
  /// Options the fixture starts the server with; tests may override `Options()`.
  virtual ApiServerOptions Options() {
    ApiServerOptions o;
    o.storage = ApiServerOptions::StorageKind::kMemory;
    o.tls = false;
    o.authenticate = false;
    o.storage_options.compaction_interval = std::chrono::seconds(0);
    o.storage_options.compaction_min_revisions = 0;
    o.storage_options.compaction_min_age = std::chrono::seconds(0);
    o.rest.bookmark_interval = std::chrono::milliseconds(300);
    return o;
  }

  void SetUp() override {
    auto server = ApiServer::Start(Options());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(*server);
    client_ = std::make_unique<HttpClient>(server_->port());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
  }

  HttpClient& client() { return *client_; }
  uint16_t port() const { return server_->port(); }
  Storage& storage() { return server_->storage(); }

  /// Creates a ConfigMap in `ns` and returns the response (asserting 201).
  boost::json::object CreateConfigMap(std::string_view ns, std::string_view name,
                                      std::string_view labels_json = "{}", std::string_view data_json = "{}") {
    const std::string body = std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")") +
                             std::string(name) + R"(","labels":)" + std::string(labels_json) +
                             R"(},"data":)" + std::string(data_json) + "}";
    auto res = client().Post("/api/v1/namespaces/" + std::string(ns) + "/configmaps", body);
    EXPECT_EQ(res.status, 201) << res.body;
    auto json = res.Json();
    return json.is_object() ? json.as_object() : boost::json::object();
  }

  /// Creates a namespace (asserting 201).
  void CreateNamespace(std::string_view name) {
    auto res = client().Post("/api/v1/namespaces", R"({"metadata":{"name":")" + std::string(name) + R"("}})");
    ASSERT_EQ(res.status, 201) << res.body;
  }

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<HttpClient> client_;

 public:
  /// The value at `path` of a JSON document: strings as is, anything else serialized; "" if absent.
  static std::string Str(const boost::json::value& v, std::initializer_list<std::string_view> path) {
    const boost::json::value* cur = &v;
    for (auto key : path) {
      if (!cur->is_object()) return {};
      cur = cur->as_object().if_contains(key);
      if (cur == nullptr) return {};
    }
    return cur->is_string() ? std::string(cur->as_string()) : boost::json::serialize(*cur);
  }
  /// `metadata.resourceVersion` of an object.
  static std::string Rv(const boost::json::value& obj) { return Str(obj, {"metadata", "resourceVersion"}); }
};

}  // namespace kube::apiserver::testing
