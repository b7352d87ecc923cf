// examples/finalizer-cleanup: the DirectoryStore on a temp directory (key validation, atomic
// writes, stale files), and the reconciler run by a Manager against the in-process API server
// (port 0): create -> files + finalizer; update -> files change; delete -> the ConfigMap stays
// Terminating until its files are gone, then 404; removing the label cleans up; a failing cleanup
// keeps the finalizer and is retried with backoff; a forced deletion leaves no files behind.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/kube.hpp>

#include "export_reconciler.hpp"
#include "export_store.hpp"
#include "../support/in_process_server.hpp"
#include "../support/eventually.hpp"

namespace kube::examples::finalizer_cleanup {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const GroupVersionResource kEvents{"", "v1", "events"};

using kube::test_support::Eventually;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("kubecpp-finalizer-cleanup-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  static inline std::atomic<int> counter_{0};
  fs::path path_;
};

// ---- DirectoryStore ----

TEST(ValidateSegment, RejectsAnythingThatCouldLeaveTheDirectory) {
  for (const char* bad : {"", ".", "..", "../etc", "..data", "a/b", "/abs", "a\\b", "sp ace", "nul\x01"}) {
    EXPECT_FALSE(ValidateSegment("key", bad).ok()) << bad;
    EXPECT_TRUE(IsBadRequest(ValidateSegment("key", bad).error())) << bad;
  }
  EXPECT_FALSE(ValidateSegment("key", std::string(254, 'a')).ok());
  for (const char* good : {"index.html", ".env", "a..b", "A-Z_0.9", "x"}) {
    EXPECT_TRUE(ValidateSegment("key", good).ok()) << good;
  }
}

TEST(DirectoryStore, SyncWritesChangedFilesRemovesStaleOnesAndLeavesNoTempFiles) {
  TempDir tmp;
  DirectoryStore store(tmp.path());
  auto first = store.Sync("ns", "cm", {{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->written, 2);
  EXPECT_EQ(first->removed, 0);
  const fs::path dir = tmp.path() / "ns" / "cm";
  EXPECT_EQ(ReadFile(dir / "a"), "1");
  EXPECT_EQ(ReadFile(dir / "b"), "2");

  auto same = store.Sync("ns", "cm", {{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->Changed());  // equal content is not rewritten

  // A temp file left by a crash is cleaned up, not counted.
  std::ofstream(dir / "..tmp-a-XXXXXX") << "partial";
  auto next = store.Sync("ns", "cm", {{"a", "one"}, {"c", ""}});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->written, 2);
  EXPECT_EQ(next->removed, 1);
  EXPECT_EQ(FilesIn(dir), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(ReadFile(dir / "a"), "one");
}

TEST(DirectoryStore, InvalidKeyWritesNothing) {
  TempDir tmp;
  DirectoryStore store(tmp.path());
  auto r = store.Sync("ns", "cm", {{"ok", "1"}, {"../escape", "2"}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error())) << r.error().message;
  EXPECT_FALSE(fs::exists(tmp.path() / "ns"));
  EXPECT_FALSE(fs::exists(tmp.path() / "escape"));
  EXPECT_FALSE(store.Sync("..", "cm", {}).ok());
  EXPECT_FALSE(store.Remove("ns", "../..").ok());
}

TEST(DirectoryStore, RemoveDeletesTheTreeAndIsIdempotent) {
  TempDir tmp;
  DirectoryStore store(tmp.path());
  ASSERT_TRUE(store.Sync("ns", "cm", {{"a", "1"}}).ok());
  ASSERT_TRUE(store.Sync("ns", "other", {{"a", "1"}}).ok());
  auto removed = store.Remove("ns", "cm");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(fs::exists(tmp.path() / "ns" / "cm"));
  EXPECT_TRUE(fs::exists(tmp.path() / "ns" / "other"));
  auto again = store.Remove("ns", "cm");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  ASSERT_TRUE(store.Remove("ns", "other").ok());
  EXPECT_FALSE(fs::exists(tmp.path() / "ns"));  // the empty namespace directory goes too
}

// ---- The controller against the API server ----

// A DirectoryStore whose Remove can be held (blocks until released) or made to fail.
class ControlledStore final : public ExportStore {
 public:
  enum class Mode { kPass, kBlock, kFail };
  explicit ControlledStore(fs::path root) : real_(std::move(root)) {}

  Result<SyncResult> Sync(std::string_view ns, std::string_view name,
                          const std::map<std::string, std::string>& files) override {
    return real_.Sync(ns, name, files);
  }
  Result<bool> Remove(std::string_view ns, std::string_view name) override {
    {
      std::unique_lock lock(mu_);
      ++remove_calls_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return mode_ != Mode::kBlock; });
      if (mode_ == Mode::kFail) return InternalError("injected: cannot remove " + std::string(name));
    }
    return real_.Remove(ns, name);
  }
  void SetMode(Mode mode) {
    std::lock_guard lock(mu_);
    mode_ = mode;
    cv_.notify_all();
  }
  int RemoveCalls() {
    std::lock_guard lock(mu_);
    return remove_calls_;
  }
  const DirectoryStore& real() const { return real_; }

 private:
  DirectoryStore real_;
  std::mutex mu_;
  std::condition_variable cv_;
  Mode mode_ = Mode::kPass;
  int remove_calls_ = 0;
};

class FinalizerCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer([](auto& o) { o.rest.bookmark_interval = 300ms; });
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    rest_ = started->rest;
    store_ = std::make_unique<ControlledStore>(tmp_.path());

    auto mgr = controller::Manager::Create({.rest = rest_});  // as main.cpp
    ASSERT_TRUE(mgr.ok()) << mgr.error().message;
    mgr_ = std::move(mgr).value();
    broadcaster_ = controller::EventBroadcaster::Create(controller::NewApiEventSink(client::DynamicClient(rest_)));
    recorder_ = broadcaster_->NewRecorder("finalizer-cleanup");
    auto ctrl = SetupExportController(*mgr_, *store_, *recorder_);
    ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
    ctrl_ = *ctrl;
    run_ = std::async(std::launch::async, [this] { return mgr_->Start(stop_.get_token()); });
  }
  void TearDown() override {
    if (store_) store_->SetMode(ControlledStore::Mode::kPass);  // never leave a reconcile blocked
    if (run_.valid()) {
      stop_.request_stop();
      EXPECT_TRUE(run_.get().ok());
    }
    if (broadcaster_) broadcaster_->Shutdown();
    recorder_.reset();
    broadcaster_.reset();
    mgr_.reset();
    if (server_) server_->Stop();
  }

  client::Api ConfigMaps() const { return client::Api(rest_, kConfigMaps, "default"); }

  ObjectPtr CreateConfigMap(const std::string& name, bool labelled, const std::string& data_json) {
    const std::string labels = labelled ? R"({"example.kubecpp.io/export":"true"})" : "{}";
    auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                             R"(","namespace":"default","labels":)" + labels + R"(},"data":)" + data_json + "}");
    EXPECT_TRUE(obj.ok());
    auto created = ConfigMaps().Create(**obj);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok() ? *created : nullptr;
  }
  ObjectPtr Get(const std::string& name) {
    auto got = ConfigMaps().Get(name);
    return got.ok() ? *got : nullptr;
  }
  bool IsGone(const std::string& name) {
    auto got = ConfigMaps().Get(name);
    return !got.ok() && IsNotFound(got.error());
  }
  fs::path DirOf(const std::string& name) const { return tmp_.path() / "default" / name; }
  bool HasFile(const std::string& name, const std::string& key, const std::string& content) const {
    std::error_code ec;
    return fs::is_regular_file(DirOf(name) / key, ec) && ReadFile(DirOf(name) / key) == content;
  }
  // "<type> <reason>" of the Events about ConfigMap `name`, once the recorder's queue is written.
  std::vector<std::string> EventsOf(const std::string& name) {
    broadcaster_->Flush();
    std::vector<std::string> out;
    auto list = client::Api(rest_, kEvents, "default").List();
    EXPECT_TRUE(list.ok());
    if (!list.ok()) return out;
    for (const auto& e : list->items) {
      if (e->GetString("/involvedObject/name") == name) {
        out.push_back(e->GetString("/type").value_or("") + " " + e->GetString("/reason").value_or(""));
      }
    }
    return out;
  }
  static bool Contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  TempDir tmp_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::shared_ptr<client::RestClient> rest_;
  std::unique_ptr<ControlledStore> store_;
  std::unique_ptr<controller::Manager> mgr_;
  std::unique_ptr<controller::EventBroadcaster> broadcaster_;
  std::unique_ptr<controller::EventRecorder> recorder_;
  std::shared_ptr<controller::Controller> ctrl_;
  std::stop_source stop_;
  std::future<Result<void>> run_;
};

