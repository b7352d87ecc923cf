#include <kube/client/auth.hpp>
#include <kube/client/config.hpp>
#include <kube/client/kubeconfig.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/internal/util.hpp"
#include "client/testing/scripted_server.hpp"
#include "client/testing/test_util.hpp"

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::TestPki;

const TestPki& Pki() {
  static std::unique_ptr<TestPki> pki = TestPki::Create();
  return *pki;
}
std::string CaPem() { return TestPki::Read(Pki().ca_cert); }
std::string B64(const std::string& s) { return internal::Base64Encode(s); }

GetEnvFunc Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr char kFull[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    tls-server-name: api.prod.example
    certificate-authority: certs/ca.crt
    proxy-url: http://proxy.example:3128
    disable-compression: true
    extensions:
    - name: client.authentication.k8s.io/exec
      extension:
        audience: prod
        replicas: 3
- name: dev
  cluster:
    server: https://127.0.0.1:6443
    insecure-skip-tls-verify: true
users:
- name: alice
  user:
    token: t0ken
    as: bob
    as-uid: "42"
    as-groups: [devs, ops]
    as-user-extra:
      scopes: [a, b]
- name: carol
  user:
    username: carol
    password: secret
- name: dave
  user:
    tokenFile: tokens/dave
    client-certificate: /abs/client.crt
    client-key: keys/client.key
- name: erin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --cluster, prod]
      env:
      - name: FOO
        value: bar
      installHint: install it
      provideClusterInfo: true
      interactiveMode: Never
- name: frank
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
contexts:
- name: dev
  context:
    cluster: dev
    user: alice
    namespace: team-a
- name: prod
  context: {cluster: prod, user: dave}
)";

