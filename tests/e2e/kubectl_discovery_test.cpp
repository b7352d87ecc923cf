// kubectl 1.32 against the embedded API server (TLS + bearer token through the generated
// kubeconfig): discovery (`api-versions`, `api-resources`) and `kubectl get` Table output.
// Skipped when kubectl is not installed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>

namespace kube::apiserver {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

using Fields = std::vector<std::string>;

// The whitespace-separated fields of each non-empty output line.
std::vector<Fields> Lines(const std::string& out) {
  std::vector<Fields> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    Fields fields;
    std::istringstream words(line);
    for (std::string w; words >> w;) fields.push_back(w);
    if (!fields.empty()) lines.push_back(std::move(fields));
  }
  return lines;
}

bool HasLine(const std::vector<Fields>& lines, const Fields& want) {
  return std::find(lines.begin(), lines.end(), want) != lines.end();
}

// A kubectl AGE cell: "5s", "3m20s", "2d3h", ...
bool IsAge(const std::string& s) { return std::regex_match(s, std::regex(R"(\d+[smhdy](\d+[smhd])?)")); }

class KubectlDiscoveryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (RunCommand("kubectl version --client").exit_code != 0) return;
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("kubecpp-kubectl-discovery-" + std::to_string(::getpid())));
    std::filesystem::remove_all(*dir_);
    std::filesystem::create_directories(*dir_);
    ApiServerOptions options;
    options.data_dir = (*dir_ / "data").string();
    options.storage = ApiServerOptions::StorageKind::kMemory;
    auto server = ApiServer::Start(options);
    if (!server.ok()) {
      start_error_ = new std::string(server.error().message);
      return;
    }
    server_ = std::move(server).value().release();
  }

  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    if (dir_ != nullptr) std::filesystem::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
    delete start_error_;
    start_error_ = nullptr;
  }

  void SetUp() override {
    if (dir_ == nullptr) GTEST_SKIP() << "kubectl not installed";
    ASSERT_EQ(start_error_, nullptr) << *start_error_;
    ASSERT_NE(server_, nullptr);
  }

  static CommandResult Kubectl(const std::string& args) {
    return RunCommand("HOME=" + dir_->string() + " kubectl --kubeconfig=" + server_->kubeconfig_path() +
               " --cache-dir=" + (*dir_ / "cache").string() + " --request-timeout=30s " + args);
  }

  // Creates the objects of a manifest with `kubectl apply -f`.
  static void Apply(const std::string& name, const std::string& yaml) {
    const std::filesystem::path file = *dir_ / (name + ".yaml");
    std::ofstream(file) << yaml;
    const CommandResult r = Kubectl("apply -f " + file.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  static std::filesystem::path* dir_;
  static ApiServer* server_;
  static std::string* start_error_;
};

std::filesystem::path* KubectlDiscoveryTest::dir_ = nullptr;
ApiServer* KubectlDiscoveryTest::server_ = nullptr;
std::string* KubectlDiscoveryTest::start_error_ = nullptr;

TEST_F(KubectlDiscoveryTest, ApiVersionsListsEveryServedGroupVersion) {
  const CommandResult r = Kubectl("api-versions");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Fields> lines = Lines(r.output);
  for (const char* gv : {"v1", "apps/v1", "coordination.k8s.io/v1", "events.k8s.io/v1"}) {
    EXPECT_TRUE(HasLine(lines, {gv})) << gv << "\n" << r.output;
  }
}

TEST_F(KubectlDiscoveryTest, ApiResourcesShowsShortNamesScopeAndKind) {
  const CommandResult r = Kubectl("api-resources");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Fields> lines = Lines(r.output);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], (Fields{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}));
  for (const Fields& row : std::vector<Fields>{
           {"configmaps", "cm", "v1", "true", "ConfigMap"},
           {"events", "ev", "v1", "true", "Event"},
           {"namespaces", "ns", "v1", "false", "Namespace"},
           {"nodes", "no", "v1", "false", "Node"},
           {"pods", "po", "v1", "true", "Pod"},
           {"secrets", "v1", "true", "Secret"},
           {"serviceaccounts", "sa", "v1", "true", "ServiceAccount"},
           {"services", "svc", "v1", "true", "Service"},
           {"deployments", "deploy", "apps/v1", "true", "Deployment"},
           {"replicasets", "rs", "apps/v1", "true", "ReplicaSet"},
           {"leases", "coordination.k8s.io/v1", "true", "Lease"},
           {"events", "ev", "events.k8s.io/v1", "true", "Event"}}) {
    EXPECT_TRUE(HasLine(lines, row)) << ::testing::PrintToString(row) << "\n" << r.output;
  }
  const CommandResult listable = Kubectl("api-resources --verbs=list,watch,delete -o name");
  ASSERT_EQ(listable.exit_code, 0) << listable.output;
  EXPECT_NE(listable.output.find("deployments.apps\n"), std::string::npos) << listable.output;
}

