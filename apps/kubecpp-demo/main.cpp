// kubecpp-demo: the main job. Starts kubecpp-apiserver on a fresh SQLite data dir and the sample
// controllers (deployment-controller with its simulated kubelet, finalizer-cleanup, two replicas
// of the website operator with leader election), drives a scenario against them and shows a live
// view; ends with a summary and exits 1 if any step failed. `scripts/demo` builds and runs it.
//
// Every step checks its outcome through the API (or the filesystem), not through the
// controllers' logs, so a passing demo is a passing end-to-end test (tests/examples runs it).

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <kube/kube.hpp>
#include <kube/testing/environment.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace kube::demo {
namespace {

using SteadyClock = std::chrono::steady_clock;

const GroupVersionResource kDeployments{"apps", "v1", "deployments"};
const GroupVersionResource kReplicaSets{"apps", "v1", "replicasets"};
const GroupVersionResource kPods{"", "v1", "pods"};
const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kEvents{"", "v1", "events"};
const GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};
const GroupVersionResource kWebsites{"example.kubecpp.io", "v1", "websites"};

struct Options {
  std::string apiserver = KUBE_DEMO_APISERVER;
  std::string deployment_controller = KUBE_DEMO_DEPLOYMENT_CONTROLLER;
  std::string finalizer_cleanup = KUBE_DEMO_FINALIZER_CLEANUP;
  std::string website_operator = KUBE_DEMO_WEBSITE_OPERATOR;
  std::string data_dir;
  std::string kubeconfig;  // real cluster for the website operator part
  bool real = false;       // etcd + kube-apiserver from KUBEBUILDER_ASSETS instead of kubecpp-apiserver
  bool keep = false;
  bool plain = false;
  int step_timeout_s = 90;
  int kubelet_delay_ms = 800;
  int pause_ms = -1;  // after each step; -1 = 1500 ms in the live view, 0 otherwise
};

// --- small helpers ----------------------------------------------------------------------------

std::string Str(const Object& obj, std::string_view pointer) {
  auto v = obj.Get(pointer);
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  if (v->is_null()) return "";
  return json::serialize(*v);
}

int64_t Int(const Object& obj, std::string_view pointer) {
  auto v = obj.Get(pointer);
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return 0;
}

std::string ConditionStatus(const Object& obj, std::string_view type) {
  auto conds = obj.Get("/status/conditions");
  if (!conds || !conds->is_array()) return "";
  for (const auto& c : conds->as_array()) {
    if (!c.is_object()) continue;
    const auto* t = c.as_object().if_contains("type");
    const auto* s = c.as_object().if_contains("status");
    if (t && t->is_string() && t->as_string() == type && s && s->is_string()) return std::string(s->as_string());
  }
  return "";
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", s);
  return buf;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 1) + "~";
  s.resize(width, ' ');
  return s;
}

// Sums of the controller metrics one process exposes.
struct ControllerMetrics {
  std::map<std::string, double> reconciles;  // controller -> total
  std::map<std::string, double> depth;       // queue -> depth
};

// Reads `name{label="value",...} number` lines of the Prometheus text format.
ControllerMetrics ParseMetrics(const std::string& text) {
  ControllerMetrics m;
  std::istringstream in(text);
  std::string line;
  auto label = [](const std::string& l, const std::string& key) {
    const auto at = l.find(key + "=\"");
    if (at == std::string::npos) return std::string();
    const auto start = at + key.size() + 2;
    return l.substr(start, l.find('"', start) - start);
  };
  while (std::getline(in, line)) {
    const auto space = line.rfind(' ');
    if (line.empty() || line[0] == '#' || space == std::string::npos) continue;
    double value = 0;
    try {
      value = std::stod(line.substr(space + 1));
    } catch (...) {
      continue;
    }
    if (line.rfind("controller_runtime_reconcile_total{", 0) == 0) {
      m.reconciles[label(line, "controller")] += value;
    } else if (line.rfind("workqueue_depth{", 0) == 0) {
      m.depth[label(line, "name")] = value;
    }
  }
  return m;
}

// A controller process of the demo and its metrics endpoint.
struct Component {
  std::unique_ptr<ChildProcess> process;
  int metrics_port = -1;
  std::string identity;  // leader election identity (website operators)
  ControllerMetrics last;
  SteadyClock::time_point last_at{};
  std::map<std::string, double> rate;  // controller -> reconciles/s
};

struct StepResult {
  std::string name;
  bool ok = false;
  std::string detail;
  double seconds = 0;
};

// What the live view shows; refreshed by the view thread from the API and /metrics.
struct Snapshot {
  std::vector<std::string> lines;
};

class Demo {
 public:
  explicit Demo(Options options) : opt_(std::move(options)) {}

  int Run(std::stop_token stop);