TEST(Kubeconfig, ParsesEveryFieldAndResolvesRelativePathsAgainstTheFile) {
  auto kc = ParseKubeconfig(kFull, "/home/u/.kube/config");
  ASSERT_TRUE(kc.ok()) << kc.error().message;
  EXPECT_EQ(kc->current_context, "dev");
  ASSERT_EQ(kc->clusters.size(), 2u);
  const auto& prod = kc->clusters.at("prod");
  EXPECT_EQ(prod.server, "https://prod.example:6443");
  EXPECT_EQ(prod.tls_server_name, "api.prod.example");
  EXPECT_EQ(prod.certificate_authority, "/home/u/.kube/certs/ca.crt");
  EXPECT_EQ(prod.proxy_url, "http://proxy.example:3128");
  EXPECT_TRUE(prod.disable_compression);
  EXPECT_EQ(prod.exec_extension_json, R"({"audience":"prod","replicas":3})");
  EXPECT_EQ(prod.location, "/home/u/.kube/config");
  EXPECT_TRUE(kc->clusters.at("dev").insecure_skip_tls_verify);

  const auto& alice = kc->users.at("alice");
  EXPECT_EQ(alice.token, "t0ken");
  EXPECT_EQ(alice.impersonate, "bob");
  EXPECT_EQ(alice.impersonate_uid, "42");
  EXPECT_EQ(alice.impersonate_groups, (std::vector<std::string>{"devs", "ops"}));
  EXPECT_EQ(alice.impersonate_extra.at("scopes"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(kc->users.at("carol").username, "carol");
  EXPECT_EQ(kc->users.at("carol").password, "secret");
  const auto& dave = kc->users.at("dave");
  EXPECT_EQ(dave.token_file, "/home/u/.kube/tokens/dave");
  EXPECT_EQ(dave.client_certificate, "/abs/client.crt");
  EXPECT_EQ(dave.client_key, "/home/u/.kube/keys/client.key");
  const auto& erin = kc->users.at("erin");
  ASSERT_TRUE(erin.exec.has_value());
  EXPECT_EQ(erin.exec->command, "/home/u/.kube/./bin/plugin");
  EXPECT_EQ(erin.exec->args, (std::vector<std::string>{"get-token", "--cluster", "prod"}));
  ASSERT_EQ(erin.exec->env.size(), 1u);
  EXPECT_EQ(erin.exec->env[0].name, "FOO");
  EXPECT_EQ(erin.exec->env[0].value, "bar");
  EXPECT_EQ(erin.exec->install_hint, "install it");
  EXPECT_TRUE(erin.exec->provide_cluster_info);
  EXPECT_EQ(erin.exec->interactive_mode, "Never");
  // A bare command stays a PATH lookup; v1beta1 defaults interactiveMode as client-go does.
  EXPECT_EQ(kc->users.at("frank").exec->command, "aws");
  EXPECT_EQ(kc->users.at("frank").exec->interactive_mode, "IfAvailable");

  EXPECT_EQ(kc->contexts.at("dev").cluster, "dev");
  EXPECT_EQ(kc->contexts.at("dev").user, "alice");
  EXPECT_EQ(kc->contexts.at("dev").ns, "team-a");
  EXPECT_EQ(kc->contexts.at("prod").user, "dave");
}

TEST(Kubeconfig, DecodesBase64DataFields) {
  const std::string yaml = "clusters:\n- name: c\n  cluster:\n    server: https://x\n    certificate-authority-data: " +
                           B64("ca bytes") + "\nusers:\n- name: u\n  user:\n    client-certificate-data: " + B64("cert") +
                           "\n    client-key-data: " + B64("key") + "\n";
  auto kc = ParseKubeconfig(yaml);
  ASSERT_TRUE(kc.ok()) << kc.error().message;
  EXPECT_EQ(kc->clusters.at("c").certificate_authority_data, "ca bytes");
  EXPECT_EQ(kc->users.at("u").client_certificate_data, "cert");
  EXPECT_EQ(kc->users.at("u").client_key_data, "key");
}

TEST(Kubeconfig, BadBase64NamesFileEntryAndField) {
  auto kc = ParseKubeconfig("users:\n- name: alice\n  user:\n    client-key-data: ab$d\n", "/k/config");
  ASSERT_FALSE(kc.ok());
  EXPECT_TRUE(IsBadRequest(kc.error()));
  EXPECT_EQ(kc.error().message,
            "error loading config file \"/k/config\": users[0] \"alice\": client-key-data: illegal base64 data at "
            "input byte 2");
}

TEST(Kubeconfig, YamlSyntaxErrorNamesFileLineAndColumn) {
  auto kc = ParseKubeconfig("clusters:\n- name: a\n  cluster: [\n", "/k/config");
  ASSERT_FALSE(kc.ok());
  EXPECT_THAT(kc.error().message, HasSubstr("error loading config file \"/k/config\": yaml: line"));
  EXPECT_THAT(kc.error().message, HasSubstr("column"));
}

TEST(Kubeconfig, WrongTypesAreReportedWithTheField) {
  auto a = ParseKubeconfig("clusters:\n- name: a\n  cluster:\n    insecure-skip-tls-verify: \"true\"\n", "/f");
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.error().message, HasSubstr("clusters[0] \"a\": insecure-skip-tls-verify: expected a boolean"));
  auto b = ParseKubeconfig("clusters:\n- name: a\n  cluster:\n    server: [x]\n", "/f");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.error().message, HasSubstr("clusters[0] \"a\": server: expected a string"));
  auto c = ParseKubeconfig("users: {a: b}\n", "/f");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("users: expected a list"));
  auto d = ParseKubeconfig("contexts:\n- context: {cluster: a}\n", "/f");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.error().message, HasSubstr("contexts[0]: name: required"));
  auto e = ParseKubeconfig("kind: Pod\n", "/f");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("kind: expected \"Config\""));
  auto f = ParseKubeconfig("- just\n- a list\n", "/f");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message, HasSubstr("expected a mapping at the top level"));
}

TEST(Kubeconfig, EmptyDocumentIsAnEmptyConfig) {
  auto kc = ParseKubeconfig("  \n", "/f");
  ASSERT_TRUE(kc.ok());
  EXPECT_TRUE(kc->Empty());
}

TEST(Kubeconfig, MissingFileIsNotFound) {
  auto kc = LoadKubeconfigFile("/nonexistent/kubeconfig");
  ASSERT_FALSE(kc.ok());
  EXPECT_TRUE(IsNotFound(kc.error()));
}

