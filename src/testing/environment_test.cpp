// TestEnvironment: the embedded mode always; the real mode (etcd + kube-apiserver) when
// KUBEBUILDER_ASSETS names the binaries, else those tests skip.
#include <kube/testing/environment.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/api/custom_resource.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/discovery.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/builder.hpp>
#include <kube/controller/manager.hpp>
#include <kube/controller/typed.hpp>

#include "testing/internal/crd_manifests.hpp"

namespace demo {

struct WidgetSpec {
  std::string color;
  int32_t size = 1;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("color", &WidgetSpec::color).Required(), Field("size", &WidgetSpec::size).Minimum(1)};
  }
  bool operator==(const WidgetSpec&) const = default;
};

struct WidgetStatus {
  std::string seen;
  static auto Fields() { return std::tuple{kube::api::Field("seen", &WidgetStatus::seen)}; }
  bool operator==(const WidgetStatus&) const = default;
};

struct Widget : kube::api::CustomResource<Widget, WidgetSpec, WidgetStatus> {
  static constexpr std::string_view kGroup = "demo.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Widget";
  static constexpr std::string_view kResource = "widgets";
  static constexpr bool kNamespaced = true;
};

}  // namespace demo

namespace kube::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

// A CRD manifest (the shape controller-gen writes) for group `group`, kind `kind`.
std::string CrdYaml(const std::string& group, const std::string& kind, const std::string& plural,
                    const std::string& scope = "Namespaced") {
  return "apiVersion: apiextensions.k8s.io/v1\n"
         "kind: CustomResourceDefinition\n"
         "metadata:\n"
         "  name: " + plural + "." + group + "\n"
         "spec:\n"
         "  group: " + group + "\n"
         "  names:\n"
         "    kind: " + kind + "\n"
         "    listKind: " + kind + "List\n"
         "    plural: " + plural + "\n"
         "    singular: " + plural.substr(0, plural.size() - 1) + "\n"
         "  scope: " + scope + "\n"
         "  versions:\n"
         "  - name: v1\n"
         "    served: true\n"
         "    storage: true\n"
         "    schema:\n"
         "      openAPIV3Schema:\n"
         "        type: object\n"
         "        properties:\n"
         "          spec:\n"
         "            type: object\n"
         "            properties:\n"
         "              replicas:\n"
         "                type: integer\n"
         "                minimum: 0\n";
}

constexpr char kConfigMapYaml[] =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-crd\ndata:\n  a: \"1\"\n";

// A temp dir removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kubecpp-testenv-test-XXXXXX").string();
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return path_ / name;
  }

 private:
  fs::path path_;
};

// A file with two CRDs and a ConfigMap between them, separated as kustomize and kubectl write.
fs::path WriteTwoCrdFile(const TempDir& dir) {
  return dir.Write("crds.yaml", "---\n" + CrdYaml("apps.example.com", "Shop", "shops") + "--- # a comment\n" +
                                    kConfigMapYaml + "---\n" + CrdYaml("apps.example.com", "Till", "tills") + "---\n");
}

std::optional<std::string> Assets() {
  const char* dir = std::getenv("KUBEBUILDER_ASSETS");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::string(dir);
}

#define SKIP_WITHOUT_ASSETS()                                                                        \
  if (!Assets()) GTEST_SKIP() << "KUBEBUILDER_ASSETS is not set (a directory with kube-apiserver and etcd)"

Result<std::unique_ptr<TestEnvironment>> StartEmbedded(TestEnvironmentOptions options = {}) {
  options.control_plane = ControlPlane::kEmbedded;
  return TestEnvironment::Start(std::move(options));
}

// Whether `env` serves `plural` in `group_version`'s discovery.
bool Discovered(const TestEnvironment& env, const std::string& group_version, const std::string& plural) {
  client::DiscoveryClient discovery(env.rest());
  auto result = discovery.ServerGroupsAndResources();
  if (!result.ok()) return false;
  for (const auto& list : (*result)->resources) {
    if (list.group_version != group_version) continue;
    for (const auto& r : list.resources) {
      if (r.name == plural) return true;
    }
  }
  return false;
}