TEST_F(FinalizerCleanupTest, LabelledConfigMapGetsFinalizerAndFilesUnlabelledOneIsLeftAlone) {
  CreateConfigMap("plain", /*labelled=*/false, R"({"a":"1"})");
  CreateConfigMap("site", /*labelled=*/true, R"({"index.html":"<h1>hi</h1>","robots.txt":"no"})");
  ASSERT_TRUE(Eventually([&] {
    return HasFile("site", "index.html", "<h1>hi</h1>") && HasFile("site", "robots.txt", "no");
  }));
  ObjectPtr site = Get("site");
  ASSERT_NE(site, nullptr);
  EXPECT_TRUE(site->Finalizers().Contains(kCleanupFinalizer));
  EXPECT_EQ(FilesIn(DirOf("site")), (std::vector<std::string>{"index.html", "robots.txt"}));
  EXPECT_TRUE(Contains(EventsOf("site"), "Normal Exported"));
  ObjectPtr plain = Get("plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(plain->Finalizers().empty());
  EXPECT_FALSE(fs::exists(DirOf("plain")));
}

TEST_F(FinalizerCleanupTest, UpdatedDataRewritesChangedFilesAndRemovesDroppedKeys) {
  CreateConfigMap("cfg", true, R"({"a":"1","b":"2"})");
  ASSERT_TRUE(Eventually([&] { return HasFile("cfg", "a", "1") && HasFile("cfg", "b", "2"); }));
  auto patched = ConfigMaps().Patch("cfg", PatchType::kMerge, R"({"data":{"a":"10","b":null,"c":"3"}})");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  ASSERT_TRUE(Eventually([&] {
    return HasFile("cfg", "a", "10") && HasFile("cfg", "c", "3") && !fs::exists(DirOf("cfg") / "b");
  }));
  EXPECT_EQ(FilesIn(DirOf("cfg")), (std::vector<std::string>{"a", "c"}));  // no temp files left
}

TEST_F(FinalizerCleanupTest, DeletedConfigMapStaysTerminatingUntilItsFilesAreRemoved) {
  CreateConfigMap("doomed", true, R"({"a":"1"})");
  ASSERT_TRUE(Eventually([&] { return HasFile("doomed", "a", "1"); }));
  store_->SetMode(ControlledStore::Mode::kBlock);  // the cleanup starts, then waits for the test
  auto deleted = ConfigMaps().Delete("doomed");
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  ASSERT_TRUE(Eventually([&] { return store_->RemoveCalls() >= 1; }));
  ObjectPtr terminating = Get("doomed");
  ASSERT_NE(terminating, nullptr) << "deleted before its files were cleaned up";
  EXPECT_TRUE(terminating->IsBeingDeleted());
  EXPECT_TRUE(terminating->Finalizers().Contains(kCleanupFinalizer));
  EXPECT_TRUE(HasFile("doomed", "a", "1"));

  store_->SetMode(ControlledStore::Mode::kPass);
  ASSERT_TRUE(Eventually([&] { return IsGone("doomed"); }));
  EXPECT_FALSE(fs::exists(DirOf("doomed")));
  EXPECT_TRUE(Contains(EventsOf("doomed"), "Normal CleanedUp"));
}

TEST_F(FinalizerCleanupTest, RemovingTheLabelCleansUpAndDropsTheFinalizer) {
  CreateConfigMap("unexport", true, R"({"a":"1"})");
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr cm = Get("unexport");
    return HasFile("unexport", "a", "1") && cm != nullptr && cm->Finalizers().Contains(kCleanupFinalizer);
  }));
  auto patched =
      ConfigMaps().Patch("unexport", PatchType::kMerge, R"({"metadata":{"labels":{"example.kubecpp.io/export":null}}})");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr cm = Get("unexport");
    return cm != nullptr && !cm->Finalizers().Contains(kCleanupFinalizer) && !fs::exists(DirOf("unexport"));
  }));
  ObjectPtr cm = Get("unexport");
  ASSERT_NE(cm, nullptr);
  EXPECT_FALSE(cm->IsBeingDeleted());  // still there, just no longer exported
}

