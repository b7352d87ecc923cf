// kubecpp-apiserver: the embedded Kubernetes-compatible API server as a standalone process.
//
//   kubecpp-apiserver --data-dir ./data                 # sqlite, TLS + token, 127.0.0.1:6443
//   kubecpp-apiserver --storage memory --no-tls --listen 127.0.0.1:8080
//
// Prints the kubeconfig path and an `export KUBECONFIG=...` line; SIGINT/SIGTERM shut down
// gracefully (in-flight requests complete).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include <kube/apiserver/apiserver.hpp>
#include <kube/base/log.hpp>

namespace {

// Parses "host:port" (or ":port", or "port").
bool ParseListen(const std::string& listen, std::string& host, uint16_t& port) {
  std::string port_text = listen;
  const auto colon = listen.rfind(':');
  if (colon != std::string::npos) {
    host = listen.substr(0, colon);
    port_text = listen.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "127.0.0.1";
  try {
    std::size_t used = 0;
    const unsigned long p = std::stoul(port_text, &used);
    if (used != port_text.size() || p > 65535) return false;
    port = static_cast<uint16_t>(p);
  } catch (...) {
    return false;
  }
  return true;
}

// kube-controller-manager's --controllers syntax: "*" enables every in-process controller, a
// name enables that one, "-name" disables it. Returns false for an unknown name.
bool ParseControllers(const std::string& list, kube::apiserver::ControllerOptions& ctl, std::string& bad) {
  bool gc = false, ns = false, ttl = false, pods = false, all = false;
  bool gc_off = false, ns_off = false, ttl_off = false, pods_off = false;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    const bool off = item[0] == '-';
    if (off) item.erase(0, 1);
    if (item == "*" && !off) {
      all = true;
    } else if (item == "garbage-collector") {
      (off ? gc_off : gc) = true;
    } else if (item == "namespace") {
      (off ? ns_off : ns) = true;
    } else if (item == "event-ttl") {
      (off ? ttl_off : ttl) = true;
    } else if (item == "pod-gc") {
      (off ? pods_off : pods) = true;
    } else {
      bad = item;
      return false;
    }
  }
  ctl.garbage_collector = (all || gc) && !gc_off;
  ctl.namespace_controller = (all || ns) && !ns_off;
  ctl.pod_gc = (all || pods) && !pods_off;
  if (!((all || ttl) && !ttl_off)) ctl.event_ttl = kube::Clock::Duration::zero();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kubecpp-apiserver: an embedded Kubernetes-compatible API server"};
  std::string data_dir = "kubecpp-data";
  std::string storage = "sqlite";
  std::string listen = "127.0.0.1:6443";
  bool no_tls = false;
  std::string log_level = "info";
  std::string controllers = "*";
  kube::apiserver::ServiceAccountOptions service_accounts;
  app.add_option("--data-dir", data_dir, "directory for the database, PKI, token and kubeconfig")->capture_default_str();
  app.add_option("--storage", storage, "storage engine")->check(CLI::IsMember({"memory", "sqlite"}))->capture_default_str();
  app.add_option("--listen", listen, "address:port to bind (port 0 = any free port)")->capture_default_str();
  app.add_flag("--no-tls", no_tls, "serve plain HTTP without authentication (loopback testing only)");
  app.add_flag("--tls", [&](std::int64_t) { no_tls = false; }, "serve HTTPS with a bearer token (the default)");
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error")->capture_default_str();
  app.add_option("--controllers", controllers,
                 "in-process controllers, as kube-controller-manager's flag: '*' for all, a name to enable "
                 "one, '-name' to disable one (garbage-collector, namespace, event-ttl, pod-gc)")
      ->capture_default_str();
  app.add_option("--service-account-issuer", service_accounts.issuer,
                 "the iss of service account tokens and of /.well-known/openid-configuration")
      ->capture_default_str();
  app.add_option("--api-audiences", service_accounts.api_audiences,
                 "comma-separated audiences of TokenRequests that name none (default: the issuer)")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  kube::log::Level level{};
  if (!kube::log::ParseLevel(log_level, level)) {
    std::fprintf(stderr, "error: --log-level: unknown level \"%s\"\n", log_level.c_str());
    return 2;
  }
  kube::log::Setup({.level = level});

  kube::apiserver::ApiServerOptions options;
  if (!ParseListen(listen, options.address, options.port)) {
    std::fprintf(stderr, "error: --listen: expected host:port, got \"%s\"\n", listen.c_str());
    return 2;
  }
  std::error_code ec;
  // A new data dir is its owner's alone (it holds the database, the keys and the token).
  if (std::filesystem::create_directories(data_dir, ec) && !ec) {
    std::filesystem::permissions(data_dir, std::filesystem::perms::owner_all, ec);
  }
  if (ec) {
    std::fprintf(stderr, "error: --data-dir %s: %s\n", data_dir.c_str(), ec.message().c_str());
    return 1;
  }
  options.data_dir = std::filesystem::absolute(data_dir).string();
  options.storage = storage == "memory" ? kube::apiserver::ApiServerOptions::StorageKind::kMemory
                                        : kube::apiserver::ApiServerOptions::StorageKind::kSqlite;
  options.tls = !no_tls;
  options.authenticate = !no_tls;
  options.service_accounts = service_accounts;
  if (std::string bad; !ParseControllers(controllers, options.controllers, bad)) {
    std::fprintf(stderr, "error: --controllers: unknown controller \"%s\"\n", bad.c_str());
    return 2;
  }

  // Block the shutdown signals before any thread starts, then wait for them synchronously.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = kube::apiserver::ApiServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "error: %s\n", server.error().message.c_str());
    return 1;
  }
  std::printf("kubecpp-apiserver listening on %s (storage=%s)\n", (*server)->url().c_str(), storage.c_str());
  std::printf("kubeconfig: %s\n", (*server)->kubeconfig_path().c_str());
  std::printf("export KUBECONFIG=%s\n", (*server)->kubeconfig_path().c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&signals, &sig);
  kube::log::Info("shutting down", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
  (*server)->Stop();
  return 0;
}