 private:
  // Setup.
  bool StartServer();
  bool StartRealServer();
  bool StartControllers();
  Component& StartComponent(const std::string& name, std::vector<std::string> args, bool metrics,
                            const std::string& identity = "");
  void StopAll();

  // Steps.
  void RunStep(const std::string& name, const std::function<Result<std::string>()>& body);
  Result<std::string> CreateDeployment();
  Result<std::string> ScaleDeployment();
  Result<std::string> RollingUpdate();
  Result<std::string> ConflictRace();
  Result<std::string> FinalizerCleanup();
  Result<std::string> CreateWebsite();
  Result<std::string> LeaderFailover();
  Result<std::string> WaitRolledOut(int64_t replicas);

  // Waits until `check` returns a value (polling every 100 ms) or the step timeout passes.
  Result<std::string> WaitFor(const std::string& what, const std::function<std::optional<std::string>()>& check);
  std::optional<ObjectPtr> GetObject(const client::Api& api, std::string_view name);

  // View.
  void ViewLoop(std::stop_token stop);
  std::vector<std::string> Render();
  void Print(const std::string& line);

  Options opt_;
  std::string dir_;
  std::string kubeconfig_;
  std::stop_token stop_;
  std::unique_ptr<ChildProcess> server_;
  std::unique_ptr<testing::TestEnvironment> real_;  // --real
  std::vector<std::unique_ptr<Component>> components_;
  std::optional<client::DynamicClient> local_;    // the embedded server
  std::optional<client::DynamicClient> cluster_;  // where the website operator runs
  std::string website_ns_ = "default";
  std::string deploy_image_ = "nginx:1.27";
  int max_pods_seen_ = 0;

  Mutex mu_;  // guards what the view reads: step state and output
  std::string current_step_ KUBE_GUARDED_BY(mu_);
  SteadyClock::time_point step_started_ KUBE_GUARDED_BY(mu_){};
  std::vector<StepResult> results_ KUBE_GUARDED_BY(mu_);
  SteadyClock::time_point started_ = SteadyClock::now();
  bool tty_ = false;
};

void Demo::Print(const std::string& line) {
  MutexLock lock(mu_);
  if (!tty_) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
}

std::optional<ObjectPtr> Demo::GetObject(const client::Api& api, std::string_view name) {
  auto obj = api.Get(name);
  if (!obj) return std::nullopt;
  return *obj;
}

Result<std::string> Demo::WaitFor(const std::string& what,
                                  const std::function<std::optional<std::string>()>& check) {
  const auto deadline = SteadyClock::now() + std::chrono::seconds(opt_.step_timeout_s);
  while (!stop_.stop_requested()) {
    if (auto done = check()) return *done;
    if (SteadyClock::now() > deadline) {
      return InternalError("timed out after " + std::to_string(opt_.step_timeout_s) + " s waiting for " + what);
    }
    std::this_thread::sleep_for(100ms);
  }
  return CanceledError("interrupted while waiting for " + what);
}

// --- setup ------------------------------------------------------------------------------------

// --real: etcd and kube-apiserver from KUBEBUILDER_ASSETS (kube::testing's real control plane),
// the example controllers playing kube-controller-manager's and the kubelet's parts.
bool Demo::StartRealServer() {
  fs::create_directories(dir_ + "/logs");
  auto env = testing::TestEnvironment::Start({.control_plane = testing::ControlPlane::kReal});
  if (!env) {
    std::fprintf(stderr, "error: --real: %s\n", env.error().message.c_str());
    return false;
  }
  real_ = std::move(*env);
  kubeconfig_ = real_->kubeconfig_path();
  client::Config config = real_->config();
  config.qps = -1;
  auto dyn = client::DynamicClient::Create(config);
  if (!dyn) {
    std::fprintf(stderr, "error: --real: %s\n", dyn.error().message.c_str());
    return false;
  }
  local_.emplace(std::move(*dyn));
  return true;
}

bool Demo::StartServer() {
  if (opt_.real) return StartRealServer();
  fs::create_directories(dir_ + "/apiserver");
  fs::create_directories(dir_ + "/logs");
  const int port = FreeLoopbackPort();
  server_ = ChildProcess::Start("kubecpp-apiserver",
                                {opt_.apiserver, "--data-dir", dir_ + "/apiserver", "--storage", "sqlite", "--listen",
                                 "127.0.0.1:" + std::to_string(port)},
                                dir_ + "/logs/apiserver.log");
  if (!server_->error().empty()) {
    std::fprintf(stderr, "error: %s\n", server_->error().c_str());
    return false;
  }
  kubeconfig_ = dir_ + "/apiserver/kubeconfig";
  const auto deadline = SteadyClock::now() + 30s;
  while (SteadyClock::now() < deadline && !stop_.stop_requested()) {
    if (!server_->Running()) break;
    if (ReadFile(server_->log_path()).find("export KUBECONFIG=") != std::string::npos) {
      auto config = client::LoadConfig({.kubeconfig_path = kubeconfig_});
      if (config) {
        config->config.qps = -1;  // the driver's own requests are not what the demo measures
        auto dyn = client::DynamicClient::Create(config->config);
        if (dyn) {
          // Ready when the default namespace answers.
          if (dyn->Resource({"", "v1", "namespaces"}).Get("default")) {
            local_.emplace(std::move(*dyn));
            return true;
          }
        }
      }
    }
    std::this_thread::sleep_for(100ms);
  }
  std::fprintf(stderr, "error: kubecpp-apiserver did not start; its log (%s):\n%s\n", server_->log_path().c_str(),
               ReadFile(server_->log_path()).c_str());
  return false;
}