TEST(Kubeconfig, UnreadableFileNamesTheFile) {
  TempDir dir;
  // A directory stands in for an unreadable file (tests may run as root, where mode 000 reads).
  auto kc = LoadKubeconfigFile(dir.path());
  ASSERT_FALSE(kc.ok());
  EXPECT_TRUE(IsBadRequest(kc.error()));
  EXPECT_EQ(kc.error().message,
            "error loading config file \"" + dir.path() + "\": read " + dir.path() + ": is a directory");
  // Through LoadConfig, an unreadable KUBECONFIG entry is an error (only missing files are skipped).
  LoadOptions o;
  o.getenv = Env({{"KUBECONFIG", dir.path()}});
  auto cfg = LoadConfig(o);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message, HasSubstr("error loading config file \"" + dir.path() + "\""));
}

TEST(KubeconfigMerge, FirstFileWinsEachMapKeyWholeAndCurrentContext) {
  auto a = ParseKubeconfig(
      "current-context: a\nclusters:\n- name: shared\n  cluster: {server: https://a}\nusers:\n- name: red-user\n  "
      "user: {token: red-a}\n",
      "/a");
  auto b = ParseKubeconfig(
      "current-context: b\nclusters:\n- name: shared\n  cluster: {server: https://b, tls-server-name: b}\n- name: "
      "only-b\n  cluster: {server: https://only-b}\nusers:\n- name: red-user\n  user: {token: red-b, username: x}\n",
      "/b");
  ASSERT_TRUE(a.ok() && b.ok());
  const Kubeconfig merged = MergeKubeconfigs({*a, *b});
  EXPECT_EQ(merged.current_context, "a");
  EXPECT_EQ(merged.clusters.at("shared").server, "https://a");
  // Non-conflicting fields of the second file's entry are discarded too (kubectl's rule).
  EXPECT_EQ(merged.clusters.at("shared").tls_server_name, "");
  EXPECT_EQ(merged.clusters.at("only-b").server, "https://only-b");
  EXPECT_EQ(merged.users.at("red-user").token, "red-a");
  EXPECT_EQ(merged.users.at("red-user").username, "");
}