// POSTs `body` (JSON) to `path` with `rest`.
Result<client::HttpResponse> Post(client::RestClient& rest, const std::string& path, const std::string& body) {
  return rest.Do({.method = "POST", .path = path, .body = body});
}

std::string ShopJson(const std::string& name) {
  return R"({"apiVersion":"apps.example.com/v1","kind":"Shop","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":2}})";
}

// --- embedded mode ---

TEST(TestEnvironment, EmbeddedModeServesTlsWithATokenAndStopRemovesItsDir) {
  auto env = StartEmbedded();
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_FALSE((*env)->is_real());
  EXPECT_TRUE((*env)->process_ids().empty());
  EXPECT_NE((*env)->embedded_server(), nullptr);
  EXPECT_TRUE((*env)->url().starts_with("https://127.0.0.1:")) << (*env)->url();
  EXPECT_EQ((*env)->config().host, (*env)->url());
  EXPECT_FALSE((*env)->config().bearer_token.empty());
  EXPECT_NE((*env)->config().ca_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_TRUE(fs::exists((*env)->kubeconfig_path())) << (*env)->kubeconfig_path();

  auto version = (*env)->rest()->Do({.path = "/version"});
  ASSERT_TRUE(version.ok()) << version.error().message;

  // Like a real cluster, it refuses a client without the token.
  client::Config anonymous = (*env)->config();
  anonymous.bearer_token.clear();
  auto rest = client::RestClient::Create(anonymous);
  ASSERT_TRUE(rest.ok());
  auto refused = (*rest)->Do({.path = "/api/v1/namespaces"});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsUnauthorized(refused.error())) << refused.error().ToString();

  const fs::path dir = (*env)->dir();
  EXPECT_TRUE(fs::exists(dir));
  (*env)->Stop();
  EXPECT_FALSE(fs::exists(dir));
  (*env)->Stop();  // idempotent
}

TEST(TestEnvironment, DestructorStopsTheServerAndRemovesTheDir) {
  fs::path dir;
  std::string url;
  {
    auto env = StartEmbedded();
    ASSERT_TRUE(env.ok()) << env.error().message;
    dir = (*env)->dir();
    url = (*env)->url();
  }
  EXPECT_FALSE(fs::exists(dir));
  auto rest = client::RestClient::Create({.host = url, .insecure_skip_tls_verify = true, .max_retries = 0});
  ASSERT_TRUE(rest.ok());
  EXPECT_FALSE((*rest)->Do({.path = "/version"}).ok());
}

TEST(TestEnvironment, ConfigureEmbeddedAdjustsTheServerAndConfigFollows) {
  auto env = StartEmbedded({.configure_embedded = [](apiserver::ApiServerOptions& o) {
    o.tls = false;
    o.authenticate = false;
  }});
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_TRUE((*env)->url().starts_with("http://127.0.0.1:")) << (*env)->url();
  EXPECT_TRUE((*env)->config().bearer_token.empty());
  EXPECT_TRUE((*env)->rest()->Do({.path = "/api/v1/namespaces/default"}).ok());
}

TEST(TestEnvironment, KubecppTestRealForcesTheRealModeWhenTheOptionLeavesItToTheEnvironment) {
  TempDir empty;
  ASSERT_EQ(::setenv("KUBECPP_TEST_REAL", "1", 1), 0);
  auto real = TestEnvironment::Start({.binary_assets_directory = empty.path().string()});
  auto pinned = TestEnvironment::Start({.control_plane = ControlPlane::kEmbedded});
  ASSERT_EQ(::unsetenv("KUBECPP_TEST_REAL"), 0);
  ASSERT_FALSE(real.ok());  // real mode, and no binaries in that directory
  EXPECT_TRUE(IsBadRequest(real.error())) << real.error().ToString();
  EXPECT_NE(real.error().message.find(empty.path().string()), std::string::npos) << real.error().message;
  EXPECT_NE(real.error().message.find("has no executable etcd"), std::string::npos) << real.error().message;
  ASSERT_TRUE(pinned.ok()) << pinned.error().message;
  EXPECT_FALSE((*pinned)->is_real());

  auto by_default = TestEnvironment::Start();
  ASSERT_TRUE(by_default.ok()) << by_default.error().message;
  EXPECT_FALSE((*by_default)->is_real());
}