TEST_F(KubectlDiscoveryTest, GetNamespacesShowsTheSystemNamespacesActive) {
  const CommandResult r = Kubectl("get namespaces");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Fields> lines = Lines(r.output);
  ASSERT_GE(lines.size(), 4u) << r.output;
  EXPECT_EQ(lines[0], (Fields{"NAME", "STATUS", "AGE"}));
  for (const char* ns : {"default", "kube-public", "kube-system"}) {
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Fields& f) { return f[0] == ns; });
    ASSERT_NE(it, lines.end()) << ns << "\n" << r.output;
    ASSERT_EQ(it->size(), 3u);
    EXPECT_EQ((*it)[1], "Active");
    EXPECT_TRUE(IsAge((*it)[2])) << (*it)[2];
  }
}

TEST_F(KubectlDiscoveryTest, GetConfigMapsByNameShortNameAndAllNamespaces) {
  Apply("cm", R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  labels:
    app: demo
data:
  a: "1"
  b: "2"
)");
  const CommandResult r = Kubectl("get cm settings");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Fields> lines = Lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_EQ(lines[0], (Fields{"NAME", "DATA", "AGE"}));
  EXPECT_EQ(lines[1][0], "settings");
  EXPECT_EQ(lines[1][1], "2");
  EXPECT_TRUE(IsAge(lines[1][2])) << r.output;

  const CommandResult all = Kubectl("get configmaps -A --show-labels");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  const std::vector<Fields> all_lines = Lines(all.output);
  EXPECT_EQ(all_lines[0], (Fields{"NAMESPACE", "NAME", "DATA", "AGE", "LABELS"}));
  auto row = std::find_if(all_lines.begin(), all_lines.end(),
                          [](const Fields& f) { return f.size() == 5 && f[1] == "settings"; });
  ASSERT_NE(row, all_lines.end()) << all.output;
  EXPECT_EQ((*row)[0], "default");
  EXPECT_EQ((*row)[4], "app=demo");

  const CommandResult missing = Kubectl("get configmap nope");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find(R"(Error from server (NotFound): configmaps "nope" not found)"), std::string::npos)
      << missing.output;
}

TEST_F(KubectlDiscoveryTest, GetDeploymentsWideAndReplicaSets) {
  Apply("deploy", R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
)");
  const CommandResult r = Kubectl("get deploy web -o wide");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<Fields> lines = Lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_EQ(lines[0], (Fields{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}));
  ASSERT_EQ(lines[1].size(), 8u) << r.output;
  EXPECT_EQ(lines[1][0], "web");
  EXPECT_TRUE(lines[1][1].ends_with("/3")) << r.output;
  EXPECT_EQ(lines[1][5], "nginx");
  EXPECT_EQ(lines[1][6], "nginx:1.27");
  EXPECT_EQ(lines[1][7], "app=web");

  const CommandResult rs = Kubectl("get rs");
  ASSERT_EQ(rs.exit_code, 0) << rs.output;
  const std::vector<Fields> rs_lines = Lines(rs.output);
  ASSERT_FALSE(rs_lines.empty()) << rs.output;
  if (rs_lines.size() > 1 || rs_lines[0][0] != "No") {  // "No resources found" when nothing reconciles
    EXPECT_EQ(rs_lines[0], (Fields{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}));
  }
}

