// kubectl 1.32 against the discovery and Table layer alone: a minimal HTTP server answers with
// ServeDiscovery, RenderTable and canned objects, so that the real client validates the shapes
// (aggregated discovery, short names and categories, Table columns, -A and --show-labels through
// row.object, OpenAPI v3 fieldValidation detection) before any storage exists.
// Skipped when kubectl is not installed.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/apiserver/discovery.hpp>
#include <kube/apiserver/table.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/discovery/test_registry.hpp"

namespace kube::apiserver {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace bj = boost::json;
using asio::ip::tcp;

// Canned objects per "group/resource", created ten minutes before the server started.
class Objects {
 public:
  explicit Objects(Clock::WallTime now) {
    const std::string created = FormatTime(now - std::chrono::minutes(10));
    const std::string restarted = FormatTime(now - std::chrono::minutes(30));  // "30m" for a minute
    auto add = [&](const std::string& key, std::string json) {
      for (std::size_t pos; (pos = json.find("$CREATED")) != std::string::npos;) json.replace(pos, 8, created);
      for (std::size_t pos; (pos = json.find("$RESTARTED")) != std::string::npos;) json.replace(pos, 10, restarted);
      objects_[key].push_back(testing::MustParse(json));
    };
    add("/pods", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default","uid":"p1",
      "resourceVersion":"11","creationTimestamp":"$CREATED","labels":{"app":"web"}},
      "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx"},{"name":"sidecar","image":"envoy"}]},
      "status":{"phase":"Running","podIPs":[{"ip":"10.0.0.7"}],"containerStatuses":[
        {"name":"app","ready":true,"restartCount":3,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"$RESTARTED"}}},
        {"name":"sidecar","ready":false,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})");
    add("/pods", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"db-0","namespace":"data","uid":"p2",
      "resourceVersion":"12","creationTimestamp":"$CREATED"},"spec":{"containers":[{"name":"pg","image":"postgres"}]},
      "status":{"phase":"Pending"}})");
    add("apps/deployments", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default",
      "uid":"d1","resourceVersion":"13","creationTimestamp":"$CREATED"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}},
      "status":{"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}})");
    add("/configmaps", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default",
      "uid":"c1","resourceVersion":"14","creationTimestamp":"$CREATED"},"data":{"a":"1","b":"2"}})");
    add("/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default","uid":"n1",
      "resourceVersion":"2","creationTimestamp":"$CREATED"},"status":{"phase":"Active"}})");
    add("/events", R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"web-1.1","namespace":"default","uid":"e1",
      "resourceVersion":"15","creationTimestamp":"$CREATED"},"involvedObject":{"kind":"Pod","name":"web-1","namespace":"default"},
      "reason":"BackOff","message":"Back-off restarting failed container","type":"Warning","count":4,
      "firstTimestamp":"$CREATED","lastTimestamp":"$RESTARTED","source":{"component":"kubelet"}})");
    add("example.com/widgets", R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default",
      "uid":"w1","resourceVersion":"16","creationTimestamp":"$CREATED"},"spec":{"size":7},
      "status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  }

  // The objects of group/resource in `ns` ("" = all namespaces).
  std::vector<ObjectPtr> List(const std::string& key, std::string_view ns) const {
    std::vector<ObjectPtr> out;
    auto it = objects_.find(key);
    if (it == objects_.end()) return out;
    for (const auto& o : it->second) {
      if (ns.empty() || o->Namespace() == ns) out.push_back(o);
    }
    return out;
  }

 private:
  std::map<std::string, std::vector<ObjectPtr>> objects_;
};