TEST_F(FinalizerCleanupTest, FailingCleanupKeepsTheFinalizerAndIsRetriedWithBackoff) {
  CreateConfigMap("stuck", true, R"({"a":"1"})");
  ASSERT_TRUE(Eventually([&] { return HasFile("stuck", "a", "1"); }));
  store_->SetMode(ControlledStore::Mode::kFail);
  const auto errors_before = ctrl_->Stats().errors;
  ASSERT_TRUE(ConfigMaps().Delete("stuck").ok());
  ASSERT_TRUE(Eventually([&] { return store_->RemoveCalls() >= 4; }));  // first try + 3 retries

  ObjectPtr cm = Get("stuck");
  ASSERT_NE(cm, nullptr);
  EXPECT_TRUE(cm->IsBeingDeleted());
  EXPECT_TRUE(cm->Finalizers().Contains(kCleanupFinalizer));
  EXPECT_TRUE(HasFile("stuck", "a", "1"));
  EXPECT_GE(ctrl_->Stats().errors - errors_before, 3);
  // The retries went through the rate limiter (AddRateLimited), not a hot loop.
  const std::string metrics = mgr_->GetMetricsRegistry().Render();
  const std::string sample = "workqueue_retries_total{name=\"finalizer-cleanup\"} ";
  const auto at = metrics.find(sample);
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_GE(std::stod(metrics.substr(at + sample.size())), 3.0);
  EXPECT_TRUE(Contains(EventsOf("stuck"), "Warning CleanupFailed"));

  store_->SetMode(ControlledStore::Mode::kPass);
  ASSERT_TRUE(Eventually([&] { return IsGone("stuck"); }));
  EXPECT_FALSE(fs::exists(DirOf("stuck")));
}