TEST(KubeconfigMerge, LaterFileSuppliesCurrentContextWhenEarlierHasNone) {
  auto a = ParseKubeconfig("clusters:\n- name: x\n  cluster: {server: https://x}\n", "/a");
  auto b = ParseKubeconfig("current-context: from-b\n", "/b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(MergeKubeconfigs({*a, *b}).current_context, "from-b");
}

TEST(KubeconfigMerge, SplitsKubeconfigListDroppingEmptiesAndDuplicates) {
  EXPECT_EQ(SplitKubeconfigPaths("/a::/b:/a:"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_TRUE(SplitKubeconfigPaths("").empty());
}

// ---- ConfigFromKubeconfig ----

Kubeconfig Parse(const std::string& yaml, const std::string& file = "/k/config") {
  auto kc = ParseKubeconfig(yaml, file);
  EXPECT_TRUE(kc.ok()) << kc.error().message;
  return kc.ok() ? *kc : Kubeconfig{};
}

TEST(ConfigFromKubeconfig, BuildsConfigForCurrentContext) {
  const std::string yaml = "current-context: dev\nclusters:\n- name: c\n  cluster:\n    server: https://k:6443\n    "
                           "certificate-authority-data: " +
                           B64(CaPem()) +
                           "\n    tls-server-name: kube.test\nusers:\n- name: u\n  user:\n    token: abc\n    as: bob\n"
                           "contexts:\n- name: dev\n  context: {cluster: c, user: u, namespace: team-a}\n";
  auto cfg = ConfigFromKubeconfig(Parse(yaml));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->config.host, "https://k:6443");
  EXPECT_EQ(cfg->config.ca_pem, CaPem());
  EXPECT_EQ(cfg->config.tls_server_name, "kube.test");
  EXPECT_EQ(cfg->config.bearer_token, "abc");
  EXPECT_EQ(cfg->config.impersonate_user, "bob");
  EXPECT_EQ(cfg->ns, "team-a");
  EXPECT_EQ(cfg->context, "dev");
  EXPECT_EQ(cfg->config.qps, 5.0);
  EXPECT_EQ(cfg->config.burst, 10);
}

TEST(ConfigFromKubeconfig, OverridesContextClusterUserAndNamespace) {
  const std::string yaml =
      "current-context: a\nclusters:\n- name: c1\n  cluster: {server: https://one}\n- name: c2\n  cluster: {server: "
      "https://two}\nusers:\n- name: u1\n  user: {token: one}\n- name: u2\n  user: {token: two}\ncontexts:\n- name: "
      "a\n  context: {cluster: c1, user: u1}\n- name: b\n  context: {cluster: c1, user: u1, namespace: nb}\n";
  auto b = ConfigFromKubeconfig(Parse(yaml), {.context = "b"});
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->ns, "nb");
  auto o = ConfigFromKubeconfig(Parse(yaml), {.cluster = "c2", .user = "u2", .ns = "x"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->config.host, "https://two");
  EXPECT_EQ(o->config.bearer_token, "two");
  EXPECT_EQ(o->ns, "x");
  auto d = ConfigFromKubeconfig(Parse(yaml));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ns, "default");
}

TEST(ConfigFromKubeconfig, DefaultsServerSchemeLikeClientGo) {
  auto plain = ConfigFromKubeconfig(Parse(
      "current-context: a\nclusters:\n- name: c\n  cluster: {server: \"localhost:8080\"}\nusers:\n- name: u\n  user: "
      "{}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->config.host, "http://localhost:8080");
  auto tls = ConfigFromKubeconfig(Parse(
      "current-context: a\nclusters:\n- name: c\n  cluster: {server: \"k:6443\", insecure-skip-tls-verify: true}\n"
      "users:\n- name: u\n  user: {}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n"));
  ASSERT_TRUE(tls.ok()) << tls.error().message;
  EXPECT_EQ(tls->config.host, "https://k:6443");
  EXPECT_TRUE(tls->config.insecure_skip_tls_verify);
}

TEST(ConfigFromKubeconfig, MissingPiecesNameTheContextAndFile) {
  const auto err = [](const std::string& yaml, ConfigOverrides o = {}) {
    auto kc = ParseKubeconfig(yaml, "/k/config");
    EXPECT_TRUE(kc.ok());
    auto cfg = ConfigFromKubeconfig(*kc, o);
    EXPECT_FALSE(cfg.ok());
    return cfg.ok() ? std::string() : cfg.error().message;
  };
  EXPECT_THAT(err("current-context: nope\nclusters:\n- name: c\n  cluster: {server: https://x}\n"),
              HasSubstr("context was not found for specified context: nope"));
  EXPECT_THAT(err("clusters:\n- name: c\n  cluster: {server: https://x}\n"), HasSubstr("no context chosen"));
  EXPECT_EQ(err("current-context: a\ncontexts:\n- name: a\n  context: {cluster: gone, user: u}\nusers:\n- name: u\n  "
                "user: {}\n"),
            "invalid configuration: context \"a\" (in /k/config): cluster \"gone\" was not found");
  EXPECT_EQ(err("current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: ghost}\nclusters:\n- name: c\n  "
                "cluster: {server: https://x}\n"),
            "invalid configuration: context \"a\" (in /k/config): user \"ghost\" was not found");
  EXPECT_EQ(err("current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  "
                "cluster: {tls-server-name: x}\nusers:\n- name: u\n  user: {}\n"),
            "invalid configuration: cluster \"c\" (in /k/config): server: no server found");
  // Several problems are reported together, as client-go's aggregate does.
  EXPECT_THAT(err("current-context: a\ncontexts:\n- name: a\n  context: {}\n"),
              HasSubstr("[context \"a\" (in /k/config): cluster was not specified, context \"a\" (in /k/config): user "
                        "was not specified]"));
  EXPECT_THAT(err("current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u, namespace: Bad_NS}\n"
                  "clusters:\n- name: c\n  cluster: {server: https://x}\nusers:\n- name: u\n  user: {}\n"),
              HasSubstr("namespace \"Bad_NS\" does not conform to the kubernetes DNS_LABEL rules"));
}

std::string WithUser(const std::string& user_yaml, const std::string& cluster_yaml = "{server: https://x}") {
  return "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  "
         "cluster: " +
         cluster_yaml + "\nusers:\n- name: u\n  user:\n" + user_yaml;
}

std::string ConfigError(const std::string& yaml) {
  auto cfg = ConfigFromKubeconfig(Parse(yaml));
  EXPECT_FALSE(cfg.ok());
  return cfg.ok() ? std::string() : cfg.error().message;
}

TEST(ConfigFromKubeconfig, RejectsConflictingOrIncompleteCredentials) {
  EXPECT_THAT(ConfigError(WithUser("    token: a\n    username: b\n    password: c\n")),
              HasSubstr("user \"u\" (in /k/config): more than one authentication method found"));
  EXPECT_THAT(ConfigError(WithUser("    client-certificate-data: " + B64(TestPki::Read(Pki().client_cert)) + "\n")),
              HasSubstr("client-key-data or client-key must be specified"));
  EXPECT_THAT(ConfigError(WithUser("    auth-provider:\n      name: oidc\n")),
              HasSubstr("auth-provider \"oidc\" is not supported; use an exec credential plugin"));
  EXPECT_THAT(ConfigError(WithUser("    as-groups: [a]\n")), HasSubstr("without impersonating a user"));
  EXPECT_THAT(ConfigError(WithUser("    token: a\n", "{server: https://x, certificate-authority: /a, "
                                                  "certificate-authority-data: " + B64(CaPem()) + "}")),
              HasSubstr("certificate-authority-data and certificate-authority are both specified"));
  EXPECT_THAT(ConfigError(WithUser("    token: a\n", "{server: https://x, insecure-skip-tls-verify: true, "
                                                  "certificate-authority-data: " + B64(CaPem()) + "}")),
              HasSubstr("specifying a root certificates file with the insecure flag is not allowed"));
  EXPECT_THAT(ConfigError(WithUser("    token: a\n", "{server: https://x, proxy-url: \"socks5://p:1080\"}")),
              HasSubstr("cluster \"c\" (in /k/config): proxy-url: scheme \"socks5\" is not supported"));
}

TEST(ConfigFromKubeconfig, UnreadableOrInvalidCertificateFilesNameEntryFieldAndPath) {
  EXPECT_EQ(ConfigError(WithUser("    client-certificate: /no/such.crt\n    client-key: /no/such.key\n")),
            "invalid configuration: [user \"u\" (in /k/config): client-certificate \"/no/such.crt\": open "
            "/no/such.crt: no such file or directory, user \"u\" (in /k/config): client-key \"/no/such.key\": open "
            "/no/such.key: no such file or directory]");
  EXPECT_EQ(ConfigError(WithUser("    token: a\n", "{server: https://x, certificate-authority-data: " +
                                                      B64("not a pem") + "}")),
            "invalid configuration: cluster \"c\" (in /k/config): certificate-authority-data: no PEM certificate found");
  TempDir dir;
  const std::string garbage = dir.Write("ca.crt", "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n");
  EXPECT_THAT(ConfigError(WithUser("    token: a\n", "{server: https://x, certificate-authority: " + garbage + "}")),
              HasSubstr("cluster \"c\" (in /k/config): certificate-authority \"" + garbage + "\": invalid PEM"));
  // A certificate with somebody else's key.
  EXPECT_THAT(ConfigError(WithUser("    client-certificate: " + Pki().client_cert + "\n    client-key: " +
                                   Pki().client2_key + "\n")),
              HasSubstr("client-certificate/client-key: private key does not match public key"));
}

TEST(ConfigFromKubeconfig, LoadsClientCertificateFilesAndTokenFile) {
  TempDir dir;
  const std::string token = dir.Write("token", "  file-token\n");
  auto cfg = ConfigFromKubeconfig(Parse(WithUser("    client-certificate: " + Pki().client_cert +
                                                 "\n    client-key: " + Pki().client_key + "\n    tokenFile: " +
                                                 token + "\n")));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->config.client_cert_pem, TestPki::Read(Pki().client_cert));
  EXPECT_EQ(cfg->config.client_key_pem, TestPki::Read(Pki().client_key));
  EXPECT_EQ(cfg->config.bearer_token, "file-token");
  EXPECT_EQ(cfg->config.bearer_token_file, token);
  EXPECT_THAT(ConfigError(WithUser("    tokenFile: /no/token\n")),
              HasSubstr("user \"u\" (in /k/config): tokenFile \"/no/token\": open /no/token: no such file"));
}

TEST(ConfigFromKubeconfig, ValidatesExecPlugins) {
  EXPECT_THAT(ConfigError(WithUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n")),
              HasSubstr("user \"u\" (in /k/config): exec.interactiveMode: required"));
  EXPECT_THAT(ConfigError(WithUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: "
                                   "x\n      interactiveMode: Never\n")),
              HasSubstr("exec.apiVersion: unsupported \"client.authentication.k8s.io/v1alpha1\""));
  EXPECT_THAT(ConfigError(WithUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      "
                                   "interactiveMode: Never\n")),
              HasSubstr("exec.command: required"));
  EXPECT_THAT(ConfigError(WithUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n"
                                   "      interactiveMode: Always\n")),
              HasSubstr("\"Always\" needs a terminal"));
  auto ok = ConfigFromKubeconfig(Parse(WithUser(
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: x\n", "{server: https://x}")));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_TRUE(ok->config.exec.has_value());
  ASSERT_TRUE(ok->config.exec_cluster.has_value());
  EXPECT_EQ(ok->config.exec_cluster->server, "https://x");
}

TEST(ConfigFromKubeconfig, ExecPluginThatFailsOrPrintsGarbageNamesFileUserAndField) {
  TempDir dir;
  FakeClock clock;
  const auto error_of = [&](const std::string& script) {
    const std::string plugin = dir.Write("plugin.sh", "#!/bin/sh\n" + script, true);
    const std::string file =
        dir.Write("config", WithUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " +
                                     plugin + "\n      interactiveMode: Never\n"));
    auto kc = LoadKubeconfigFile(file);
    EXPECT_TRUE(kc.ok()) << kc.error().message;
    auto cfg = ConfigFromKubeconfig(*kc);
    EXPECT_TRUE(cfg.ok()) << cfg.error().message;
    auto auth = NewAuthenticator(cfg->config, clock);
    EXPECT_TRUE(auth.ok() && *auth);
    auto header = (*auth)->Authorization();
    EXPECT_FALSE(header.ok());
    return header.ok() ? std::string() : header.error().message;
  };
  const std::string source = "getting credentials: user \"u\" (in " + dir.path() + "/config): exec: ";
  EXPECT_EQ(error_of("echo denied >&2; exit 2\n"),
            source + "executable " + dir.path() + "/plugin.sh failed with exit code 2: denied");
  EXPECT_THAT(error_of("echo '<html>login</html>'\n"), HasSubstr(source + "decoding stdout: invalid JSON"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"Pod\"}'\n"),
              HasSubstr(source + "decoding stdout: expected kind \"ExecCredential\""));
}

// ---- LoadConfig precedence ----

class LoadConfigTest : public ::testing::Test {
 protected:
  std::string Kubeconfig(const std::string& name, const std::string& server, const std::string& ctx = "a") {
    return dir_.Write(name, "current-context: " + ctx + "\nclusters:\n- name: c\n  cluster: {server: " + server +
                                "}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: " + ctx +
                                "\n  context: {cluster: c, user: u}\n");
  }
  std::string InClusterDir() {
    const std::string sa = dir_.path() + "/sa";
    (void)std::system(("mkdir -p " + sa).c_str());
    dir_.Write("sa/token", "sa-token\n");
    dir_.Write("sa/ca.crt", CaPem());
    dir_.Write("sa/namespace", "kube-system\n");
    return sa;
  }
  TempDir dir_;
};

TEST_F(LoadConfigTest, ExplicitPathWinsOverEverything) {
  const std::string explicit_path = Kubeconfig("explicit", "https://explicit");
  const std::string env_path = Kubeconfig("env", "https://env");
  LoadOptions o;
  o.kubeconfig_path = explicit_path;
  o.getenv = Env({{"KUBECONFIG", env_path}, {"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                  {"KUBERNETES_SERVICE_PORT", "443"}, {"HOME", dir_.path()}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->config.host, "https://explicit");
  EXPECT_EQ(cfg->source, "kubeconfig " + explicit_path);
}

TEST_F(LoadConfigTest, MissingExplicitPathIsNotFound) {
  LoadOptions o;
  o.kubeconfig_path = dir_.path() + "/missing";
  o.getenv = Env({});
  auto cfg = LoadConfig(o);
  ASSERT_FALSE(cfg.ok());
  EXPECT_TRUE(IsNotFound(cfg.error()));
}

TEST_F(LoadConfigTest, KubeconfigEnvListIsMergedAndMissingFilesSkipped) {
  const std::string first = Kubeconfig("first", "https://first", "ctx-first");
  const std::string second = Kubeconfig("second", "https://second", "ctx-second");
  LoadOptions o;
  o.getenv = Env({{"KUBECONFIG", dir_.path() + "/missing:" + first + ":" + second},
                  {"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  // current-context comes from the first file; cluster "c" too.
  EXPECT_EQ(cfg->context, "ctx-first");
  EXPECT_EQ(cfg->config.host, "https://first");
  o.overrides.context = "ctx-second";
  auto other = LoadConfig(o);
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->config.host, "https://first");  // "c" from the first file wins even for ctx-second
}

TEST_F(LoadConfigTest, KubeconfigEnvWithOnlyMissingFilesIsAnError) {
  LoadOptions o;
  o.getenv = Env({{"KUBECONFIG", dir_.path() + "/nope"}});
  auto cfg = LoadConfig(o);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message, HasSubstr("no configuration has been provided"));
  EXPECT_THAT(cfg.error().message, HasSubstr(dir_.path() + "/nope"));
}

TEST_F(LoadConfigTest, InClusterBeatsHomeConfig) {
  Kubeconfig(".kube-config-placeholder", "https://home");
  (void)std::system(("mkdir -p " + dir_.path() + "/.kube").c_str());
  Kubeconfig(".kube/config", "https://home");
  LoadOptions o;
  o.in_cluster.service_account_dir = InClusterDir();
  o.getenv = Env({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}, {"HOME", dir_.path()}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->source, "in-cluster");
  EXPECT_EQ(cfg->config.host, "https://10.96.0.1:443");
  o.getenv = Env({{"HOME", dir_.path()}});
  auto home = LoadConfig(o);
  ASSERT_TRUE(home.ok()) << home.error().message;
  EXPECT_EQ(home->config.host, "https://home");
}

TEST_F(LoadConfigTest, KubeconfigEnvBeatsInClusterAndHomeConfig) {
  (void)std::system(("mkdir -p " + dir_.path() + "/.kube").c_str());
  Kubeconfig(".kube/config", "https://home");
  const std::string env_path = Kubeconfig("env", "https://env");
  LoadOptions o;
  o.in_cluster.service_account_dir = InClusterDir();
  o.getenv = Env({{"KUBECONFIG", env_path}, {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                  {"KUBERNETES_SERVICE_PORT", "443"}, {"HOME", dir_.path()}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->config.host, "https://env");
  EXPECT_EQ(cfg->source, "kubeconfig " + env_path);
}

TEST_F(LoadConfigTest, KubeconfigEnvMergeTakesUsersAndContextsFromTheFirstFileThatNamesThem) {
  const std::string first = dir_.Write(
      "first", "users:\n- name: u\n  user: {token: first-token}\ncontexts:\n- name: a\n  context: {cluster: c, "
               "user: u, namespace: first-ns}\n");
  const std::string second = dir_.Write(
      "second", "current-context: a\nclusters:\n- name: c\n  cluster: {server: https://second}\nusers:\n- name: "
                "u\n  user: {token: second-token}\ncontexts:\n- name: a\n  context: {cluster: c, user: u, namespace: "
                "second-ns}\n");
  LoadOptions o;
  o.getenv = Env({{"KUBECONFIG", first + ":" + second}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->context, "a");                       // current-context only set by the second file
  EXPECT_EQ(cfg->config.host, "https://second");      // cluster only in the second file
  EXPECT_EQ(cfg->config.bearer_token, "first-token");  // user "u" from the first file
  EXPECT_EQ(cfg->ns, "first-ns");                     // context "a" from the first file
  o.getenv = Env({{"KUBECONFIG", second + ":" + first}});
  auto swapped = LoadConfig(o);
  ASSERT_TRUE(swapped.ok()) << swapped.error().message;
  EXPECT_EQ(swapped->config.bearer_token, "second-token");
  EXPECT_EQ(swapped->ns, "second-ns");
}

TEST_F(LoadConfigTest, InClusterTokenIsRereadWhenTheKubeletRotatesIt) {
  LoadOptions o;
  o.in_cluster.service_account_dir = InClusterDir();
  o.getenv = Env({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  auto cfg = LoadConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  FakeClock clock;
  auto auth = NewAuthenticator(cfg->config, clock);
  ASSERT_TRUE(auth.ok() && *auth);
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer sa-token");
  dir_.Write("sa/token", "rotated-token\n");
  clock.Advance(cfg->config.token_file_refresh - std::chrono::seconds(1));
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer sa-token");  // cached until the refresh period
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer rotated-token");
  // A 401 re-reads at once.
  dir_.Write("sa/token", "rotated-again\n");
  auto refreshed = (*auth)->Refresh("Bearer rotated-token");
  ASSERT_TRUE(refreshed.ok());
  EXPECT_TRUE(*refreshed);
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer rotated-again");
}

TEST_F(LoadConfigTest, InClusterReadsTokenCaAndNamespace) {
  InClusterOptions o{.service_account_dir = InClusterDir()};
  auto cfg = InClusterConfig(o, Env({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->config.host, "https://[fd00::1]:6443");
  EXPECT_EQ(cfg->config.bearer_token, "sa-token");
  EXPECT_EQ(cfg->config.bearer_token_file, o.service_account_dir + "/token");
  EXPECT_EQ(cfg->config.ca_pem, CaPem());
  EXPECT_EQ(cfg->ns, "kube-system");
  auto pod_ns = InClusterConfig(o, Env({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"},
                                        {"POD_NAMESPACE", "from-env"}}));
  ASSERT_TRUE(pod_ns.ok());
  EXPECT_EQ(pod_ns->ns, "from-env");
}

TEST_F(LoadConfigTest, InClusterErrorsNameWhatIsMissing) {
  auto no_env = InClusterConfig({}, Env({{"KUBERNETES_SERVICE_HOST", "h"}}));
  ASSERT_FALSE(no_env.ok());
  EXPECT_EQ(no_env.error().message,
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
            "defined");
  auto no_token = InClusterConfig({.service_account_dir = dir_.path() + "/empty"},
                                  Env({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}));
  ASSERT_FALSE(no_token.ok());
  EXPECT_THAT(no_token.error().message, HasSubstr(dir_.path() + "/empty/token"));
  const std::string sa = InClusterDir();
  dir_.Write("sa/ca.crt", "garbage");
  auto bad_ca = InClusterConfig({.service_account_dir = sa},
                                Env({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}));
  ASSERT_FALSE(bad_ca.ok());
  EXPECT_THAT(bad_ca.error().message, HasSubstr(sa + "/ca.crt: no PEM certificate found"));
}

TEST(UserAgent, IsKubecppVersionAndPlatform) {
  EXPECT_EQ(DefaultUserAgent(), "kubecpp/" + std::string(Version()) + " (linux/amd64)");
}

}  // namespace
}  // namespace kube::client