TEST_F(KubectlDiscoveryTest, GetPodsServicesEventsAndLeases) {
  Apply("pod", R"(apiVersion: v1
kind: Pod
metadata:
  name: box
  namespace: default
spec:
  containers:
  - name: main
    image: busybox
)");
  const CommandResult pods = Kubectl("get pods -o wide");
  ASSERT_EQ(pods.exit_code, 0) << pods.output;
  const std::vector<Fields> pod_lines = Lines(pods.output);
  ASSERT_GE(pod_lines.size(), 2u) << pods.output;
  EXPECT_EQ(pod_lines[0], (Fields{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
                                  "READINESS", "GATES"}));
  EXPECT_EQ(pod_lines[1][0], "box");
  EXPECT_EQ(pod_lines[1][1], "0/1");

  const CommandResult svc = Kubectl("get svc kubernetes");
  ASSERT_EQ(svc.exit_code, 0) << svc.output;
  const std::vector<Fields> svc_lines = Lines(svc.output);
  ASSERT_EQ(svc_lines.size(), 2u) << svc.output;
  EXPECT_EQ(svc_lines[0], (Fields{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}));
  EXPECT_EQ(svc_lines[1][1], "ClusterIP");

  Apply("event", R"(apiVersion: v1
kind: Event
metadata:
  name: box.1
  namespace: default
involvedObject:
  kind: Pod
  name: box
  namespace: default
reason: Scheduled
message: Successfully assigned default/box
type: Normal
count: 1
firstTimestamp: "2025-01-01T00:00:00Z"
lastTimestamp: "2025-01-01T00:00:00Z"
source:
  component: scheduler
)");
  const CommandResult events = Kubectl("get events");
  ASSERT_EQ(events.exit_code, 0) << events.output;
  EXPECT_EQ(Lines(events.output)[0], (Fields{"LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}));
  EXPECT_NE(events.output.find("pod/box"), std::string::npos) << events.output;
  const CommandResult v1events = Kubectl("get events.v1.events.k8s.io");
  ASSERT_EQ(v1events.exit_code, 0) << v1events.output;
  EXPECT_NE(v1events.output.find("pod/box"), std::string::npos) << v1events.output;

  Apply("lease", R"(apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: lock
  namespace: default
spec:
  holderIdentity: me
  leaseDurationSeconds: 15
)");
  const CommandResult leases = Kubectl("get leases");
  ASSERT_EQ(leases.exit_code, 0) << leases.output;
  const std::vector<Fields> lease_lines = Lines(leases.output);
  EXPECT_EQ(lease_lines[0], (Fields{"NAME", "HOLDER", "AGE"}));
  auto lock = std::find_if(lease_lines.begin(), lease_lines.end(), [](const Fields& f) { return f[0] == "lock"; });
  ASSERT_NE(lock, lease_lines.end()) << leases.output;
  ASSERT_EQ(lock->size(), 3u) << leases.output;
  EXPECT_EQ((*lock)[1], "me");
  EXPECT_TRUE(IsAge((*lock)[2])) << leases.output;
}

TEST_F(KubectlDiscoveryTest, GetWatchPrintsTheTableThenStreams) {
  // `get -w` lists as a Table, then watches with the Table Accept header; `timeout` ends it.
  const CommandResult r = RunCommand("HOME=" + dir_->string() + " timeout 5 kubectl --kubeconfig=" +
                              server_->kubeconfig_path() + " --cache-dir=" + (*dir_ / "cache").string() +
                              " get namespaces -w");
  EXPECT_EQ(r.exit_code, 124) << r.output;  // killed by timeout, i.e. still watching
  const std::vector<Fields> lines = Lines(r.output);
  ASSERT_FALSE(lines.empty()) << r.output;
  EXPECT_EQ(lines[0], (Fields{"NAME", "STATUS", "AGE"}));
  EXPECT_NE(r.output.find("kube-system"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("rror"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kube::apiserver