Component& Demo::StartComponent(const std::string& name, std::vector<std::string> args, bool metrics,
                                const std::string& identity) {
  auto c = std::make_unique<Component>();
  if (metrics) {
    c->metrics_port = FreeLoopbackPort();
    args.push_back("--metrics-bind-address");
    args.push_back("127.0.0.1:" + std::to_string(c->metrics_port));
  }
  c->identity = identity;
  c->process = ChildProcess::Start(name, std::move(args), dir_ + "/logs/" + name + ".log");
  components_.push_back(std::move(c));
  return *components_.back();
}

bool Demo::StartControllers() {
  StartComponent("deployment-controller",
                 {opt_.deployment_controller, "--kubeconfig", kubeconfig_, "--kubelet-ready-delay-ms",
                  std::to_string(opt_.kubelet_delay_ms)},
                 true);
  fs::create_directories(dir_ + "/export");
  StartComponent("finalizer-cleanup", {opt_.finalizer_cleanup, "--kubeconfig", kubeconfig_, "--dir", dir_ + "/export"},
                 true);
  const std::string operator_kubeconfig = opt_.kubeconfig.empty() ? kubeconfig_ : opt_.kubeconfig;
  for (const char* id : {"a", "b"}) {
    const std::string identity = std::string("demo-operator-") + id;
    // Both replicas install the CRD at the same moment, as two replicas of a real operator do.
    StartComponent("website-operator-" + std::string(id),
                   {opt_.website_operator, "--kubeconfig", operator_kubeconfig, "--install-crd", "--leader-elect",
                    "--identity", identity},
                   true, identity);
  }
  for (auto& c : components_) {
    if (!c->process->error().empty()) {
      std::fprintf(stderr, "error: %s: %s\n", c->process->name().c_str(), c->process->error().c_str());
      return false;
    }
  }
  return true;
}

void Demo::StopAll() {
  for (auto& c : components_) c->process->Stop();
  if (server_) server_->Stop();
  if (real_) real_->Stop();
}

// --- steps ------------------------------------------------------------------------------------

void Demo::RunStep(const std::string& name, const std::function<Result<std::string>()>& body) {
  size_t n = 0;
  SteadyClock::time_point step_started;
  {
    MutexLock lock(mu_);
    current_step_ = name;
    step_started = step_started_ = SteadyClock::now();
    n = results_.size() + 1;
  }
  Print("[" + Seconds(std::chrono::duration<double>(SteadyClock::now() - started_).count()) + "] step " +
        std::to_string(n) + ": " + name);
  StepResult r{name, false, "", 0};
  if (stop_.stop_requested()) {
    r.detail = "not run: interrupted";
  } else {
    for (auto& c : components_) {
      if (!c->process->Running() && c->identity.empty()) {
        r.detail = c->process->name() + " is not running (see " + c->process->log_path() + ")";
      }
    }
    if (r.detail.empty()) {
      auto out = body();
      r.ok = out.ok();
      r.detail = out ? *out : out.error().message;
    }
  }
  r.seconds = std::chrono::duration<double>(SteadyClock::now() - step_started).count();
  Print(std::string(r.ok ? "  ok   " : "  FAIL ") + "(" + Seconds(r.seconds) + ") " + r.detail);
  {
    MutexLock lock(mu_);
    results_.push_back(std::move(r));
    current_step_.clear();
  }
  // Let a human see the state the step left before the next one changes it.
  const int pause = opt_.pause_ms >= 0 ? opt_.pause_ms : (tty_ ? 1500 : 0);
  for (auto until = SteadyClock::now() + std::chrono::milliseconds(pause);
       SteadyClock::now() < until && !stop_.stop_requested();) {
    std::this_thread::sleep_for(50ms);
  }
}