// A deletion that bypassed the cleanup (the finalizer removed by hand while the cleanup failed):
// the reconcile of the vanished key still removes the files left behind.
TEST_F(FinalizerCleanupTest, ForcedDeletionWithoutTheFinalizerStillRemovesLeftoverFiles) {
  CreateConfigMap("forced", true, R"({"a":"1"})");
  ASSERT_TRUE(Eventually([&] { return HasFile("forced", "a", "1"); }));
  store_->SetMode(ControlledStore::Mode::kFail);
  ASSERT_TRUE(ConfigMaps().Delete("forced").ok());
  ASSERT_TRUE(Eventually([&] { return store_->RemoveCalls() >= 1; }));
  auto forced = ConfigMaps().Patch("forced", PatchType::kMerge, R"({"metadata":{"finalizers":null}})");
  ASSERT_TRUE(forced.ok() || IsNotFound(forced.error())) << forced.error().message;
  ASSERT_TRUE(Eventually([&] { return IsGone("forced"); }));
  EXPECT_TRUE(HasFile("forced", "a", "1"));  // the cleanup never succeeded

  store_->SetMode(ControlledStore::Mode::kPass);
  ASSERT_TRUE(Eventually([&] { return !fs::exists(DirOf("forced")); }));
}

}  // namespace
}  // namespace kube::examples::finalizer_cleanup