// A one-connection-at-a-time HTTP/1.1 server (every response closes its connection, so kubectl's
// parallel requests simply queue in the backlog).
class StubServer {
 public:
  StubServer(Registry& registry, const Objects& objects)
      : registry_(registry), objects_(objects), acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
  }
  ~StubServer() {
    thread_.request_stop();
    boost::system::error_code ec;
    // Wake the blocking accept with a throwaway connection.
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  // Every "METHOD target" served so far.
  std::vector<std::string> Requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  void ClearRequests() {
    std::lock_guard lock(mu_);
    requests_.clear();
  }

 private:
  void Loop(std::stop_token stop) {
    while (!stop.stop_requested()) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop.stop_requested()) continue;
      beast::flat_buffer buffer;
      http::request<http::string_body> req;
      http::read(socket, buffer, req, ec);
      if (ec) continue;
      http::response<http::string_body> resp = Handle(req);
      resp.keep_alive(false);
      resp.prepare_payload();
      http::write(socket, resp, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  }

  http::response<http::string_body> Reply(int status, std::string_view content_type, std::string body) {
    http::response<http::string_body> resp{static_cast<http::status>(status), 11};
    resp.set(http::field::content_type, content_type);
    resp.body() = std::move(body);
    return resp;
  }

  http::response<http::string_body> Handle(const http::request<http::string_body>& in) {
    HttpRequest req;
    req.method = std::string(in.method_string());
    req.target = std::string(in.target());
    const auto q = req.target.find('?');
    req.path = req.target.substr(0, q);
    req.query = q == std::string::npos ? "" : req.target.substr(q + 1);
    for (const auto& field : in) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      req.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    req.body = in.body();
    {
      std::lock_guard lock(mu_);
      requests_.push_back(req.method + " " + req.target);
    }
    if (auto resp = ServeDiscovery(req, registry_)) {
      auto out = Reply(resp->status, resp->content_type, resp->body);
      for (const auto& [k, v] : resp->headers) out.set(k, v);
      return out;
    }
    return Rest(req);
  }

  // /api/v1/[namespaces/<ns>/]<resource>[/<name>] and /apis/<g>/<v>/...
  http::response<http::string_body> Rest(const HttpRequest& req) {
    std::vector<std::string> seg;
    for (std::size_t start = 1; start <= req.path.size();) {
      const auto slash = req.path.find('/', start);
      const auto end = slash == std::string::npos ? req.path.size() : slash;
      if (end > start) seg.push_back(req.path.substr(start, end - start));
      start = end + 1;
    }
    std::string group;
    std::size_t i = 0;
    if (seg.size() >= 2 && seg[0] == "api") {
      i = 2;
    } else if (seg.size() >= 3 && seg[0] == "apis") {
      group = seg[1];
      i = 3;
    } else {
      return Reply(404, "text/plain", "404 page not found\n");
    }
    std::string ns;
    if (seg.size() > i + 2 && seg[i] == "namespaces") {
      ns = seg[i + 1];
      i += 2;
    }
    if (i >= seg.size()) return Reply(404, "text/plain", "404 page not found\n");
    const std::string resource = seg[i];
    const std::string name = i + 1 < seg.size() ? seg[i + 1] : "";
    ResourcePtr info = registry_.Find(group, seg[0] == "api" ? seg[1] : seg[2], resource);
    if (info == nullptr) return Reply(404, "text/plain", "404 page not found\n");

    if (req.method == "POST") {
      // Echo the created object, as kube-apiserver would return it.
      bj::value body = bj::parse(req.body);
      body.as_object()["metadata"].as_object()["uid"] = "new-uid";
      body.as_object()["metadata"].as_object()["resourceVersion"] = "100";
      body.as_object()["metadata"].as_object()["creationTimestamp"] = FormatTime(std::chrono::system_clock::now());
      return Reply(201, "application/json", bj::serialize(body));
    }

    std::vector<ObjectPtr> items = objects_.List(group + "/" + resource, ns);
    if (!name.empty()) {
      std::erase_if(items, [&](const ObjectPtr& o) { return o->Name() != name; });
      if (items.empty()) {
        return Reply(404, "application/json", StatusJson(NewNotFound(info->Gr(), name)));
      }
    }
    auto kind = NegotiateOutput(req.Header("accept").value_or(""), name.empty());
    if (!kind.ok()) return Reply(406, "application/json", StatusJson(kind.error()));
    TableOptions options;
    options.now = std::chrono::system_clock::now();
    options.resource_version = "20";
    switch (*kind) {
      case OutputKind::kTable:
        return Reply(200, ContentTypeFor(*kind),
                     name.empty() ? RenderTable(*info, items, options) : RenderObjectTable(*info, items[0], options));
      case OutputKind::kPartialObjectMetadata:
        return Reply(200, "application/json", RenderPartialObjectMetadata(*items[0]));
      case OutputKind::kPartialObjectMetadataList:
        return Reply(200, "application/json", RenderPartialObjectMetadataList(items, "20", ""));
      case OutputKind::kObject:
        break;
    }
    if (!name.empty()) return Reply(200, "application/json", std::string(items[0]->Json()));
    std::string list = "{\"kind\":\"" + info->list_kind + "\",\"apiVersion\":\"" + info->ApiVersion() +
                       "\",\"metadata\":{\"resourceVersion\":\"20\"},\"items\":[";
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k != 0) list += ",";
      list += items[k]->Json();
    }
    return Reply(200, "application/json", list + "]}");
  }

  Registry& registry_;
  const Objects& objects_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::mutex mu_;
  std::vector<std::string> requests_;  // guarded by mu_
  std::jthread thread_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

class StubServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::AddBuiltins(registry_);
    ResourceInfo widgets = testing::WidgetResource();
    widgets.table_columns = CustomResourceColumns(bj::parse(R"([
      {"name":"Size","type":"integer","jsonPath":".spec.size"},
      {"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
      {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}])"));
    registry_.Add(widgets);
    objects_.emplace(std::chrono::system_clock::now());
    server_.emplace(registry_, *objects_);
    dir_ = std::filesystem::temp_directory_path() /
           ("kubectl-stub-" + std::to_string(::getpid()) + "-" + std::to_string(server_->port()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "kubeconfig") << "apiVersion: v1\nkind: Config\n";
  }
  void TearDown() override {
    server_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  CommandResult Kubectl(const std::string& args, const std::string& file = "") {
    return Run("HOME=" + dir_.string() + " KUBECONFIG=" + (dir_ / "kubeconfig").string() +
               " kubectl --server=" + Url() + " --cache-dir=" + (dir_ / "cache").string() +
               " --request-timeout=20s " + args + (file.empty() ? "" : " -f " + file));
  }

  // Runs `cmd` through the shell; stdout and stderr together.
  static CommandResult Run(const std::string& command) {
    const std::string cmd = command + " 2>&1";
    CommandResult r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (pipe == nullptr) return r;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
    const int status = ::pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }

  // The whitespace-separated fields of each output line.
  static std::vector<std::vector<std::string>> Lines(const std::string& out) {
    std::vector<std::vector<std::string>> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> fields;
      std::istringstream words(line);
      for (std::string w; words >> w;) fields.push_back(w);
      if (!fields.empty()) lines.push_back(std::move(fields));
    }
    return lines;
  }

  Registry registry_;
  std::optional<Objects> objects_;
  std::optional<StubServer> server_;
  std::filesystem::path dir_;
};

class KubectlStubTest : public StubServerTest {
 protected:
  void SetUp() override {
    if (std::system("kubectl version --client >/dev/null 2>&1") != 0) GTEST_SKIP() << "kubectl not installed";
    StubServerTest::SetUp();
  }
};

TEST_F(KubectlStubTest, ApiVersionsFromAggregatedDiscovery) {
  const CommandResult r = Kubectl("api-versions");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "apps/v1\ncoordination.k8s.io/v1\nevents.k8s.io/v1\nexample.com/v1\nv1\n");
  // Aggregated discovery answered /api and /apis, so no per-group-version document was fetched.
  for (const std::string& req : server_->Requests()) {
    EXPECT_FALSE(req.starts_with("GET /apis/apps/v1")) << req;
    EXPECT_FALSE(req.starts_with("GET /api/v1")) << req;
  }
}