// Waits until Deployment `web` reports `replicas` updated, ready and available replicas for its
// latest generation, and only those pods exist; records the most pods seen at once.
Result<std::string> Demo::WaitRolledOut(int64_t replicas) {
  auto deploys = local_->Resource(kDeployments, "default");
  auto pods = local_->Resource(kPods, "default");
  return WaitFor("deployment web: " + std::to_string(replicas) + " updated, ready and available replicas",
                 [&]() -> std::optional<std::string> {
                   auto list = pods.List({.label_selector = "app=web"});
                   if (list) max_pods_seen_ = std::max(max_pods_seen_, static_cast<int>(list->items.size()));
                   auto d = deploys.Get("web");
                   if (!d) return std::nullopt;
                   const Object& o = **d;
                   if (Int(o, "/status/observedGeneration") != o.Generation()) return std::nullopt;
                   if (Int(o, "/status/updatedReplicas") != replicas || Int(o, "/status/readyReplicas") != replicas ||
                       Int(o, "/status/availableReplicas") != replicas || Int(o, "/status/replicas") != replicas) {
                     return std::nullopt;
                   }
                   if (!list || static_cast<int64_t>(list->items.size()) != replicas) return std::nullopt;
                   return "observedGeneration " + std::to_string(o.Generation()) + ", " + std::to_string(replicas) +
                          " pods ready, Available=" + ConditionStatus(o, "Available") +
                          ", Progressing=" + ConditionStatus(o, "Progressing");
                 });
}

Result<std::string> Demo::CreateDeployment() {
  auto deploys = local_->Resource(kDeployments, "default");
  auto obj = Object::Parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}})");
  if (!obj) return obj.error();
  auto created = deploys.Create(**obj);
  if (!created) return created.error();
  return WaitRolledOut(3);
}

Result<std::string> Demo::ScaleDeployment() {
  auto deploys = local_->Resource(kDeployments, "default");
  auto scaled = deploys.Patch("web", PatchType::kMerge, R"({"spec":{"replicas":5}})", {}, "scale");
  if (!scaled) return scaled.error();
  return WaitRolledOut(5);
}

Result<std::string> Demo::RollingUpdate() {
  auto deploys = local_->Resource(kDeployments, "default");
  auto rs = local_->Resource(kReplicaSets, "default");
  max_pods_seen_ = 0;
  auto patched = deploys.Patch(
      "web", PatchType::kStrategicMerge,
      R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}})");
  if (!patched) return patched.error();
  deploy_image_ = "nginx:1.28";
  auto done = WaitRolledOut(5);
  if (!done) return done;
  auto old = WaitFor("the old replica set scaled to 0", [&]() -> std::optional<std::string> {
    auto list = rs.List({.label_selector = "app=web"});
    if (!list || list->items.size() < 2) return std::nullopt;
    int zero = 0;
    for (const auto& r : list->items) zero += Int(*r, "/spec/replicas") == 0 ? 1 : 0;
    if (zero != static_cast<int>(list->items.size()) - 1) return std::nullopt;
    return std::to_string(list->items.size()) + " replica sets";
  });
  if (!old) return old;
  // maxSurge 1, maxUnavailable 0: never more than 6 pods.
  if (max_pods_seen_ > 6) {
    return InternalError("rolling update exceeded replicas + maxSurge: saw " +
                                           std::to_string(max_pods_seen_) + " pods (at most 6 allowed)");
  }
  return *done + "; " + *old + ", at most " + std::to_string(max_pods_seen_) + " pods at once (limit 6)";
}

Result<std::string> Demo::ConflictRace() {
  auto cms = local_->Resource(kConfigMaps, "default");
  auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"counter"},"data":{"count":"0"}})");
  if (!obj) return obj.error();
  if (auto created = cms.Create(**obj); !created) return created.error();
  std::atomic<int> conflicts{0};
  // One increment: read, add one, write with the read resourceVersion (409 if someone was faster).
  auto increment = [&]() -> Result<void> {
    auto cur = cms.Get("counter");
    if (!cur) return cur.error();
    const int count = std::stoi(Str(**cur, "/data/count"));
    auto dom = (*cur)->ToJson();
    dom["data"].as_object()["count"] = std::to_string(count + 1);
    auto next = Object::FromJson(dom);
    if (!next) return next.error();
    auto updated = cms.Update(**next);
    if (!updated) {
      if (IsConflict(updated.error())) ++conflicts;
      return updated.error();
    }
    return {};
  };
  // First a deterministic collision: both writers read the same version, both write.
  auto a = cms.Get("counter");
  auto b = cms.Get("counter");
  if (!a || !b) return InternalError("cannot read the counter");
  auto write = [&](const ObjectPtr& base) -> Result<ObjectPtr> {
    auto dom = base->ToJson();
    dom["data"].as_object()["count"] = std::to_string(std::stoi(Str(*base, "/data/count")) + 1);
    auto next = Object::FromJson(dom);
    if (!next) return next.error();
    return cms.Update(**next);
  };
  if (auto first = write(*a); !first) return first.error();
  auto second = write(*b);
  if (second || !IsConflict(second.error())) {
    return InternalError("a write with a stale resourceVersion was not rejected with 409 Conflict");
  }
  ++conflicts;
  if (auto retried = RetryOnConflict(DefaultRetry(), increment, stop_); !retried) return retried.error();
  // Then two writers race freely, each retrying on conflict.
  constexpr int kPerWriter = 20;
  Backoff patient{.duration = 2ms, .factor = 1.0, .jitter = 1.0, .steps = 200};
  std::vector<std::string> errors(2);
  {
    std::vector<std::jthread> writers;
    for (int w = 0; w < 2; ++w) {
      writers.emplace_back([&, w] {
        for (int i = 0; i < kPerWriter; ++i) {
          if (auto r = RetryOnConflict(patient, increment, stop_); !r) {
            errors[w] = r.error().message;
            return;
          }
        }
      });
    }
  }
  for (const auto& e : errors) {
    if (!e.empty()) return InternalError("a writer gave up: " + e);
  }
  auto final_cm = cms.Get("counter");
  if (!final_cm) return final_cm.error();
  const std::string count = Str(**final_cm, "/data/count");
  const std::string want = std::to_string(2 + 2 * kPerWriter);
  if (count != want) return InternalError("lost update: count is " + count + ", want " + want);
  return "count " + count + " after " + std::to_string(2 + 2 * kPerWriter) + " increments by two writers; " +
         std::to_string(conflicts.load()) + " conflicts (409) retried, no update lost";
}