TEST(TestEnvironment, InstallsTheCrdsOfAMultiDocumentYamlFileAndSkipsOtherDocuments) {
  TempDir manifests;
  const fs::path file = WriteTwoCrdFile(manifests);
  auto env = StartEmbedded({.crd_paths = {file.string()}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  TestEnvironment& e = **env;
  // Start returned after WaitForCRDs: both are in discovery at once.
  EXPECT_TRUE(Discovered(e, "apps.example.com/v1", "shops"));
  EXPECT_TRUE(Discovered(e, "apps.example.com/v1", "tills"));
  // The ConfigMap document was not created.
  auto cm = e.rest()->Do({.path = "/api/v1/namespaces/default/configmaps/not-a-crd"});
  ASSERT_FALSE(cm.ok());
  EXPECT_TRUE(IsNotFound(cm.error()));

  // A create and a get through config().
  auto rest = client::RestClient::Create(e.config());
  ASSERT_TRUE(rest.ok());
  auto created = Post(**rest, "/apis/apps.example.com/v1/namespaces/default/shops", ShopJson("corner"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto got = (*rest)->Do({.path = "/apis/apps.example.com/v1/namespaces/default/shops/corner"});
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(json::parse(got->body).at_pointer("/spec/replicas"), 2);
}

TEST(TestEnvironment, InstallCrdsReadsTheManifestFilesOfADirectoryAndReinstallsExistingCrds) {
  auto env = StartEmbedded();
  ASSERT_TRUE(env.ok()) << env.error().message;
  TempDir manifests;
  WriteTwoCrdFile(manifests);
  manifests.Write("b-scoped.yml", CrdYaml("ops.example.com", "Pager", "pagers", "Cluster"));
  manifests.Write("notes.txt", "not: a manifest\n---\n:::");
  auto installed = (*env)->InstallCrds({.paths = {manifests.path().string()}});
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  // Files in name order: b-scoped.yml, then crds.yaml's two.
  EXPECT_EQ(*installed,
            (std::vector<std::string>{"pagers.ops.example.com", "shops.apps.example.com", "tills.apps.example.com"}));
  EXPECT_TRUE(Discovered(**env, "ops.example.com/v1", "pagers"));
  auto again = (*env)->InstallCrds({.paths = {manifests.path().string()}});
  EXPECT_TRUE(again.ok()) << again.error().message;
}

TEST(TestEnvironment, InstallsTheCrdJsonOfACxxResourceAndServesItThroughTypedApi) {
  auto env = StartEmbedded({.crds = {api::CrdJson<demo::Widget>()}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_TRUE(Discovered(**env, "demo.kubecpp.io/v1", "widgets"));
  client::DynamicClient client((*env)->rest());
  client::TypedApi<demo::Widget> widgets(client, "default");
  demo::Widget w;
  w.metadata.name = "w1";
  w.spec.color = "blue";
  auto created = widgets.Create(w);
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto got = widgets.Get("w1");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->spec.color, "blue");
  EXPECT_EQ(got->spec.size, 1);
}

TEST(TestEnvironment, ATypedControllerReconcilesACustomResource) {
  auto env = StartEmbedded({.crds = {api::CrdJson<demo::Widget>()}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  auto mgr = controller::Manager::Create({.rest = (*env)->rest()});
  ASSERT_TRUE(mgr.ok()) << mgr.error().message;
  controller::Client& c = (*mgr)->GetClient();
  auto ctrl = controller::ControllerManagedBy(**mgr)
                  .For<demo::Widget>()
                  .Complete(controller::AsReconciler<demo::Widget>(
                      c, [&](controller::ReconcileContext&, demo::Widget& w) -> Result<controller::ReconcileResult> {
                        if (w.status && w.status->seen == w.spec.color) return controller::ReconcileResult::Done();
                        w.status = demo::WidgetStatus{.seen = w.spec.color};
                        auto written = c.UpdateStatus(w);
                        if (!written.ok()) return written.error();
                        return controller::ReconcileResult::Done();
                      }));
  ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
  std::stop_source stop;
  std::jthread run([&] { (void)(*mgr)->Start(stop.get_token()); });

  client::DynamicClient client((*env)->rest());
  client::TypedApi<demo::Widget> widgets(client, "default");
  demo::Widget w;
  w.metadata.name = "w1";
  w.spec.color = "red";
  ASSERT_TRUE(widgets.Create(w).ok());
  bool seen = false;
  for (auto deadline = std::chrono::steady_clock::now() + 30s; !seen && std::chrono::steady_clock::now() < deadline;) {
    auto got = widgets.Get("w1");
    seen = got.ok() && got->status && got->status->seen == "red";
    if (!seen) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(seen);
  stop.request_stop();
}

TEST(TestEnvironment, AMissingCrdPathIsSkippedUnlessErrorIfCrdPathMissing) {
  TempDir dir;
  const std::string missing = (dir.path() / "nope").string();
  auto lenient = StartEmbedded({.crd_paths = {missing}});
  ASSERT_TRUE(lenient.ok()) << lenient.error().message;
  auto strict = StartEmbedded({.crd_paths = {missing}, .error_if_crd_path_missing = true});
  ASSERT_FALSE(strict.ok());
  EXPECT_TRUE(IsNotFound(strict.error())) << strict.error().ToString();
  EXPECT_EQ(strict.error().message, "CRD path " + missing + " does not exist");
  auto member = (*lenient)->InstallCrds({.paths = {missing}, .error_if_path_missing = true});
  ASSERT_FALSE(member.ok());
  EXPECT_TRUE(IsNotFound(member.error()));
}

TEST(TestEnvironment, BadManifestsGiveErrorsNamingTheFileAndDocument) {
  auto env = StartEmbedded();
  ASSERT_TRUE(env.ok()) << env.error().message;
  TestEnvironment& e = **env;
  TempDir dir;

  const fs::path syntax = dir.Write("syntax.yaml", std::string(kConfigMapYaml) + "---\nkind: [unclosed\n");
  auto r = e.InstallCrds({.paths = {syntax.string()}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_TRUE(r.error().message.starts_with(syntax.string() + " document 2: error decoding YAML")) << r.error().message;

  const fs::path scalar = dir.Write("scalar.yaml", "just text\n");
  r = e.InstallCrds({.paths = {scalar.string()}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, scalar.string() + " document 1: not a YAML or JSON object");

  std::string beta = CrdYaml("old.example.com", "Old", "olds");
  beta.replace(beta.find("/v1"), 3, "/v1beta1");
  const fs::path old = dir.Write("old.yaml", beta);
  r = e.InstallCrds({.paths = {old.string()}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("document 1: a CustomResourceDefinition of apiVersion "
                                   "\"apiextensions.k8s.io/v1beta1\""),
            std::string::npos)
      << r.error().message;

  r = e.InstallCrds({.crds = {kConfigMapYaml}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "crds[0]: kind is \"ConfigMap\", not CustomResourceDefinition (apiextensions.k8s.io/v1)");

  std::string unserved = CrdYaml("none.example.com", "None", "nones");
  unserved.replace(unserved.find("served: true"), 12, "served: false");
  r = e.InstallCrds({.crds = {unserved}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "crds[0]: CRD nones.none.example.com serves no version (spec.versions[].served)");

  // One the server refuses: its error, prefixed with the CRD and where it came from.
  const fs::path bad_scope = dir.Write("scope.yaml", CrdYaml("bad.example.com", "Bad", "bads", "Galactic"));
  r = e.InstallCrds({.paths = {bad_scope.string()}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInvalid(r.error())) << r.error().ToString();
  EXPECT_TRUE(r.error().message.starts_with("install CRD bads.bad.example.com (from " + bad_scope.string() +
                                            " document 1): "))
      << r.error().message;
}

TEST(TestEnvironment, AddUserOnTheEmbeddedServerIsNotImplemented) {
  auto env = StartEmbedded();
  ASSERT_TRUE(env.ok()) << env.error().message;
  auto user = (*env)->AddUser({.name = "alice", .groups = {"system:masters"}});
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.error().code, 501);
  EXPECT_EQ(user.error().reason, kReasonNotImplemented);
  EXPECT_NE(user.error().message.find("does not authenticate separate identities"), std::string::npos)
      << user.error().message;
}

TEST(CrdManifests, SplitYamlDocumentsSplitsOnSeparatorLinesOnly) {
  const auto docs = internal::SplitYamlDocuments("---\na: 1\n--- # two\nb: '---'\n---x: 3\n---\n\n---   \nc: 4");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0], "a: 1\n");
  EXPECT_EQ(docs[1], "b: '---'\n---x: 3\n");
  EXPECT_EQ(docs[2], "c: 4");
}

// --- real mode (etcd + kube-apiserver from KUBEBUILDER_ASSETS) ---

Result<std::unique_ptr<TestEnvironment>> StartReal(TestEnvironmentOptions options = {}) {
  options.control_plane = ControlPlane::kReal;
  return TestEnvironment::Start(std::move(options));
}

bool Alive(int pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

TEST(TestEnvironmentReal, StartsInstallsCrdsAndStopKillsBothProcessesAndRemovesItsDir) {
  SKIP_WITHOUT_ASSETS();
  TempDir manifests;
  const fs::path file = WriteTwoCrdFile(manifests);
  auto env = StartReal({.crd_paths = {file.string()}, .crds = {api::CrdJson<demo::Widget>()}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  TestEnvironment& e = **env;
  EXPECT_TRUE(e.is_real());
  EXPECT_EQ(e.embedded_server(), nullptr);
  EXPECT_TRUE(e.url().starts_with("https://127.0.0.1:")) << e.url();
  EXPECT_TRUE(fs::exists(e.kubeconfig_path()));
  EXPECT_TRUE(Discovered(e, "apps.example.com/v1", "shops"));
  EXPECT_TRUE(Discovered(e, "apps.example.com/v1", "tills"));
  EXPECT_TRUE(Discovered(e, "demo.kubecpp.io/v1", "widgets"));

  auto created = Post(*e.rest(), "/apis/apps.example.com/v1/namespaces/default/shops", ShopJson("corner"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  client::DynamicClient client(e.rest());
  demo::Widget w;
  w.metadata.name = "w1";
  w.spec.color = "green";
  auto widget = client::TypedApi<demo::Widget>(client, "default").Create(w);
  ASSERT_TRUE(widget.ok()) << widget.error().message;
  EXPECT_EQ(widget->spec.color, "green");

  const std::vector<int> pids = e.process_ids();
  ASSERT_EQ(pids.size(), 2u);
  for (int pid : pids) EXPECT_TRUE(Alive(pid)) << pid;
  const fs::path dir = e.dir();
  EXPECT_TRUE(fs::exists(dir / "pki" / "ca.crt"));
  e.Stop();
  for (int pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
  EXPECT_TRUE(e.process_ids().empty());
  EXPECT_FALSE(fs::exists(dir));
}

TEST(TestEnvironmentReal, AddUserAuthenticatesWithGroupsAndRbacDecides) {
  SKIP_WITHOUT_ASSETS();
  auto env = StartReal();
  ASSERT_TRUE(env.ok()) << env.error().message;
  TestEnvironment& e = **env;

  auto admin = e.AddUser({.name = "root", .groups = {"system:masters"}});
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  EXPECT_TRUE(admin->bearer_token.empty());
  auto admin_rest = client::RestClient::Create(*admin);
  ASSERT_TRUE(admin_rest.ok());
  auto listed = (*admin_rest)->Do({.path = "/api/v1/secrets"});
  EXPECT_TRUE(listed.ok()) << listed.error().message;

  auto nobody = e.AddUser({.name = "nobody", .groups = {"testers"}});
  ASSERT_TRUE(nobody.ok()) << nobody.error().message;
  auto nobody_rest = client::RestClient::Create(*nobody);
  ASSERT_TRUE(nobody_rest.ok());
  auto refused = (*nobody_rest)->Do({.path = "/api/v1/namespaces/default/configmaps"});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsForbidden(refused.error())) << refused.error().ToString();
  // The server knows the user by the certificate's CN and O.
  EXPECT_NE(refused.error().message.find("User \"nobody\""), std::string::npos) << refused.error().message;

  auto reader = e.AddUser({.name = "reader"},
                          {.rules = {{.verbs = {"get", "list"}, .api_groups = {""}, .resources = {"configmaps"}}},
                           .ns = "default"});
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto reader_rest = client::RestClient::Create(*reader);
  ASSERT_TRUE(reader_rest.ok());
  EXPECT_TRUE((*reader_rest)->Do({.path = "/api/v1/namespaces/default/configmaps"}).ok());
  auto other_ns = (*reader_rest)->Do({.path = "/api/v1/namespaces/kube-system/configmaps"});
  EXPECT_TRUE(!other_ns.ok() && IsForbidden(other_ns.error()));
  auto secrets = (*reader_rest)->Do({.path = "/api/v1/namespaces/default/secrets"});
  EXPECT_TRUE(!secrets.ok() && IsForbidden(secrets.error()));
  auto write = Post(**reader_rest, "/api/v1/namespaces/default/configmaps",
                    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}})");
  EXPECT_TRUE(!write.ok() && IsForbidden(write.error()));

  auto creator = e.AddUser({.name = "creator"},
                           {.rules = {{.verbs = {"create"}, .api_groups = {""}, .resources = {"configmaps"}}}});
  ASSERT_TRUE(creator.ok()) << creator.error().message;
  auto creator_rest = client::RestClient::Create(*creator);
  ASSERT_TRUE(creator_rest.ok());
  auto made = Post(**creator_rest, "/api/v1/namespaces/kube-system/configmaps",
                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}})");
  EXPECT_TRUE(made.ok()) << made.error().message;
  auto read_back = (*creator_rest)->Do({.path = "/api/v1/namespaces/kube-system/configmaps/x"});
  EXPECT_TRUE(!read_back.ok() && IsForbidden(read_back.error()));

  auto twice = e.AddUser({.name = "creator"}, {.rules = {{.verbs = {"get"}, .api_groups = {""}, .resources = {"pods"}}}});
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(IsAlreadyExists(twice.error())) << twice.error().ToString();
}

TEST(TestEnvironmentReal, AFailedStartReportsTheTailOfTheLogs) {
  SKIP_WITHOUT_ASSETS();
  auto env = StartReal({.kube_apiserver_flags = {"--no-such-flag=1"}});
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.error().message.find("kube-apiserver exited during startup"), std::string::npos)
      << env.error().message;
  EXPECT_NE(env.error().message.find("--- kube-apiserver.log"), std::string::npos);
  EXPECT_NE(env.error().message.find("no-such-flag"), std::string::npos) << env.error().message;
}

}  // namespace
}  // namespace kube::testing
