// The informer chaos test (issue 6): against the embedded API server on sqlite, a seeded storm of
// creates, updates and deletes while the test breaks watches, compacts past the reflector's
// resourceVersion (410 Expired -> relist) and restarts the server on the same data dir and port.
// After quiescence the informer's cache must equal the server's list exactly (keys and
// resourceVersions), and every handler (one added before start, one added mid-storm) must have
// seen a consistent sequence per key (see RecordingHandler) ending in the same state.
#include <chrono>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cache_test_util.hpp"

namespace kube::cache::it {
namespace {

using namespace std::chrono_literals;

constexpr int kOps = 150;
constexpr int kKeys = 24;

class ChaosTest : public ::testing::TestWithParam<int> {};

// Applies one random write and keeps `exists` in step with the server.
void RandomWrite(std::mt19937& rng, const std::shared_ptr<client::RestClient>& rest, std::set<std::string>& exists,
                 int& serial) {
  const std::string ns = rng() % 2 == 0 ? "default" : "kube-public";
  const std::string name = "k-" + std::to_string(rng() % kKeys);
  const std::string key = ns + "/" + name;
  client::Api api(rest, kConfigMaps, ns);
  const std::string value = std::to_string(++serial);
  if (!exists.contains(key)) {
    auto r = api.Create(*ConfigMap(ns, name, value));
    if (r.ok() || IsAlreadyExists(r.error())) exists.insert(key);
    EXPECT_TRUE(r.ok()) << key << ": " << r.error().ToString();
    return;
  }
  if (rng() % 3 == 0) {
    auto r = api.Delete(name);
    if (r.ok() || IsNotFound(r.error())) exists.erase(key);
    EXPECT_TRUE(r.ok()) << key << ": " << r.error().ToString();
    return;
  }
  auto r = api.Patch(name, PatchType::kMerge, R"({"data":{"v":")" + value + R"("}})");
  if (!r.ok() && IsNotFound(r.error())) exists.erase(key);
  EXPECT_TRUE(r.ok()) << key << ": " << r.error().ToString();
}

TEST_P(ChaosTest, CacheEqualsServerAfterStorm) {
  const int seed = GetParam();
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed) * 7919u + 17u);
  TestServer server(/*sqlite=*/true);
  auto started = server.Start();
  ASSERT_TRUE(started.ok()) << started.error().ToString();
  auto rest = server.NewRest();
  ASSERT_NE(rest, nullptr);
  client::Api all(rest, kConfigMaps);

  std::set<std::string> exists;
  int serial = 0;
  for (int i = 0; i < 8; ++i) RandomWrite(rng, rest, exists, serial);

  auto lw = std::make_shared<ChaosListerWatcher>(NewClientListerWatcher(all));
  InformerOptions o;
  o.name = "chaos";
  o.reflector.use_watch_list = seed % 2 == 1;
  o.reflector.min_watch_timeout = 1s;  // the server also closes watches on its own
  o.reflector.backoff.initial = 5ms;
  o.reflector.backoff.max = 100ms;
  auto informer = std::make_unique<SharedIndexInformer>(lw, o);
  auto early = std::make_shared<RecordingHandler>();
  auto late = std::make_shared<RecordingHandler>();
  ASSERT_TRUE(informer->AddEventHandler(early).ok());
  std::jthread run([&](std::stop_token st) { informer->Run(st); });

  const int late_at = static_cast<int>(rng() % kOps);
  const int restart_at = static_cast<int>(rng() % kOps);
  int disconnects = 0;
  int compactions = 0;
  for (int op = 0; op < kOps; ++op) {
    if (op == late_at) {
      ASSERT_TRUE(informer->AddEventHandler(late).ok());
    }
    if (op == restart_at) {
      auto restarted = server.Restart();
      ASSERT_TRUE(restarted.ok()) << restarted.error().ToString();
    }
    const unsigned roll = rng() % 100;
    if (roll < 5) {
      lw->Disconnect();
      ++disconnects;
    } else if (roll < 9) {
      // Hold the reflector back while history it has not seen is written and compacted away.
      lw->Hold();
      lw->Disconnect();
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) RandomWrite(rng, rest, exists, serial);
      auto& storage = server.storage();
      storage.Compact(storage.CurrentRevision());
      lw->Release();
      ++compactions;
    }
    RandomWrite(rng, rest, exists, serial);
    if (rng() % 8 == 0) std::this_thread::yield();
  }

  StateMap want;
  const bool converged = WaitFor(
      [&] {
        auto s = ServerState(all);
        if (!s.ok()) return false;
        want = *s;
        return CacheState(*informer) == want && early->State() == want && late->State() == want;
      },
      60s);
  EXPECT_TRUE(converged) << "seed " << seed << ": server " << want.size() << " objects, cache "
                         << CacheState(*informer).size() << ", early handler " << early->State().size()
                         << ", late handler " << late->State().size();
  EXPECT_EQ(CacheState(*informer), want);
  EXPECT_EQ(early->State(), want);
  EXPECT_EQ(late->State(), want);
  for (const auto& v : early->Violations()) ADD_FAILURE() << "early handler: " << v;
  for (const auto& v : late->Violations()) ADD_FAILURE() << "late handler: " << v;
  // The storm must actually have exercised the informer.
  EXPECT_GT(early->Adds() + early->Updates() + early->Deletes(), 50);
  RecordProperty("disconnects", disconnects);
  RecordProperty("compactions", compactions);
  RecordProperty("lists", static_cast<int>(lw->Lists()));
  RecordProperty("watches", static_cast<int>(lw->Watches()));
  RecordProperty("tombstones", static_cast<int>(early->Tombstones()));

  lw->Close();
  run.request_stop();
  run.join();
}

INSTANTIATE_TEST_SUITE_P(Seeds, ChaosTest, ::testing::Range(0, 20));

}  // namespace
}  // namespace kube::cache::it