Result<std::string> Demo::FinalizerCleanup() {
  auto cms = local_->Resource(kConfigMaps, "default");
  auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"report",
    "labels":{"example.kubecpp.io/export":"true"}},"data":{"summary.txt":"all good\n","owner":"demo"}})");
  if (!obj) return obj.error();
  if (auto created = cms.Create(**obj); !created) return created.error();
  const fs::path exported = fs::path(dir_) / "export" / "default" / "report";
  auto written = WaitFor("the exported files and the finalizer", [&]() -> std::optional<std::string> {
    auto cur = GetObject(cms, "report");
    if (!cur || !(*cur)->Finalizers().Contains("example.kubecpp.io/cleanup-files")) return std::nullopt;
    if (ReadFile((exported / "summary.txt").string()) != "all good\n") return std::nullopt;
    return "files in " + exported.string();
  });
  if (!written) return written;
  auto deleted = cms.Delete("report");
  if (!deleted) return deleted.error();
  const bool terminating_seen = !(*deleted)->DeletionTimestamp().empty();
  auto gone = WaitFor("the ConfigMap to be deleted after cleanup", [&]() -> std::optional<std::string> {
    auto cur = cms.Get("report");
    if (cur || !IsNotFound(cur.error())) return std::nullopt;
    return "deleted";
  });
  if (!gone) return gone;
  if (fs::exists(exported)) {
    return InternalError("the ConfigMap is gone but its files remain in " + exported.string());
  }
  return *written + "; DELETE left it " + (terminating_seen ? "Terminating" : "already gone") +
         " until the controller removed the files, then the finalizer";
}

Result<std::string> Demo::CreateWebsite() {
  auto crds = cluster_->Resource({"apiextensions.k8s.io", "v1", "customresourcedefinitions"});
  auto established = WaitFor("the Website CRD (installed by the operator) to be Established",
                             [&]() -> std::optional<std::string> {
                               auto crd = GetObject(crds, "websites.example.kubecpp.io");
                               if (!crd || ConditionStatus(**crd, "Established") != "True") return std::nullopt;
                               return "CRD Established";
                             });
  if (!established) return established;
  auto sites = cluster_->Resource(kWebsites, website_ns_);
  auto obj = Object::Parse(R"({"apiVersion":"example.kubecpp.io/v1","kind":"Website","metadata":{"name":"hello"},
    "spec":{"replicas":2,"content":"<h1>Hello from kubecpp</h1>"}})");
  if (!obj) return obj.error();
  // Established, but an API server may serve the new resource a moment later: retry a 404.
  auto created = sites.Create(**obj);
  for (int attempt = 0; !created && IsNotFound(created.error()) && attempt < 50 && !stop_.stop_requested(); ++attempt) {
    std::this_thread::sleep_for(100ms);
    created = sites.Create(**obj);
  }
  if (!created) return created.error();
  return WaitFor("website hello to be Ready", [&]() -> std::optional<std::string> {
    auto site = GetObject(sites, "hello");
    if (!site || ConditionStatus(**site, "Ready") != "True") return std::nullopt;
    if (Int(**site, "/status/observedGeneration") != (*site)->Generation()) return std::nullopt;
    auto cm = GetObject(cluster_->Resource(kConfigMaps, website_ns_), "hello-content");
    if (!cm) return std::nullopt;
    return "Ready with " + Str(**site, "/status/readyReplicas") + " replicas; owns ConfigMap hello-content and "
           "Deployment hello";
  });
}

