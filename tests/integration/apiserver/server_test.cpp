// ApiServer::Start wiring: option checks, the generated kubeconfig/token/PKI, discovery next to
// REST, authentication, and a durable (sqlite) restart.

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("kubecpp-rest-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ApiServerOptions PlainOptions() {
  ApiServerOptions o;
  o.storage = ApiServerOptions::StorageKind::kMemory;
  o.tls = false;
  o.authenticate = false;
  return o;
}

TEST(ApiServerStart, TestModeNeedsNoDataDirButTheDurableModesDo) {
  auto plain = ApiServer::Start(PlainOptions());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ((*plain)->url(), "http://127.0.0.1:" + std::to_string((*plain)->port()));
  EXPECT_EQ((*plain)->kubeconfig_path(), "");
  EXPECT_EQ((*plain)->token(), "");
  ApiServerOptions sqlite = PlainOptions();
  sqlite.storage = ApiServerOptions::StorageKind::kSqlite;
  auto bad = ApiServer::Start(sqlite);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
}

TEST(ApiServerStart, WritesAKubeconfigWithTheCaAndTokenAndRequiresTheToken) {
  TempDir dir;
  ApiServerOptions o;
  o.data_dir = dir.str();
  o.storage = ApiServerOptions::StorageKind::kMemory;
  o.tls = false;  // the test client speaks plain HTTP; TLS material is still checked below
  o.authenticate = true;
  auto server = ApiServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string kubeconfig = ReadAll((*server)->kubeconfig_path());
  EXPECT_NE(kubeconfig.find((*server)->url()), std::string::npos) << kubeconfig;
  EXPECT_NE(kubeconfig.find((*server)->token()), std::string::npos);
  HttpClient client((*server)->port());
  EXPECT_EQ(client.Get("/api/v1/namespaces").status, 401);
  auto ok = client.Get("/api/v1/namespaces", {{"Authorization", "Bearer " + (*server)->token()}});
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(client.Get("/healthz").status, 200);

  TempDir tls_dir;
  ApiServerOptions t;
  t.data_dir = tls_dir.str();
  t.storage = ApiServerOptions::StorageKind::kMemory;
  auto tls = ApiServer::Start(t);
  ASSERT_TRUE(tls.ok()) << tls.error().message;
  EXPECT_EQ((*tls)->url().rfind("https://127.0.0.1:", 0), 0u);
  EXPECT_NE(ReadAll((*tls)->kubeconfig_path()).find("certificate-authority-data"), std::string::npos);
  EXPECT_TRUE(fs::exists(tls_dir.str() + "/pki/ca.crt"));
}

TEST(ApiServerStart, DiscoveryAndRestShareOnePort) {
  auto server = ApiServer::Start(PlainOptions());
  ASSERT_TRUE(server.ok());
  HttpClient client((*server)->port());
  auto version = client.Get("/version");
  EXPECT_EQ(version.status, 200);
  EXPECT_EQ(ApiServerTest::Str(version.Json(), {"gitVersion"}), "v1.32.0");
  auto apps = client.Get("/apis/apps/v1");
  ASSERT_EQ(apps.status, 200);
  EXPECT_NE(apps.body.find("\"deployments/scale\""), std::string::npos);
  EXPECT_EQ(client.Get("/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(client.Get("/nope").status, 404);
}

TEST(ApiServerStart, SqliteStateSurvivesARestart) {
  TempDir dir;
  ApiServerOptions o = PlainOptions();
  o.data_dir = dir.str();
  o.storage = ApiServerOptions::StorageKind::kSqlite;
  std::string rv;
  {
    auto server = ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    HttpClient client((*server)->port());
    auto res = client.Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"kept"},"data":{"k":"v"}})");
    ASSERT_EQ(res.status, 201) << res.body;
    rv = ApiServerTest::Rv(res.Json());
  }
  auto server = ApiServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.error().message;
  HttpClient client((*server)->port());
  auto kept = client.Get("/api/v1/namespaces/default/configmaps/kept");
  ASSERT_EQ(kept.status, 200);
  EXPECT_EQ(ApiServerTest::Rv(kept.Json()), rv);
  auto ns = client.Get("/api/v1/namespaces");
  EXPECT_EQ(ns.Json().as_object().at("items").as_array().size(), 3u) << "system namespaces are not duplicated";
  auto next = client.Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"next"}})");
  ASSERT_EQ(next.status, 201);
  EXPECT_GT(std::stoll(ApiServerTest::Rv(next.Json())), std::stoll(rv)) << "revisions keep increasing";
}

TEST(ApiServerStart, TheDataDirAndTheDatabaseAreTheOwnersAlone) {
  TempDir parent;
  ApiServerOptions o = PlainOptions();
  o.data_dir = parent.str() + "/data";  // created by the server
  o.storage = ApiServerOptions::StorageKind::kSqlite;
  auto server = ApiServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.error().message;
  HttpClient client((*server)->port());
  ASSERT_EQ(client.Post("/api/v1/namespaces/default/secrets", R"({"metadata":{"name":"s"},"data":{"k":"dg=="}})").status, 201);
  auto mode = [](const std::string& path) {
    return fs::status(path).permissions() & (fs::perms::all);
  };
  EXPECT_EQ(mode(o.data_dir), fs::perms::owner_all);
  EXPECT_EQ(mode(o.data_dir + "/kubecpp.db"), fs::perms::owner_read | fs::perms::owner_write);
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string path = o.data_dir + "/kubecpp.db" + suffix;
    if (fs::exists(path)) {
      EXPECT_EQ(mode(path), fs::perms::owner_read | fs::perms::owner_write) << path;
    }
  }
}

}  // namespace
}  // namespace kube::apiserver::testing