TEST_F(KubectlStubTest, ApiResourcesListsNamesShortNamesScopesAndKinds) {
  const CommandResult r = Kubectl("api-resources");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = Lines(r.output);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], (std::vector<std::string>{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}));
  auto has = [&](std::vector<std::string> row) {
    return std::find(lines.begin(), lines.end(), row) != lines.end();
  };
  EXPECT_TRUE(has({"configmaps", "cm", "v1", "true", "ConfigMap"})) << r.output;
  EXPECT_TRUE(has({"namespaces", "ns", "v1", "false", "Namespace"})) << r.output;
  EXPECT_TRUE(has({"pods", "po", "v1", "true", "Pod"})) << r.output;
  EXPECT_TRUE(has({"secrets", "v1", "true", "Secret"})) << r.output;
  EXPECT_TRUE(has({"deployments", "deploy", "apps/v1", "true", "Deployment"})) << r.output;
  EXPECT_TRUE(has({"leases", "coordination.k8s.io/v1", "true", "Lease"})) << r.output;
  EXPECT_TRUE(has({"events", "ev", "events.k8s.io/v1", "true", "Event"})) << r.output;
  EXPECT_TRUE(has({"widgets", "wd", "example.com/v1", "true", "Widget"})) << r.output;
  EXPECT_EQ(lines.size(), 14u) << r.output;  // header + 13 resources; subresources are hidden

  const CommandResult cluster = Kubectl("api-resources --namespaced=false -o name");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.output;
  EXPECT_EQ(cluster.output, "namespaces\nnodes\n");
  const CommandResult all = Kubectl("api-resources --categories=all -o name");
  EXPECT_EQ(all.output, "pods\nservices\ndeployments.apps\nreplicasets.apps\nwidgets.example.com\n");
}

TEST_F(KubectlStubTest, GetPodsPrintsKubesColumns) {
  const CommandResult r = Kubectl("get pods -n default");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = Lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_EQ(lines[0], (std::vector<std::string>{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}));
  EXPECT_EQ(lines[1], (std::vector<std::string>{"web-1", "1/2", "CrashLoopBackOff", "3", "(30m", "ago)", "10m"}));

  const CommandResult wide = Kubectl("get po -n default -o wide");
  ASSERT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_EQ(Lines(wide.output)[0], (std::vector<std::string>{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP",
                                                             "NODE", "NOMINATED", "NODE", "READINESS", "GATES"}));
  EXPECT_NE(wide.output.find("10.0.0.7"), std::string::npos);
}

TEST_F(KubectlStubTest, AllNamespacesAndLabelsComeFromRowObjects) {
  const CommandResult r = Kubectl("get pods -A --show-labels");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = Lines(r.output);
  ASSERT_EQ(lines.size(), 3u) << r.output;
  EXPECT_EQ(lines[0].front(), "NAMESPACE");
  EXPECT_EQ(lines[0].back(), "LABELS");
  EXPECT_EQ(lines[1].front(), "default");
  EXPECT_EQ(lines[1].back(), "app=web");
  EXPECT_EQ(lines[2].front(), "data");
  EXPECT_EQ(lines[2].back(), "<none>");
}