Result<std::string> Demo::LeaderFailover() {
  auto leases = cluster_->Resource(kLeases, "default");
  std::string leader;
  auto found = WaitFor("a website-operator leader", [&]() -> std::optional<std::string> {
    auto lease = GetObject(leases, "website-operator");
    if (!lease) return std::nullopt;
    leader = Str(**lease, "/spec/holderIdentity");
    if (leader.empty()) return std::nullopt;
    return leader;
  });
  if (!found) return found.error();
  Component* leading = nullptr;
  for (auto& c : components_) {
    if (c->identity == leader) leading = c.get();
  }
  if (!leading) return InternalError("the lease holder \"" + leader + "\" is not one of the demo's operators");
  leading->process->Stop();
  auto next = WaitFor("another replica to take the lease", [&]() -> std::optional<std::string> {
    auto lease = GetObject(leases, "website-operator");
    if (!lease) return std::nullopt;
    const std::string holder = Str(**lease, "/spec/holderIdentity");
    if (holder.empty() || holder == leader) return std::nullopt;
    return holder;
  });
  if (!next) return next;
  // The new leader reconciles a change.
  auto sites = cluster_->Resource(kWebsites, website_ns_);
  auto patched = sites.Patch("hello", PatchType::kMerge, R"({"spec":{"replicas":3}})");
  if (!patched) return patched.error();
  const int64_t generation = (*patched)->Generation();
  auto reconciled = WaitFor("the new leader to reconcile website hello to 3 replicas", [&]() -> std::optional<std::string> {
    auto site = GetObject(sites, "hello");
    if (!site || Int(**site, "/status/observedGeneration") < generation) return std::nullopt;
    if (ConditionStatus(**site, "Ready") != "True" || Int(**site, "/status/readyReplicas") != 3) return std::nullopt;
    return "ready";
  });
  if (!reconciled) return reconciled;
  return "stopped leader " + leader + "; " + *next + " took over and reconciled generation " +
         std::to_string(generation) + " (3 ready replicas)";
}

// --- view -------------------------------------------------------------------------------------

std::vector<std::string> Demo::Render() {
  std::vector<std::string> out;
  auto dep = local_->Resource(kDeployments, "default").List();
  if (dep && !dep->items.empty()) {
    out.push_back("DEPLOYMENT        DESIRED  UPDATED  READY  AVAILABLE  GEN/OBSERVED  IMAGE");
    for (const auto& d : dep->items) {
      out.push_back(Pad(std::string(d->Name()), 18) + Pad(Str(*d, "/spec/replicas"), 9) +
                    Pad(Str(*d, "/status/updatedReplicas"), 9) + Pad(Str(*d, "/status/readyReplicas"), 7) +
                    Pad(Str(*d, "/status/availableReplicas"), 11) +
                    Pad(std::to_string(d->Generation()) + "/" + Str(*d, "/status/observedGeneration"), 14) +
                    Str(*d, "/spec/template/spec/containers/0/image"));
    }
  }
  auto rs = local_->Resource(kReplicaSets, "default").List();
  if (rs && !rs->items.empty()) {
    out.push_back("REPLICASET        DESIRED  READY  IMAGE");
    for (const auto& r : rs->items) {
      out.push_back(Pad(std::string(r->Name()), 18) + Pad(Str(*r, "/spec/replicas"), 9) +
                    Pad(Str(*r, "/status/readyReplicas"), 7) + Str(*r, "/spec/template/spec/containers/0/image"));
    }
  }
  auto pods = local_->Resource(kPods, "default").List();
  if (pods && !pods->items.empty()) {
    std::map<std::string, int> phases;
    int ready = 0;
    for (const auto& p : pods->items) {
      ++phases[Str(*p, "/status/phase")];
      ready += ConditionStatus(*p, "Ready") == "True" ? 1 : 0;
    }
    std::string line = "PODS  " + std::to_string(pods->items.size()) + " total, " + std::to_string(ready) + " ready:";
    for (const auto& [phase, n] : phases) line += " " + (phase.empty() ? std::string("<none>") : phase) + " " + std::to_string(n);
    out.push_back(line);
  }
  auto sites = cluster_->Resource(kWebsites, website_ns_).List();
  if (sites && !sites->items.empty()) {
    auto lease = GetObject(cluster_->Resource(kLeases, "default"), "website-operator");
    out.push_back("WEBSITE           REPLICAS  READY  GEN/OBSERVED  CONDITION  LEADER");
    for (const auto& s : sites->items) {
      out.push_back(Pad(std::string(s->Name()), 18) + Pad(Str(*s, "/spec/replicas"), 10) +
                    Pad(Str(*s, "/status/readyReplicas"), 7) +
                    Pad(std::to_string(s->Generation()) + "/" + Str(*s, "/status/observedGeneration"), 14) +
                    Pad("Ready=" + ConditionStatus(*s, "Ready"), 11) +
                    (lease ? Str(**lease, "/spec/holderIdentity") : std::string()));
    }
  }
  // Controllers: reconciles/s and queue depth from each process's /metrics.
  std::vector<std::string> ctl;
  const auto now = SteadyClock::now();
  for (auto& c : components_) {
    if (c->metrics_port < 0) continue;
    if (!c->process->Running()) {
      ctl.push_back(Pad(c->process->name(), 24) + "stopped");
      continue;
    }
    auto text = HttpGet(c->metrics_port, "/metrics", 500ms);
    if (!text) continue;
    auto m = ParseMetrics(*text);
    const double dt = std::chrono::duration<double>(now - c->last_at).count();
    for (const auto& [name, total] : m.reconciles) {
      if (c->last_at != SteadyClock::time_point{} && dt > 0) {
        c->rate[name] = (total - c->last.reconciles[name]) / dt;
      }
      char rate[32];
      std::snprintf(rate, sizeof(rate), "%6.1f", c->rate[name]);
      ctl.push_back(Pad(c->process->name(), 24) + Pad(name, 19) + Pad(std::to_string(static_cast<long>(total)), 11) +
                    Pad(rate, 13) + std::to_string(static_cast<long>(m.depth[name])));
    }
    c->last = std::move(m);
    c->last_at = now;
  }
  if (!ctl.empty()) {
    out.push_back("PROCESS                 CONTROLLER         RECONCILES RECONCILE/S  QUEUE");
    out.insert(out.end(), ctl.begin(), ctl.end());
  }
  auto events = local_->Resource(kEvents, "default").List();
  if (events && !events->items.empty()) {
    auto items = events->items;
    std::sort(items.begin(), items.end(), [](const ObjectPtr& x, const ObjectPtr& y) {
      return std::stoll("0" + std::string(x->ResourceVersion())) < std::stoll("0" + std::string(y->ResourceVersion()));
    });
    out.push_back("RECENT EVENTS");
    const size_t first = items.size() > 5 ? items.size() - 5 : 0;
    for (size_t i = first; i < items.size(); ++i) {
      const auto& e = items[i];
      out.push_back("  " + Pad(Str(*e, "/reason"), 20) +
                    Pad(Str(*e, "/involvedObject/kind") + "/" + Str(*e, "/involvedObject/name"), 28) +
                    Str(*e, "/message"));
    }
  }
  return out;
}

