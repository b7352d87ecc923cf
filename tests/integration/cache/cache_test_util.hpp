#pragma once
// Helpers of the informer integration and chaos tests: an embedded API server that can be
// restarted on the same data dir and port, a ListerWatcher wrapper that injects disconnects and
// holds the reflector back (so that a compaction can overtake it), and a handler that checks the
// consistency of the event sequence it receives.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/base/mutex.hpp>
#include <kube/cache/client_lister_watcher.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/client/dynamic_client.hpp>

namespace kube::cache::it {

inline const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

/// A temporary directory removed with its content.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/kubecpp-cache-it-XXXXXX";
    const char* p = ::mkdtemp(tmpl);
    path_ = p ? p : "";
  }
  ~TempDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The embedded API server on 127.0.0.1 over plain HTTP without authentication; memory or sqlite
/// storage (sqlite in its own data dir). `Restart` stops it and starts it again on the same data
/// dir and port, so a client configured for the first start keeps working.
class TestServer {
 public:
  explicit TestServer(bool sqlite) : sqlite_(sqlite) {}
  ~TestServer() { Stop(); }

  /// Starts the server (port 0 the first time, the same port afterwards). A restart retries the
  /// bind briefly: the old listener's port is released asynchronously.
  Result<void> Start() {
    apiserver::ApiServerOptions o;
    o.storage = sqlite_ ? apiserver::ApiServerOptions::StorageKind::kSqlite
                        : apiserver::ApiServerOptions::StorageKind::kMemory;
    if (sqlite_) o.data_dir = dir_.path();
    o.tls = false;
    o.authenticate = false;
    o.port = port_;
    o.storage_options.compaction_interval = std::chrono::seconds(0);
    o.storage_options.compaction_min_revisions = 0;
    o.storage_options.compaction_min_age = std::chrono::seconds(0);
    o.rest.bookmark_interval = std::chrono::milliseconds(200);
    Error last = InternalError("not started");
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto s = apiserver::ApiServer::Start(o);
      if (s.ok()) {
        server_ = std::move(s).value();
        port_ = server_->port();
        return Ok();
      }
      last = s.error();
      if (port_ == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return last;
  }
  void Stop() {
    if (server_) server_->Stop();
    server_.reset();
  }
  Result<void> Restart() {
    Stop();
    return Start();
  }

  apiserver::ApiServer& server() { return *server_; }
  apiserver::Storage& storage() { return server_->storage(); }
  uint16_t port() const { return port_; }

  /// A RestClient for this server (unthrottled; requests time out after 10 s).
  std::shared_ptr<client::RestClient> NewRest() const {
    client::Config c;
    c.host = "http://127.0.0.1:" + std::to_string(port_);
    c.qps = -1;
    c.timeout = std::chrono::seconds(10);
    auto rest = client::RestClient::Create(c);
    EXPECT_TRUE(rest.ok()) << rest.error().ToString();
    return rest.ok() ? *rest : nullptr;
  }

 private:
  TempDir dir_;
  bool sqlite_;
  uint16_t port_ = 0;
  std::unique_ptr<apiserver::ApiServer> server_;
};

/// Wraps a ListerWatcher: counts calls, can break every open watch with a transport error
/// (`Disconnect`) and can hold every new list/watch call until `Release` (a reflector held back
/// while the server compacts past its resourceVersion then gets 410 Expired).
/// **Thread-safety:** all members may be called concurrently.
class ChaosListerWatcher final : public ListerWatcher {
 public:
  explicit ChaosListerWatcher(std::shared_ptr<ListerWatcher> inner) : inner_(std::move(inner)) {}
  ~ChaosListerWatcher() override { Close(); }

  Result<ObjectList> List(const ListOptions& options) override {
    WaitWhileHeld();
    {
      MutexLock lock(mu_);
      ++lists_;
    }
    return inner_->List(options);
  }

  Result<std::unique_ptr<WatchStream>> Watch(const ListOptions& options) override {
    WaitWhileHeld();
    {
      MutexLock lock(mu_);
      ++watches_;
    }
    auto inner = inner_->Watch(options);
    if (!inner.ok()) return std::move(inner).error();
    auto state = std::make_shared<StreamState>();
    state->inner = std::move(inner).value();
    MutexLock lock(mu_);
    std::erase_if(open_, [](const std::weak_ptr<StreamState>& w) { return w.expired(); });
    open_.push_back(state);
    return std::unique_ptr<WatchStream>(std::make_unique<Stream>(state));
  }

  /// Breaks every open watch: its next `Next` returns a transport error (connection reset).
  void Disconnect() {
    std::vector<std::shared_ptr<StreamState>> open;
    {
      MutexLock lock(mu_);
      for (auto& w : open_) {
        if (auto s = w.lock()) open.push_back(std::move(s));
      }
    }
    for (auto& s : open) {
      s->broken.store(true);
      s->inner->Stop();
    }
  }
  /// New list/watch calls block until Release.
  void Hold() {
    MutexLock lock(mu_);
    held_ = true;
  }
  void Release() {
    MutexLock lock(mu_);
    held_ = false;
    cv_.SignalAll();
  }
  /// Releases for good (teardown).
  void Close() {
    MutexLock lock(mu_);
    held_ = false;
    closed_ = true;
    cv_.SignalAll();
  }
  int64_t Lists() const {
    MutexLock lock(mu_);
    return lists_;
  }
  int64_t Watches() const {
    MutexLock lock(mu_);
    return watches_;
  }