TEST_F(KubectlStubTest, GetByShortNameSingularAndCategory) {
  const CommandResult deploy = Kubectl("get deploy -o wide");
  ASSERT_EQ(deploy.exit_code, 0) << deploy.output;
  EXPECT_EQ(Lines(deploy.output)[0], (std::vector<std::string>{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE",
                                                               "CONTAINERS", "IMAGES", "SELECTOR"}));
  EXPECT_EQ(Lines(deploy.output)[1],
            (std::vector<std::string>{"web", "2/3", "3", "2", "10m", "app", "nginx:1.27", "app=web"}));

  const CommandResult cm = Kubectl("get configmap settings");
  ASSERT_EQ(cm.exit_code, 0) << cm.output;
  EXPECT_EQ(Lines(cm.output), (std::vector<std::vector<std::string>>{{"NAME", "DATA", "AGE"}, {"settings", "2", "10m"}}));

  const CommandResult ns = Kubectl("get ns");
  ASSERT_EQ(ns.exit_code, 0) << ns.output;
  EXPECT_EQ(Lines(ns.output)[1], (std::vector<std::string>{"default", "Active", "10m"}));

  const CommandResult ev = Kubectl("get events");
  ASSERT_EQ(ev.exit_code, 0) << ev.output;
  EXPECT_EQ(Lines(ev.output)[0], (std::vector<std::string>{"LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}));
  EXPECT_NE(ev.output.find("pod/web-1"), std::string::npos) << ev.output;

  const CommandResult widgets = Kubectl("get wd");
  ASSERT_EQ(widgets.exit_code, 0) << widgets.output;
  EXPECT_EQ(Lines(widgets.output),
            (std::vector<std::vector<std::string>>{{"NAME", "SIZE", "READY", "AGE"}, {"w1", "7", "True", "10m"}}));

  const CommandResult all = Kubectl("get all -n default");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("pod/web-1"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find("deployment.apps/web"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find("widget.example.com/w1"), std::string::npos) << all.output;
}

TEST_F(KubectlStubTest, MissingObjectIsNotFound) {
  const CommandResult r = Kubectl("get cm nope");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(R"(Error from server (NotFound): configmaps "nope" not found)"), std::string::npos)
      << r.output;
}

TEST_F(KubectlStubTest, CreateWithDefaultValidationUsesServerSideFieldValidation) {
  const std::filesystem::path manifest = dir_ / "cm.yaml";
  std::ofstream(manifest) << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fresh\n  namespace: default\n"
                             "data:\n  k: v\n";
  server_->ClearRequests();
  const CommandResult r = Kubectl("create", manifest.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "configmap/fresh created\n");
  bool fetched_openapi = false, posted_strict = false;
  for (const std::string& req : server_->Requests()) {
    if (req.starts_with("GET /openapi/v3/api/v1")) fetched_openapi = true;
    if (req.starts_with("POST /api/v1/namespaces/default/configmaps") &&
        req.find("fieldValidation=Strict") != std::string::npos) {
      posted_strict = true;
    }
    EXPECT_FALSE(req.starts_with("GET /openapi/v2")) << "kubectl fell back to OpenAPI v2";
  }
  EXPECT_TRUE(fetched_openapi);
  EXPECT_TRUE(posted_strict) << "kubectl did not find fieldValidation in OpenAPI v3";
}

TEST_F(KubectlStubTest, VersionReportsTheServer) {
  const CommandResult r = Kubectl("version -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const bj::value v = bj::parse(r.output);
  EXPECT_EQ(v.at("serverVersion").at("gitVersion"), "v1.32.0");
}

// The Python `kubernetes` client (legacy discovery only) and its DynamicClient.
TEST_F(StubServerTest, PythonClientReadsLegacyDiscovery) {
  constexpr const char* kPython = "/usr/bin/python3";
  if (Run(std::string(kPython) + " -c 'import kubernetes'").exit_code != 0) {
    GTEST_SKIP() << "the Python kubernetes client is not importable from " << kPython;
  }
  const std::filesystem::path script =
      std::filesystem::path(__FILE__).parent_path() / "testdata" / "python_discovery_check.py";
  const CommandResult r =
      Run(std::string(kPython) + " " + script.string() + " " + Url() + " " + (dir_ / "pycache.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "ok\n");
}

}  // namespace
}  // namespace kube::apiserver