void Demo::ViewLoop(std::stop_token stop) {
  auto last_plain = SteadyClock::now();
  while (!stop.stop_requested()) {
    auto lines = Render();
    MutexLock lock(mu_);
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - started_).count();
    if (tty_) {
      std::string screen = "\x1b[H\x1b[2J\x1b[1mkubecpp demo\x1b[0m  " + Seconds(elapsed) + "   export KUBECONFIG=" +
                           kubeconfig_ + "\n\n";
      for (const auto& l : lines) screen += l + "\n";
      screen += "\nSTEPS\n";
      for (const auto& r : results_) {
        screen += std::string(r.ok ? "  \x1b[32m✓\x1b[0m " : "  \x1b[31m✗\x1b[0m ") + Pad(r.name, 44) +
                  Pad(Seconds(r.seconds), 9) + r.detail.substr(0, 90) + "\n";
      }
      if (!current_step_.empty()) {
        screen += "  \x1b[33m…\x1b[0m " + Pad(current_step_, 44) +
                  Seconds(std::chrono::duration<double>(SteadyClock::now() - step_started_).count()) + "\n";
      }
      std::fputs(screen.c_str(), stdout);
      std::fflush(stdout);
    } else if (SteadyClock::now() - last_plain > 5s && !current_step_.empty()) {
      // Not a terminal (CI logs): a compact snapshot every 5 s while a step runs.
      last_plain = SteadyClock::now();
      for (const auto& l : lines) std::printf("    | %s\n", l.c_str());
      std::fflush(stdout);
    }
    (void)elapsed;
    std::this_thread::sleep_for(tty_ ? 400ms : 500ms);
  }
}