 private:
  struct StreamState {
    std::unique_ptr<WatchStream> inner;
    std::atomic<bool> broken{false};
  };
  class Stream final : public WatchStream {
   public:
    explicit Stream(std::shared_ptr<StreamState> s) : s_(std::move(s)) {}
    Result<std::optional<WatchEvent>> Next() override {
      auto next = s_->inner->Next();
      if (s_->broken.load()) return TransportError("chaos: connection reset by the test");
      return next;
    }
    void Stop() override { s_->inner->Stop(); }

   private:
    std::shared_ptr<StreamState> s_;
  };

  void WaitWhileHeld() {
    MutexLock lock(mu_);
    while (held_ && !closed_) cv_.Wait(mu_);
  }

  std::shared_ptr<ListerWatcher> inner_;
  mutable Mutex mu_;
  CondVar cv_;
  bool held_ KUBE_GUARDED_BY(mu_) = false;
  bool closed_ KUBE_GUARDED_BY(mu_) = false;
  int64_t lists_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t watches_ KUBE_GUARDED_BY(mu_) = 0;
  std::vector<std::weak_ptr<StreamState>> open_ KUBE_GUARDED_BY(mu_);
};

/// key -> resourceVersion.
using StateMap = std::map<std::string, std::string>;

/// A handler that checks, per key, that the sequence it receives is consistent: an add only for
/// an absent key, an update or delete only for a present one, an update's old object being the
/// state last delivered, no event after a delete except a new add. It keeps the state it was
/// told about, to compare with the server at the end.
class RecordingHandler final : public ResourceEventHandler {
 public:
  void OnAdd(const ObjectPtr& obj, bool is_in_initial_list) override {
    MutexLock lock(mu_);
    ++adds_;
    if (is_in_initial_list) ++initial_adds_;
    const std::string key = obj->Key();
    if (state_.contains(key)) Violation("add of a present key " + key);
    state_[key] = std::string(obj->ResourceVersion());
  }
  void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
    MutexLock lock(mu_);
    ++updates_;
    const std::string key = new_obj->Key();
    if (old_obj->Key() != key) Violation("update with different keys " + old_obj->Key() + " " + key);
    auto it = state_.find(key);
    if (it == state_.end()) {
      Violation("update before add (or after delete) of " + key);
      state_[key] = std::string(new_obj->ResourceVersion());
      return;
    }
    if (it->second != old_obj->ResourceVersion()) {
      Violation("update of " + key + ": old rv " + std::string(old_obj->ResourceVersion()) +
                " but last delivered " + it->second);
    }
    it->second = std::string(new_obj->ResourceVersion());
  }
  void OnDelete(const ObjectPtr& obj, bool final_state_unknown) override {
    MutexLock lock(mu_);
    ++deletes_;
    if (final_state_unknown) ++tombstones_;
    if (!obj) {
      Violation("delete without an object");
      return;
    }
    const std::string key = obj->Key();
    if (state_.erase(key) == 0) Violation("delete of an absent key " + key);
  }

  StateMap State() const {
    MutexLock lock(mu_);
    return state_;
  }
  std::vector<std::string> Violations() const {
    MutexLock lock(mu_);
    return violations_;
  }
  int64_t Adds() const {
    MutexLock lock(mu_);
    return adds_;
  }
  int64_t InitialAdds() const {
    MutexLock lock(mu_);
    return initial_adds_;
  }
  int64_t Updates() const {
    MutexLock lock(mu_);
    return updates_;
  }
  int64_t Deletes() const {
    MutexLock lock(mu_);
    return deletes_;
  }
  int64_t Tombstones() const {
    MutexLock lock(mu_);
    return tombstones_;
  }

 private:
  void Violation(std::string what) KUBE_REQUIRES(mu_) {
    if (violations_.size() < 20) violations_.push_back(std::move(what));
  }
  mutable Mutex mu_;
  StateMap state_ KUBE_GUARDED_BY(mu_);
  std::vector<std::string> violations_ KUBE_GUARDED_BY(mu_);
  int64_t adds_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t initial_adds_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t updates_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t deletes_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t tombstones_ KUBE_GUARDED_BY(mu_) = 0;
};

/// The informer's cache as key -> resourceVersion.
inline StateMap CacheState(const SharedIndexInformer& informer) {
  StateMap out;
  for (const auto& o : informer.GetIndexer().List()) out[o->Key()] = std::string(o->ResourceVersion());
  return out;
}

/// The server's list of `api` as key -> resourceVersion.
inline Result<StateMap> ServerState(const client::Api& api) {
  auto list = api.ListAll();
  if (!list.ok()) return std::move(list).error();
  StateMap out;
  for (const auto& o : list->items) out[o->Key()] = std::string(o->ResourceVersion());
  return out;
}

/// Polls `pred` every 5 ms until it holds or `timeout` passes (real time; integration tests only).
inline bool WaitFor(const std::function<bool()>& pred, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// A ConfigMap `ns/name` with data {"v": value}.
inline ObjectPtr ConfigMap(std::string_view ns, std::string_view name, std::string_view value,
                           std::string_view label_value = "a") {
  ObjectBuilder b("v1", "ConfigMap");
  b.SetName(name).SetNamespace(ns).SetLabel("app", label_value);
  EXPECT_TRUE(b.Set("/data/v", boost::json::value(boost::json::string_view(value.data(), value.size()))).ok());
  return b.Build().value();
}

}  // namespace kube::cache::it