int Demo::Run(std::stop_token stop) {
  stop_ = stop;
  tty_ = !opt_.plain && ::isatty(STDOUT_FILENO);
  dir_ = opt_.data_dir;
  const bool temp_dir = dir_.empty();
  if (temp_dir) {
    std::string tmpl = (fs::temp_directory_path() / "kubecpp-demo-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      return 1;
    }
    dir_ = tmpl;
  } else if (fs::exists(dir_ + "/apiserver")) {
    std::fprintf(stderr, "error: %s already holds a demo (use a fresh --data-dir)\n", dir_.c_str());
    return 1;
  }
  std::printf("kubecpp demo: data dir %s\n", dir_.c_str());
  if (!StartServer()) return 1;
  if (opt_.real) {
    std::printf("etcd and kube-apiserver are up (%s). Follow along with kubectl:\n", real_->url().c_str());
  } else {
    std::printf("kubecpp-apiserver is up (SQLite in %s/apiserver). Follow along with kubectl:\n", dir_.c_str());
  }
  std::printf("  export KUBECONFIG=%s\n", kubeconfig_.c_str());
  if (!opt_.kubeconfig.empty()) {
    auto config = client::LoadConfig({.kubeconfig_path = opt_.kubeconfig});
    if (!config) {
      std::fprintf(stderr, "error: --kubeconfig: %s\n", config.error().message.c_str());
      return 1;
    }
    config->config.qps = 20;  // the live view polls; stay polite to a real cluster
    config->config.burst = 30;
    auto dyn = client::DynamicClient::Create(config->config);
    if (!dyn) {
      std::fprintf(stderr, "error: --kubeconfig: %s\n", dyn.error().message.c_str());
      return 1;
    }
    cluster_.emplace(std::move(*dyn));
    std::printf("the website operator runs against %s (%s)\n", opt_.kubeconfig.c_str(), config->source.c_str());
  } else {
    cluster_ = local_;
  }
  if (!StartControllers()) return 1;
  std::fflush(stdout);

  std::jthread view([this](std::stop_token s) { ViewLoop(s); });
  RunStep("create Deployment web (3 replicas)", [this] { return CreateDeployment(); });
  RunStep("scale web to 5 (scale subresource)", [this] { return ScaleDeployment(); });
  RunStep("rolling update web to nginx:1.28", [this] { return RollingUpdate(); });
  RunStep("two writers race on one ConfigMap", [this] { return ConflictRace(); });
  RunStep("delete a finalizer-guarded ConfigMap", [this] { return FinalizerCleanup(); });
  RunStep("create Website hello (CRD operator)", [this] { return CreateWebsite(); });
  RunStep("stop the leading operator replica", [this] { return LeaderFailover(); });
  view.request_stop();
  view.join();
  if (tty_) {
    for (const auto& l : Render()) std::printf("%s\n", l.c_str());
  }

  bool passed = false;
  {
    MutexLock lock(mu_);
    int failed = 0;
    std::printf("\nSUMMARY\n");
    for (const auto& r : results_) {
      failed += r.ok ? 0 : 1;
      std::printf("  %s %s %s %s\n", r.ok ? "ok  " : "FAIL", Pad(r.name, 40).c_str(), Pad(Seconds(r.seconds), 8).c_str(),
                  r.detail.c_str());
    }
    passed = failed == 0 && results_.size() == 7;
    std::printf("%zu steps, %d failed.\n", results_.size(), failed);
  }
  if (opt_.keep && !stop_.stop_requested()) {
    std::printf("--keep: the server and controllers keep running; Ctrl-C stops them.\n  export KUBECONFIG=%s\n",
                kubeconfig_.c_str());
    std::fflush(stdout);
    while (!stop_.stop_requested()) std::this_thread::sleep_for(200ms);
  }
  StopAll();
  if (passed && temp_dir && !opt_.keep) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  } else {
    std::printf("Logs and data: %s\n", dir_.c_str());
  }
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace kube::demo

int main(int argc, char** argv) {
  kube::demo::Options opt;
  CLI::App app{"kubecpp-demo: the sample controllers on the embedded API server, with a live view"};
  app.add_option("--data-dir", opt.data_dir, "fresh directory for the server's data and the logs (default: a new temp dir)");
  app.add_flag("--keep", opt.keep, "leave the server and controllers running after the scenario (Ctrl-C stops)");
  app.add_option("--kubeconfig", opt.kubeconfig, "run the website operator part against this cluster instead");
  app.add_flag("--real", opt.real,
               "run the scenario on etcd + kube-apiserver from KUBEBUILDER_ASSETS instead of kubecpp-apiserver");
  app.add_flag("--plain", opt.plain, "no live view: log lines only (the default when stdout is not a terminal)");
  app.add_option("--step-timeout", opt.step_timeout_s, "seconds each step may take")->capture_default_str();
  app.add_option("--kubelet-ready-delay-ms", opt.kubelet_delay_ms, "simulated kubelet: pod start time")->capture_default_str();
  app.add_option("--pause-ms", opt.pause_ms, "pause after each step (default: 1500 in the live view, 0 otherwise)");
  app.add_option("--apiserver", opt.apiserver, "kubecpp-apiserver binary")->capture_default_str();
  app.add_option("--deployment-controller", opt.deployment_controller, "deployment controller binary")->capture_default_str();
  app.add_option("--finalizer-cleanup", opt.finalizer_cleanup, "finalizer-cleanup binary")->capture_default_str();
  app.add_option("--website-operator", opt.website_operator, "website operator binary")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  ::signal(SIGPIPE, SIG_IGN);
  kube::log::SetLevel(kube::log::Level::kWarn);
  auto stop = kube::controller::SetupSignalHandler();
  return kube::demo::Demo(std::move(opt)).Run(stop);
}
