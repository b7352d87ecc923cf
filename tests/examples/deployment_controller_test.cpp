// examples/deployment-controller: the pure rollout arithmetic (hash, fenceposts, rolling and
// recreate steps), the ReplicaSet expectations, and the three controllers run through a Manager
// against the in-process API server on port 0, exactly as kubecpp-deployment-controller runs
// them (ControlPlane::Setup).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/api/apps/v1.hpp>
#include <kube/api/codec.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/object.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/core/time.hpp>
#include <kube/kube.hpp>

#include "control_plane.hpp"
#include "expectations.hpp"
#include "objects.hpp"
#include "replicaset_controller.hpp"
#include "rollout.hpp"
#include "../support/eventually.hpp"

namespace deployctl {

// gtest printing of scale changes (found by ADL, hence outside the anonymous namespace).
void PrintTo(const ScaleChange& c, std::ostream* os) { *os << c.name << ":" << c.from << "->" << c.to; }
void PrintTo(const ConditionUpdate& u, std::ostream* os) {
  *os << u.status << "/" << u.reason << " \"" << u.message << "\"" << (u.refresh ? " refresh" : "");
}

namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using kube::api::IntOrString;

// The tests read the API server's answers through the dynamic API, independently of the typed
// structs the controllers use.
const kube::GroupVersionResource kDeployments{"apps", "v1", "deployments"};
const kube::GroupVersionResource kReplicaSets{"apps", "v1", "replicasets"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};

// The int32 at `pointer` of `obj`, or `fallback` when absent or not an integer.
std::int32_t Int32At(const kube::Object& obj, std::string_view pointer, std::int32_t fallback = 0) {
  auto v = obj.GetInt(pointer);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return fallback;
  return static_cast<std::int32_t>(*v);
}

// The JSON value at `pointer`, or null.
json::value ValueAt(const kube::Object& obj, std::string_view pointer) {
  auto v = obj.Get(pointer);
  return v ? std::move(*v) : json::value(nullptr);
}

template <class T>
T Decode(std::string_view text) {
  auto v = kube::api::FromJson<T>(text);
  EXPECT_TRUE(v.ok()) << v.error().message;
  return v.ok() ? std::move(*v) : T{};
}
template <class T>
T Decode(const kube::Object& obj) {
  auto v = kube::api::FromObject<T>(obj);
  EXPECT_TRUE(v.ok()) << v.error().message;
  return v.ok() ? std::move(*v) : T{};
}

kube::api::core::v1::PodTemplateSpec Template(std::string_view text) {
  return Decode<kube::api::core::v1::PodTemplateSpec>(text);
}
// The pod template of a Deployment read through the dynamic API.
kube::api::core::v1::PodTemplateSpec TemplateOf(const kube::Object& deployment) {
  return Decode<kube::api::apps::v1::Deployment>(deployment).spec.template_;
}
bool PodReady(const kube::Object& pod) { return IsPodReady(Decode<kube::api::core::v1::Pod>(pod)); }

// ---------------------------------------------------------------------------------------------
// Pure functions

TEST(PodTemplateHash, Fnv32aMatchesThePublishedTestVectors) {
  EXPECT_EQ(Fnv32a(""), 0x811c9dc5U);
  EXPECT_EQ(Fnv32a("a"), 0xe40c292cU);
  EXPECT_EQ(Fnv32a("foobar"), 0xbf9cf968U);
}

TEST(PodTemplateHash, SafeEncodingMapsDigitsIntoKubesAlphabet) {
  EXPECT_EQ(SafeEncodeString("0123456789"), "456789bcdf");
}

TEST(PodTemplateHash, IsStableAcrossMemberOrderAndIgnoresItsOwnLabel) {
  const auto a = Template(R"({"metadata":{"labels":{"app":"web","tier":"fe"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}})");
  const auto b = Template(R"({"spec":{"containers":[{"image":"nginx:1","name":"c"}]},"metadata":{"labels":{"tier":"fe","app":"web"}}})");
  const auto labelled =
      Template(R"({"metadata":{"labels":{"app":"web","tier":"fe","pod-template-hash":"zzz"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}})");
  const std::string h = ComputePodTemplateHash(a, std::nullopt);
  EXPECT_FALSE(h.empty());
  EXPECT_LE(h.size(), 10U);  // the decimal digits of a uint32
  EXPECT_EQ(h.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos) << h;
  EXPECT_EQ(ComputePodTemplateHash(b, std::nullopt), h);
  EXPECT_EQ(ComputePodTemplateHash(labelled, std::nullopt), h);
  EXPECT_TRUE(EqualIgnoreHash(a, labelled));
  EXPECT_EQ(h, SafeEncodeString(std::to_string(Fnv32a(kube::api::ToJson(a)))));
}

TEST(PodTemplateHash, TreatsNullMembersAsAbsent) {
  // `kubectl rollout undo` writes templates back with "creationTimestamp": null.
  const auto a = Template(R"({"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}})");
  const auto b = Template(R"({"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}})");
  EXPECT_TRUE(EqualIgnoreHash(a, b));
  EXPECT_EQ(ComputePodTemplateHash(a, std::nullopt), ComputePodTemplateHash(b, std::nullopt));
}

TEST(PodTemplateHash, ChangesWithTheTemplateAndTheCollisionCount) {
  const auto a = Template(R"({"spec":{"containers":[{"name":"c","image":"nginx:1"}]}})");
  const auto b = Template(R"({"spec":{"containers":[{"name":"c","image":"nginx:2"}]}})");
  EXPECT_NE(ComputePodTemplateHash(a, std::nullopt), ComputePodTemplateHash(b, std::nullopt));
  EXPECT_FALSE(EqualIgnoreHash(a, b));
  EXPECT_NE(ComputePodTemplateHash(a, 1), ComputePodTemplateHash(a, std::nullopt));
  EXPECT_NE(ComputePodTemplateHash(a, 1), ComputePodTemplateHash(a, 2));
  EXPECT_EQ(ComputePodTemplateHash(a, 2), ComputePodTemplateHash(a, 2));
}

TEST(Fenceposts, SurgeRoundsUpAndUnavailableRoundsDown) {
  const IntOrString q = "25%";
  EXPECT_EQ(*ResolveFenceposts(q, q, 10), (Fenceposts{.max_surge = 3, .max_unavailable = 2}));
  EXPECT_EQ(*ResolveFenceposts(q, q, 3), (Fenceposts{.max_surge = 1, .max_unavailable = 0}));
  const IntOrString half = "50%";
  EXPECT_EQ(*ResolveFenceposts(half, half, 5), (Fenceposts{.max_surge = 3, .max_unavailable = 2}));
  EXPECT_EQ(*ResolveFenceposts(IntOrString(2), IntOrString(1), 10), (Fenceposts{.max_surge = 2, .max_unavailable = 1}));
  EXPECT_EQ(*ScaledValueFromIntOrPercent(std::nullopt, 10, true), 0);
}

TEST(Fenceposts, BothZeroBecomesOneUnavailable) {
  const IntOrString zero = 0;
  const IntOrString zero_pct = "0%";
  const IntOrString small = "10%";
  EXPECT_EQ(*ResolveFenceposts(zero, zero, 4), (Fenceposts{.max_surge = 0, .max_unavailable = 1}));
  EXPECT_EQ(*ResolveFenceposts(zero_pct, zero_pct, 4), (Fenceposts{.max_surge = 0, .max_unavailable = 1}));
  // 10% of 4: surge rounds up to 1, unavailable rounds down to 0: no fix-up needed.
  EXPECT_EQ(*ResolveFenceposts(small, small, 4), (Fenceposts{.max_surge = 1, .max_unavailable = 0}));
}

TEST(Fenceposts, RejectsMalformedValues) {
  // (A value of another JSON type, such as `true`, does not decode as an IntOrString.)
  for (const IntOrString& bad :
       {IntOrString("abc"), IntOrString("%"), IntOrString("-5%"), IntOrString(-1), IntOrString("5")}) {
    EXPECT_FALSE(ScaledValueFromIntOrPercent(bad, 10, true).ok()) << bad.ToString();
  }
  auto r = ResolveFenceposts(IntOrString("x%"), IntOrString(1), 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("maxSurge"), std::string::npos) << r.error().message;
}

ReplicaSetCounts Rs(std::string name, std::int32_t spec, std::int32_t pods, std::int32_t available) {
  return {.name = std::move(name), .spec_replicas = spec, .status_replicas = pods, .available_replicas = available};
}

TEST(RollingUpdateStep, ScalesTheNewReplicaSetUpWithinMaxSurge) {
  const Fenceposts f{.max_surge = 1, .max_unavailable = 1};
  auto changes = RollingUpdateStep(4, f, Rs("new", 0, 0, 0), {Rs("old", 4, 4, 4)});
  EXPECT_EQ(changes, (std::vector<ScaleChange>{{"new", 0, 1}}));
  // At desired + surge pods: scale the old one down to keep desired - maxUnavailable available.
  changes = RollingUpdateStep(4, f, Rs("new", 1, 1, 0), {Rs("old", 4, 4, 4)});
  EXPECT_EQ(changes, (std::vector<ScaleChange>{{"old", 4, 3}}));
}

TEST(RollingUpdateStep, CountsPodsOfAShrunkReplicaSetUntilTheyAreGone) {
  const Fenceposts f{.max_surge = 1, .max_unavailable = 1};
  // old was scaled to 3 but still has 4 pods: no room to surge, and no more availability to give.
  EXPECT_TRUE(RollingUpdateStep(4, f, Rs("new", 1, 1, 0), {Rs("old", 3, 4, 4)}).empty());
  // Once the pod is gone the new ReplicaSet grows.
  EXPECT_EQ(RollingUpdateStep(4, f, Rs("new", 1, 1, 0), {Rs("old", 3, 3, 3)}),
            (std::vector<ScaleChange>{{"new", 1, 2}}));
}

TEST(RollingUpdateStep, NeverScalesBelowMinAvailable) {
  const Fenceposts f{.max_surge = 1, .max_unavailable = 0};
  // New pods not available yet: nothing may go.
  EXPECT_TRUE(RollingUpdateStep(3, f, Rs("new", 1, 1, 0), {Rs("old", 3, 3, 3)}).empty());
  // One new pod available: one old pod may go.
  EXPECT_EQ(RollingUpdateStep(3, f, Rs("new", 1, 1, 1), {Rs("old", 3, 3, 3)}),
            (std::vector<ScaleChange>{{"old", 3, 2}}));
}

TEST(RollingUpdateStep, RemovesUnavailableOldPodsFirstAndOldestReplicaSetsFirst) {
  const Fenceposts f{.max_surge = 0, .max_unavailable = 1};
  // older has 2 unavailable pods: they go first (they cost no availability), within
  // maxScaledDown = 4 specs - 3 minAvailable - 0 new unavailable = 1; old keeps its 2 available.
  EXPECT_EQ(RollingUpdateStep(4, f, Rs("new", 0, 0, 0), {Rs("older", 2, 2, 0), Rs("old", 2, 2, 2)}),
            (std::vector<ScaleChange>{{"older", 2, 1}}));
  // Plenty of availability: the oldest ReplicaSet gives first.
  EXPECT_EQ(RollingUpdateStep(4, f, Rs("new", 0, 0, 0), {Rs("older", 2, 2, 2), Rs("old", 2, 2, 2)}),
            (std::vector<ScaleChange>{{"older", 2, 1}}));
  const Fenceposts wide{.max_surge = 0, .max_unavailable = 3};
  EXPECT_EQ(RollingUpdateStep(4, wide, Rs("new", 0, 0, 0), {Rs("older", 2, 2, 2), Rs("old", 2, 2, 2)}),
            (std::vector<ScaleChange>{{"older", 2, 0}, {"old", 2, 1}}));
}

TEST(RollingUpdateStep, PureScalingResizesTheNewReplicaSetDirectly) {
  const Fenceposts f{.max_surge = 1, .max_unavailable = 0};
  EXPECT_EQ(RollingUpdateStep(5, f, Rs("web", 3, 3, 3), {Rs("old", 0, 0, 0)}), (std::vector<ScaleChange>{{"web", 3, 5}}));
  EXPECT_EQ(RollingUpdateStep(1, f, Rs("web", 5, 5, 5), {}), (std::vector<ScaleChange>{{"web", 5, 1}}));
  EXPECT_TRUE(RollingUpdateStep(5, f, Rs("web", 5, 5, 5), {}).empty());
}

TEST(RollingUpdateStep, ARolloutEndsWithTheOldReplicaSetAtZeroAndNeverBreaksTheBounds) {
  // Simulate the loop the controllers form: each step, then every ReplicaSet's pods follow its
  // spec and new pods become available.
  for (auto [surge, unavailable] : {std::pair{1, 1}, std::pair{0, 1}, std::pair{2, 0}, std::pair{3, 2}}) {
    const std::int32_t desired = 5;
    const Fenceposts f{.max_surge = surge, .max_unavailable = unavailable};
    ReplicaSetCounts n = Rs("new", 0, 0, 0);
    std::vector<ReplicaSetCounts> olds = {Rs("old", desired, desired, desired)};
    int steps = 0;
    while (!(n.spec_replicas == desired && olds[0].spec_replicas == 0 && olds[0].status_replicas == 0)) {
      ASSERT_LT(++steps, 100) << "no progress with surge " << surge << " unavailable " << unavailable;
      for (const auto& c : RollingUpdateStep(desired, f, n, olds)) {
        (c.name == "new" ? n : olds[0]).spec_replicas = c.to;
      }
      // Deletions happen at once (and are counted), creations become available at once.
      olds[0].status_replicas = olds[0].spec_replicas;
      olds[0].available_replicas = std::min(olds[0].available_replicas, olds[0].spec_replicas);
      EXPECT_LE(n.spec_replicas + olds[0].status_replicas, desired + surge);
      EXPECT_GE(n.available_replicas + olds[0].available_replicas, desired - unavailable);
      n.status_replicas = n.spec_replicas;
      n.available_replicas = n.spec_replicas;
    }
  }
}

TEST(RecreateStep, ScalesOldToZeroThenWaitsForTheirPodsBeforeScalingUp) {
  EXPECT_EQ(RecreateStep(3, Rs("new", 0, 0, 0), {Rs("old", 3, 3, 3)}), (std::vector<ScaleChange>{{"old", 3, 0}}));
  EXPECT_TRUE(RecreateStep(3, Rs("new", 0, 0, 0), {Rs("old", 0, 2, 0)}).empty());
  EXPECT_EQ(RecreateStep(3, Rs("new", 0, 0, 0), {Rs("old", 0, 0, 0)}), (std::vector<ScaleChange>{{"new", 0, 3}}));
}

TEST(PausedScaleStep, ResizesTheOnlyActiveReplicaSetAndNeverStartsARollout) {
  const ReplicaSetCounts new_rs = Rs("new", 3, 3, 3);
  EXPECT_EQ(PausedScaleStep(5, &new_rs, {Rs("old", 0, 0, 0)}), (std::vector<ScaleChange>{{"new", 3, 5}}));
  // No ReplicaSet for the paused template: the active old one is scaled instead.
  EXPECT_EQ(PausedScaleStep(1, nullptr, {Rs("older", 0, 0, 0), Rs("old", 3, 3, 3)}),
            (std::vector<ScaleChange>{{"old", 3, 1}}));
  // None active: the newest.
  EXPECT_EQ(PausedScaleStep(2, nullptr, {Rs("older", 0, 0, 0), Rs("old", 0, 0, 0)}),
            (std::vector<ScaleChange>{{"old", 0, 2}}));
  EXPECT_TRUE(PausedScaleStep(3, &new_rs, {}).empty());
  // Paused mid-rollout (two active): left alone (proportional scaling is not implemented).
  const ReplicaSetCounts half = Rs("new", 1, 1, 1);
  EXPECT_TRUE(PausedScaleStep(6, &half, {Rs("old", 2, 2, 2)}).empty());
}

HistoryEntry Old(std::string name, std::int64_t revision, std::int32_t spec = 0, std::int32_t pods = 0) {
  return {.name = std::move(name), .revision = revision, .spec_replicas = spec, .status_replicas = pods};
}

TEST(RevisionHistory, DeletesTheOldestRevisionsBeyondTheLimit) {
  EXPECT_EQ(RevisionHistoryToDelete({Old("c", 3), Old("a", 1), Old("b", 2), Old("d", 4)}, 2),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(RevisionHistoryToDelete({Old("a", 1), Old("b", 2)}, 2).empty());
  EXPECT_EQ(RevisionHistoryToDelete({Old("a", 1), Old("b", 2)}, 0), (std::vector<std::string>{"a", "b"}));
}

TEST(RevisionHistory, NeverDeletesAReplicaSetWithReplicasPodsOrAnUnobservedSpec) {
  HistoryEntry unsynced = Old("c", 3);
  unsynced.synced = false;
  HistoryEntry deleting = Old("e", 0);
  deleting.deleting = true;  // not counted at all
  // Candidates are the 3 lowest revisions of a, b, c, d (limit 1); none of them may go.
  EXPECT_TRUE(RevisionHistoryToDelete({Old("a", 1, 1, 1), Old("b", 2, 0, 1), unsynced, Old("d", 4), deleting}, 1)
                  .empty());
  EXPECT_EQ(RevisionHistoryToDelete({Old("a", 1, 1, 1), Old("b", 2), Old("d", 4), deleting}, 1),
            (std::vector<std::string>{"b"}));
}

TEST(PodAvailability, APodIsAvailableMinReadySecondsAfterItBecameReady) {
  using kube::api::core::v1::Pod;
  const auto pod = Decode<Pod>(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"conditions":[
      {"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:10Z"}]}})");
  auto at = PodAvailableAt(pod, 30);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(kube::FormatTime(*at), "2026-01-01T00:00:40Z");
  EXPECT_TRUE(PodAvailableAt(pod, 0).has_value());
  const auto not_ready = Decode<Pod>(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"conditions":[
      {"type":"Ready","status":"False","lastTransitionTime":"2026-01-01T00:00:10Z"}]}})");
  EXPECT_FALSE(PodAvailableAt(not_ready, 0).has_value());
  const auto no_time = Decode<Pod>(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"conditions":[
      {"type":"Ready","status":"True"}]}})");
  EXPECT_FALSE(PodAvailableAt(no_time, 5).has_value());
  EXPECT_TRUE(PodAvailableAt(no_time, 0).has_value());
}

ProgressInput Progress(std::string reason, kube::Clock::WallTime last_update, kube::Clock::WallTime now) {
  return {.current_reason = std::move(reason), .last_update = last_update, .now = now, .rs_name = "web-abc"};
}

TEST(Progressing, PausedIsUnknownAndKeepsATimeoutResumeIsUnknownResumed) {
  const auto t0 = kube::Clock::WallTime{} + std::chrono::hours(1000);
  ProgressInput in = Progress("ReplicaSetUpdated", t0, t0 + 1s);
  in.paused = true;
  in.progressed = true;  // scaling while paused is no rollout progress
  auto d = NextProgressing(in);
  EXPECT_EQ(d.updates, (std::vector<ConditionUpdate>{{"Unknown", "DeploymentPaused", "Deployment is paused"}}));
  EXPECT_FALSE(d.recheck_after.has_value()) << "no deadline while paused";
  in.current_reason = "ProgressDeadlineExceeded";
  EXPECT_TRUE(NextProgressing(in).updates.empty());
  in.current_reason = "DeploymentPaused";
  EXPECT_TRUE(NextProgressing(in).updates.empty());

  // Resumed long after the pause: the deadline counts from the resume, not the paused condition.
  ProgressInput resumed = Progress("DeploymentPaused", t0, t0 + 3600s);
  d = NextProgressing(resumed);
  EXPECT_EQ(d.updates, (std::vector<ConditionUpdate>{{"Unknown", "DeploymentResumed", "Deployment is resumed"}}));
  EXPECT_EQ(d.recheck_after, std::optional<kube::Clock::Duration>(600s));
  resumed.progressed = true;
  d = NextProgressing(resumed);
  ASSERT_EQ(d.updates.size(), 2U);
  EXPECT_EQ(d.updates[1], (ConditionUpdate{"True", "ReplicaSetUpdated", "ReplicaSet \"web-abc\" is progressing.", true}));
}

TEST(Progressing, TimesOutWhenNoProgressWithinTheDeadlineSinceTheLastUpdate) {
  const auto t0 = kube::Clock::WallTime{} + std::chrono::hours(1000);
  ProgressInput in = Progress("ReplicaSetUpdated", t0, t0 + 9s);
  in.deadline = 10s;
  auto d = NextProgressing(in);
  EXPECT_TRUE(d.updates.empty());
  EXPECT_EQ(d.recheck_after, std::optional<kube::Clock::Duration>(1s));
  in.now = t0 + 10s;
  d = NextProgressing(in);
  EXPECT_EQ(d.updates, (std::vector<ConditionUpdate>{
                           {"False", "ProgressDeadlineExceeded", "ReplicaSet \"web-abc\" has timed out progressing."}}));
  EXPECT_FALSE(d.recheck_after.has_value());
  // Progress refreshes lastUpdateTime: no timeout, a new full deadline.
  in.progressed = true;
  d = NextProgressing(in);
  EXPECT_EQ(d.updates, (std::vector<ConditionUpdate>{{"True", "ReplicaSetUpdated", "ReplicaSet \"web-abc\" is progressing.", true}}));
  EXPECT_EQ(d.recheck_after, std::optional<kube::Clock::Duration>(10s));
  // A timed-out Deployment stays so without progress; a complete one never times out.
  in.progressed = false;
  in.current_reason = "ProgressDeadlineExceeded";
  EXPECT_TRUE(NextProgressing(in).updates.empty());
  in.current_reason = "NewReplicaSetAvailable";
  in.complete = true;
  in.now = t0 + 1000s;
  d = NextProgressing(in);
  EXPECT_EQ(d.updates, (std::vector<ConditionUpdate>{{"True", "NewReplicaSetAvailable",
                                                       "ReplicaSet \"web-abc\" has successfully progressed."}}));
  EXPECT_FALSE(d.recheck_after.has_value());
  // No deadline (progressDeadlineSeconds = MaxInt32): never times out.
  in = Progress("ReplicaSetUpdated", t0, t0 + 100000s);
  in.deadline = std::nullopt;
  d = NextProgressing(in);
  EXPECT_TRUE(d.updates.empty());
  EXPECT_FALSE(d.recheck_after.has_value());
}

TEST(Expectations, PendingCreationsHoldUntilTheCacheShowsThem) {
  kube::FakeClock clock;
  Expectations e(clock, 5min);
  EXPECT_TRUE(e.Satisfied("ns/rs", "u1", {}));
  e.ExpectCreation("ns/rs", "u1", "rs-aaaaa");
  e.ExpectCreation("ns/rs", "u1", "rs-bbbbb");
  EXPECT_FALSE(e.Satisfied("ns/rs", "u1", {}));
  EXPECT_FALSE(e.Satisfied("ns/rs", "u1", {"rs-aaaaa"}));
  EXPECT_EQ(e.Pending("ns/rs"), 1U);
  EXPECT_TRUE(e.Satisfied("ns/rs", "u1", {"rs-aaaaa", "rs-bbbbb"}));
  EXPECT_EQ(e.Pending("ns/rs"), 0U);
}

TEST(Expectations, PendingDeletionsHoldUntilThePodLeftTheCache) {
  kube::FakeClock clock;
  Expectations e(clock, 5min);
  e.ExpectDeletion("ns/rs", "u1", "rs-aaaaa");
  EXPECT_FALSE(e.Satisfied("ns/rs", "u1", {"rs-aaaaa", "rs-ccccc"}));
  EXPECT_TRUE(e.Satisfied("ns/rs", "u1", {"rs-ccccc"}));
}

TEST(Expectations, ExpireAfterTheTtlAndResetForANewUid) {
  kube::FakeClock clock;
  Expectations e(clock, 5min);
  e.ExpectCreation("ns/rs", "u1", "rs-aaaaa");
  EXPECT_EQ(e.UntilExpiry("ns/rs"), 5min);
  clock.Advance(4min);
  EXPECT_FALSE(e.Satisfied("ns/rs", "u1", {}));
  EXPECT_EQ(e.UntilExpiry("ns/rs"), 1min);
  clock.Advance(1min);
  EXPECT_TRUE(e.Satisfied("ns/rs", "u1", {}));
  e.ExpectCreation("ns/rs", "u1", "rs-aaaaa");
  EXPECT_TRUE(e.Satisfied("ns/rs", "u2", {}));  // the ReplicaSet was re-created
}

TEST(PodOrder, DeletesUnboundPendingAndNotReadyPodsFirstThenNewerOnes) {
  auto pod = [](std::string name, std::string node, std::string phase, bool ready, std::string created) {
    json::object o{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", json::object{{"name", name}, {"creationTimestamp", created}}},
                   {"spec", json::object{{"nodeName", node}}},
                   {"status", json::object{{"phase", phase},
                                           {"conditions", json::array{json::object{
                                                              {"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
    return Decode<kube::api::core::v1::Pod>(kube::SerializeJson(o));
  };
  std::vector<kube::api::core::v1::Pod> pods = {
      pod("ready-old", "n", "Running", true, "2026-01-01T00:00:00Z"),
      pod("ready-new", "n", "Running", true, "2026-01-01T00:00:05Z"),
      pod("not-ready", "n", "Running", false, "2026-01-01T00:00:00Z"),
      pod("pending", "n", "Pending", false, "2026-01-01T00:00:00Z"),
      pod("unbound", "", "Pending", false, "2026-01-01T00:00:00Z"),
  };
  std::sort(pods.begin(), pods.end(), [](const auto& a, const auto& b) { return DeletesBefore(a, b); });
  std::vector<std::string> names;
  for (const auto& p : pods) names.emplace_back(p.metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"unbound", "pending", "not-ready", "ready-new", "ready-old"}));
}

// ---------------------------------------------------------------------------------------------
// The control plane against the in-process API server

bool Eventually(const std::function<bool()>& cond, std::chrono::seconds limit = 20s) {
  return kube::test_support::Eventually(cond, limit);
}

std::string DeploymentJson(std::string_view name, int replicas, std::string_view image, std::string_view strategy) {
  return std::string(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")") + std::string(name) +
         R"(","namespace":"default"},"spec":{"replicas":)" + std::to_string(replicas) +
         R"(,"selector":{"matchLabels":{"app":")" + std::string(name) + R"("}},"strategy":)" + std::string(strategy) +
         R"(,"template":{"metadata":{"labels":{"app":")" + std::string(name) +
         R"("}},"spec":{"containers":[{"name":"app","image":")" + std::string(image) + R"("}]}}}})";
}

class DeploymentControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::apiserver::ApiServerOptions o;
    o.storage = kube::apiserver::ApiServerOptions::StorageKind::kMemory;
    o.tls = false;
    o.authenticate = false;
    auto server = kube::apiserver::ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    auto rest = kube::client::RestClient::Create(
        {.host = "http://127.0.0.1:" + std::to_string(server_->port()), .qps = -1});
    ASSERT_TRUE(rest.ok()) << rest.error().message;
    rest_ = *rest;
  }
  void TearDown() override {
    if (run_.valid()) {
      stop_.request_stop();
      EXPECT_TRUE(run_.get().ok());
    }
    cp_.reset();
    mgr_.reset();
    if (server_) server_->Stop();
  }

  // Starts the manager with the control plane, as main.cpp does (kubelet delay 20 ms).
  void StartControlPlane(ControlPlaneOptions options = {.kubelet_options = {.ready_delay = 20ms}}) {
    auto mgr = kube::controller::Manager::Create({.rest = rest_});
    ASSERT_TRUE(mgr.ok()) << mgr.error().message;
    mgr_ = std::move(mgr).value();
    auto cp = ControlPlane::Setup(*mgr_, std::move(options));
    ASSERT_TRUE(cp.ok()) << cp.error().message;
    cp_ = std::move(cp).value();
    run_ = std::async(std::launch::async, [this] { return mgr_->Start(stop_.get_token()); });
  }

  kube::client::Api Api(const kube::GroupVersionResource& gvr) const { return kube::client::Api(rest_, gvr, "default"); }

  kube::ObjectPtr Create(const kube::GroupVersionResource& gvr, const std::string& text) {
    auto obj = kube::Object::Parse(text);
    EXPECT_TRUE(obj.ok()) << obj.error().message;
    auto created = Api(gvr).Create(**obj);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok() ? *created : nullptr;
  }
  kube::ObjectPtr Get(const kube::GroupVersionResource& gvr, std::string_view name) {
    auto got = Api(gvr).Get(name);
    return got.ok() ? *got : nullptr;
  }
  std::vector<kube::ObjectPtr> List(const kube::GroupVersionResource& gvr, std::string selector = {}) {
    auto list = Api(gvr).List({.label_selector = std::move(selector)});
    EXPECT_TRUE(list.ok()) << list.error().message;
    return list.ok() ? list->items : std::vector<kube::ObjectPtr>{};
  }
  void Patch(const kube::GroupVersionResource& gvr, std::string_view name, std::string_view patch,
             kube::PatchType type = kube::PatchType::kMerge) {
    auto r = Api(gvr).Patch(name, type, patch);
    ASSERT_TRUE(r.ok()) << r.error().message;
  }

  // True when the Deployment reports a finished rollout of `replicas` available pods.
  bool RolledOut(std::string_view name, int replicas) {
    auto d = Get(kDeployments, name);
    if (d == nullptr) return false;
    return d->GetInt("/status/observedGeneration") == d->Generation() &&
           Int32At(*d, "/status/replicas") == replicas && Int32At(*d, "/status/updatedReplicas") == replicas &&
           Int32At(*d, "/status/readyReplicas") == replicas && Int32At(*d, "/status/availableReplicas") == replicas &&
           ConditionReason(*d, "Progressing") == "NewReplicaSetAvailable";
  }
  static std::string ConditionReason(const kube::Object& obj, std::string_view type, std::string* status = nullptr) {
    const auto conds = ValueAt(obj, "/status/conditions");
    if (!conds.is_array()) return {};
    for (const auto& c : conds.get_array()) {
      if (c.at("type").as_string() != type) continue;
      if (status != nullptr) *status = std::string(c.at("status").as_string());
      const auto* reason = c.as_object().if_contains("reason");
      return reason != nullptr && reason->is_string() ? std::string(reason->as_string()) : std::string("-");
    }
    return {};
  }
  // Ready pods of the Deployment's selector, by ReplicaSet hash.
  int ReadyPods(std::string_view app) {
    int n = 0;
    for (const auto& p : List(kPods, "app=" + std::string(app))) n += PodReady(*p) ? 1 : 0;
    return n;
  }
  std::vector<std::string> EventMessages(std::string_view reason) {
    cp_->FlushEvents();
    std::vector<std::string> out;
    for (const auto& e : List({"", "v1", "events"})) {
      if (e->GetString("/reason") == std::string(reason)) out.push_back(e->GetString("/message").value_or(""));
    }
    return out;
  }

  // Declared first, destroyed last: the controllers of a test may run on it until TearDown.
  kube::FakeClock clock_;
  std::unique_ptr<kube::apiserver::ApiServer> server_;
  std::shared_ptr<kube::client::RestClient> rest_;
  std::unique_ptr<kube::controller::Manager> mgr_;
  std::unique_ptr<ControlPlane> cp_;
  std::stop_source stop_;
  std::future<kube::Result<void>> run_;
};

constexpr std::string_view kRolling = R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":1}})";

TEST_F(DeploymentControllerTest, ThreeReplicasBecomeReadyPodsWithFullStatusAndConditions) {
  StartControlPlane();
  auto d = Create(kDeployments, DeploymentJson("web", 3, "nginx:1.27", kRolling));
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 3); }));

  d = Get(kDeployments, "web");
  EXPECT_FALSE(d->Get("/status/unavailableReplicas").has_value());  // zero, omitted as kube does
  std::string status;
  EXPECT_EQ(ConditionReason(*d, "Available", &status), "MinimumReplicasAvailable");
  EXPECT_EQ(status, "True");
  EXPECT_EQ(ConditionReason(*d, "Progressing", &status), "NewReplicaSetAvailable");
  EXPECT_EQ(status, "True");
  EXPECT_EQ(d->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("1"));

  // One ReplicaSet, named and labelled by the hash of the (server-defaulted) template.
  const std::string hash = ComputePodTemplateHash(TemplateOf(*d), std::nullopt);
  auto rss = List(kReplicaSets);
  ASSERT_EQ(rss.size(), 1U);
  const auto& rs = rss[0];
  EXPECT_EQ(rs->Name(), "web-" + hash);
  EXPECT_EQ(rs->Labels().Get(kPodTemplateHashLabel), std::optional<std::string_view>(hash));
  EXPECT_EQ(rs->GetString("/spec/selector/matchLabels/pod-template-hash"), hash);
  EXPECT_EQ(rs->GetString("/spec/template/metadata/labels/pod-template-hash"), hash);
  EXPECT_EQ(rs->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("1"));
  auto ref = rs->ControllerRef();
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->kind, "Deployment");
  EXPECT_EQ(ref->uid, d->Uid());
  EXPECT_EQ(ref->block_owner_deletion, std::optional<bool>(true));
  EXPECT_EQ(Int32At(*rs, "/status/replicas"), 3);
  EXPECT_EQ(Int32At(*rs, "/status/readyReplicas"), 3);
  EXPECT_EQ(Int32At(*rs, "/status/availableReplicas"), 3);
  EXPECT_EQ(Int32At(*rs, "/status/fullyLabeledReplicas"), 3);
  EXPECT_EQ(rs->GetInt("/status/observedGeneration"), rs->Generation());

  // Three running pods: generateName'd, owned by the ReplicaSet, bound and started by the kubelet.
  auto pods = List(kPods);
  ASSERT_EQ(pods.size(), 3U);
  for (const auto& p : pods) {
    const std::string name(p->Name());
    EXPECT_EQ(name.rfind(std::string(rs->Name()) + "-", 0), 0U) << name;
    EXPECT_EQ(name.size(), rs->Name().size() + 1 + 5) << name;
    EXPECT_EQ(p->Labels().Get(kPodTemplateHashLabel), std::optional<std::string_view>(hash));
    EXPECT_EQ(p->ControllerRef().value_or(kube::OwnerReference{}).uid, rs->Uid());
    EXPECT_EQ(p->GetString("/spec/nodeName"), "kubecpp-node-1");
    EXPECT_EQ(p->GetString("/status/phase"), "Running");
    EXPECT_FALSE(p->GetString("/status/podIP").value_or("").empty());
    EXPECT_TRUE(p->GetString("/status/startTime").has_value());
    for (const char* type : {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
      std::string s;
      ConditionReason(*p, type, &s);
      EXPECT_EQ(s, "True") << type;
    }
    EXPECT_EQ(p->GetBool("/status/containerStatuses/0/ready"), true);
    EXPECT_EQ(p->GetString("/status/containerStatuses/0/image"), "nginx:1.27");
  }
  EXPECT_TRUE(kube::client::Api(rest_, kNodes).Get("kubecpp-node-1").ok());
  EXPECT_EQ(EventMessages("ScalingReplicaSet"),
            (std::vector<std::string>{"Scaled up replica set web-" + hash + " from 0 to 3"}));
  EXPECT_EQ(EventMessages("SuccessfulCreate").size(), 3U);
}

TEST_F(DeploymentControllerTest, ScalesToFiveAndToOne) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("web", 3, "nginx:1.27", kRolling)), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 3); }));
  Patch(kDeployments, "web", R"({"spec":{"replicas":5}})");
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 5) && List(kPods).size() == 5; }));
  EXPECT_EQ(ReadyPods("web"), 5);
  // Through the /scale subresource, as `kubectl scale` does.
  auto scaled = Api(kDeployments).Patch("web", kube::PatchType::kMerge, R"({"spec":{"replicas":1}})", {}, "scale");
  ASSERT_TRUE(scaled.ok()) << scaled.error().message;
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 1) && List(kPods).size() == 1; }));
  auto rss = List(kReplicaSets);
  ASSERT_EQ(rss.size(), 1U);
  EXPECT_EQ(Int32At(*rss[0], "/spec/replicas"), 1);
  const std::string rs(rss[0]->Name());
  auto scaling = EventMessages("ScalingReplicaSet");
  EXPECT_NE(std::find(scaling.begin(), scaling.end(), "Scaled up replica set " + rs + " from 3 to 5"), scaling.end());
  EXPECT_NE(std::find(scaling.begin(), scaling.end(), "Scaled down replica set " + rs + " from 5 to 1"), scaling.end());
}

// Records, after every pod event of a watch, how many pods exist and how many are ready.
class PodCounter {
 public:
  // Starts from the pods of `start` and watches from its resourceVersion.
  PodCounter(kube::client::Api api, const kube::ObjectList& start) {
    for (const auto& p : start.items) {
      pods_[std::string(p->Name())] = {std::string(p->Labels().Get(kPodTemplateHashLabel).value_or("")),
                                       PodReady(*p)};
    }
    auto watch = api.Watch({.resource_version = start.resource_version});
    EXPECT_TRUE(watch.ok()) << watch.error().message;
    if (!watch.ok()) return;
    watch_ = std::move(watch).value();
    thread_ = std::jthread([this] { Run(); });
  }
  ~PodCounter() { Stop(); }
  void Stop() {
    if (watch_) watch_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  struct Snapshot {
    std::size_t events = 0;
    int max_pods = 0;
    int min_ready = 1 << 30;
    bool mixed = false;  // pods of two ReplicaSets existed at once
    std::map<std::string, std::string> pods;  // name -> hash label (+ "/ready")
  };
  Snapshot Get() {
    std::lock_guard lock(mu_);
    return s_;
  }

 private:
  void Run() {
    while (true) {
      auto ev = watch_->Next();
      if (!ev.ok() || !ev->has_value()) return;
      const auto& e = **ev;
      if (e.type == kube::WatchEventType::kBookmark) continue;
      Apply(*e.object, e.type == kube::WatchEventType::kDeleted);
    }
  }
  void Apply(const kube::Object& pod, bool deleted) {
    const std::string name(pod.Name());
    if (deleted || pod.IsBeingDeleted()) {
      pods_.erase(name);
    } else {
      pods_[name] = {std::string(pod.Labels().Get(kPodTemplateHashLabel).value_or("")), PodReady(pod)};
    }
    {
      const auto& pods = pods_;
      std::lock_guard lock(mu_);
      s_.events++;
      int ready = 0;
      std::set<std::string> hashes;
      s_.pods.clear();
      for (const auto& [n, v] : pods) {
        ready += v.second ? 1 : 0;
        hashes.insert(v.first);
        s_.pods[n] = v.first + (v.second ? "/ready" : "");
      }
      s_.max_pods = std::max(s_.max_pods, static_cast<int>(pods.size()));
      s_.min_ready = std::min(s_.min_ready, ready);
      s_.mixed = s_.mixed || hashes.size() > 1;
    }
  }
  std::map<std::string, std::pair<std::string, bool>> pods_;  // the watch thread's (or the constructor's)
  std::unique_ptr<kube::client::WatchStream> watch_;
  std::mutex mu_;
  Snapshot s_;
  std::jthread thread_;
};

TEST_F(DeploymentControllerTest, ImageChangeRollsOutWithinMaxSurgeAndMaxUnavailable) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("web", 4, "nginx:1.27", kRolling)), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 4) && ReadyPods("web") == 4; }));
  const std::string old_rs(List(kReplicaSets)[0]->Name());
  auto start = Api(kPods).List();
  ASSERT_TRUE(start.ok());
  PodCounter counter(Api(kPods), *start);

  // What `kubectl set image deployment/web app=nginx:1.28` sends: a strategic merge patch.
  Patch(kDeployments, "web", R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}})",
        kube::PatchType::kStrategicMerge);
  auto d = Get(kDeployments, "web");
  const std::string new_hash = ComputePodTemplateHash(TemplateOf(*d), std::nullopt);
  const std::string new_rs = "web-" + new_hash;
  ASSERT_NE(new_rs, old_rs);
  ASSERT_TRUE(Eventually([&] {
    auto s = counter.Get();
    if (s.pods.size() != 4) return false;
    for (const auto& [name, v] : s.pods) {
      if (v != new_hash + "/ready") return false;
    }
    return RolledOut("web", 4);
  }));
  counter.Stop();
  const auto s = counter.Get();
  EXPECT_LE(s.max_pods, 4 + 1) << "more than replicas + maxSurge pods existed";
  EXPECT_GE(s.min_ready, 4 - 1) << "fewer than replicas - maxUnavailable pods were ready";
  EXPECT_TRUE(s.mixed) << "old and new pods never coexisted: not a rolling update";

  auto old_obj = Get(kReplicaSets, old_rs);
  ASSERT_NE(old_obj, nullptr);  // kept for rollback (revisionHistoryLimit)
  EXPECT_EQ(Int32At(*old_obj, "/spec/replicas"), 0);
  EXPECT_EQ(Int32At(*old_obj, "/status/replicas"), 0);
  auto new_obj = Get(kReplicaSets, new_rs);
  ASSERT_NE(new_obj, nullptr);
  EXPECT_EQ(new_obj->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("2"));
  EXPECT_EQ(Get(kDeployments, "web")->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("2"));
  for (const auto& p : List(kPods)) EXPECT_EQ(p->GetString("/status/containerStatuses/0/image"), "nginx:1.28");
  auto scaling = EventMessages("ScalingReplicaSet");
  EXPECT_NE(std::find(scaling.begin(), scaling.end(), "Scaled up replica set " + new_rs + " from 0 to 1"), scaling.end());
  const std::string down_prefix = "Scaled down replica set " + old_rs + " from ";
  EXPECT_NE(std::find_if(scaling.begin(), scaling.end(),
                         [&](const std::string& m) { return m.starts_with(down_prefix) && m.ends_with(" to 0"); }),
            scaling.end())
      << ::testing::PrintToString(scaling);
}

TEST_F(DeploymentControllerTest, RollingBackToAnOldTemplateReusesItsReplicaSetWithTheNextRevision) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("web", 2, "nginx:1.27", kRolling)), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 2); }));
  const std::string first(List(kReplicaSets)[0]->Name());
  const char* kImage = R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"%s"}]}}}})";
  auto set_image = [&](const std::string& image) {
    std::string patch = kImage;
    patch.replace(patch.find("%s"), 2, image);
    Patch(kDeployments, "web", patch, kube::PatchType::kStrategicMerge);
  };
  set_image("nginx:1.28");
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 2) && List(kReplicaSets).size() == 2; }));
  set_image("nginx:1.27");
  ASSERT_TRUE(Eventually([&] {
    auto rs = Get(kReplicaSets, first);
    return RolledOut("web", 2) && rs != nullptr && Int32At(*rs, "/status/availableReplicas") == 2;
  }));
  EXPECT_EQ(List(kReplicaSets).size(), 2U);  // no third ReplicaSet: the first one is reused
  EXPECT_EQ(Get(kReplicaSets, first)->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("3"));
  EXPECT_EQ(Get(kDeployments, "web")->Annotations().Get(kRevisionAnnotation), std::optional<std::string_view>("3"));
}

TEST_F(DeploymentControllerTest, RecreateStopsEveryOldPodBeforeStartingNewOnes) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("db", 2, "postgres:16", R"({"type":"Recreate"})")), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("db", 2); }));
  auto start = Api(kPods).List();
  ASSERT_TRUE(start.ok());
  PodCounter counter(Api(kPods), *start);
  Patch(kDeployments, "db", R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"postgres:17"}]}}}})",
        kube::PatchType::kStrategicMerge);
  ASSERT_TRUE(Eventually([&] { return RolledOut("db", 2) && counter.Get().pods.size() == 2 && ReadyPods("db") == 2; }));
  for (const auto& p : List(kPods)) EXPECT_EQ(p->GetString("/status/containerStatuses/0/image"), "postgres:17");
  counter.Stop();
  EXPECT_FALSE(counter.Get().mixed) << "old and new pods coexisted under Recreate";
  EXPECT_LE(counter.Get().max_pods, 2);
}

TEST_F(DeploymentControllerTest, DeletingTheDeploymentRemovesReplicaSetsAndPodsThroughGarbageCollection) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("web", 3, "nginx:1.27", kRolling)), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 3); }));
  ASSERT_EQ(List(kPods).size(), 3U);
  auto deleted = Api(kDeployments).Delete("web");
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  ASSERT_TRUE(Eventually([&] { return List(kReplicaSets).empty() && List(kPods).empty(); }));
  EXPECT_EQ(Get(kDeployments, "web"), nullptr);
}

TEST_F(DeploymentControllerTest, AStaleCacheNeverCreatesSurplusPods) {
  // The ReplicaSet reconciler driven by hand with a pod view frozen before its first write: a
  // cache that has not seen any of the pods it created. Writes go to the real API server.
  auto mgr = kube::controller::Manager::Create({.rest = rest_});
  ASSERT_TRUE(mgr.ok()) << mgr.error().message;
  kube::controller::Client& client = (*mgr)->GetClient();
  std::atomic<bool> frozen{true};
  std::vector<std::shared_ptr<const kube::api::core::v1::Pod>> frozen_view;  // no pods
  ReplicaSetReconcilerOptions options{
      .list_pods = [&](const std::string& ns, const kube::LabelSelector& selector, std::stop_token stop)
          -> kube::Result<std::vector<std::shared_ptr<const kube::api::core::v1::Pod>>> {
        if (frozen) return frozen_view;
        return client.List<kube::api::core::v1::Pod>({.ns = ns, .selector = selector}, stop);
      }};
  kube::controller::FakeEventRecorder events;
  kube::FakeClock clock;
  Expectations expectations(clock);
  ReplicaSetReconciler reconciler(client, events, expectations, options);
  ASSERT_NE(Create(kReplicaSets, R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"burst","namespace":"default"},
      "spec":{"replicas":10,"selector":{"matchLabels":{"app":"burst"}},
      "template":{"metadata":{"labels":{"app":"burst"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})"),
            nullptr);
  kube::controller::ReconcileContext ctx;
  const kube::controller::Request req{{"default", "burst"}};
  ASSERT_TRUE(Eventually([&] { return client.Get(kReplicaSets, req.key).ok(); }));  // starts the informers
  for (int i = 0; i < 3; ++i) {
    auto r = reconciler.Reconcile(ctx, req);
    // A later call's status write may meet a newer ReplicaSet (409): the controller would retry.
    ASSERT_TRUE(r.ok() || kube::IsConflict(r.error())) << r.error().message;
    if (r.ok()) {
      EXPECT_FALSE(r->IsDone()) << "pending expectations should ask for a requeue at their expiry";
    }
  }
  EXPECT_EQ(List(kPods).size(), 10U) << "a stale cache made the controller create pods twice";
  EXPECT_EQ(expectations.Pending("default/burst"), 10U);
  // The cache catches up: the expectations are met and a reconcile changes nothing.
  frozen = false;
  ASSERT_TRUE(Eventually([&] {
    auto r = reconciler.Reconcile(ctx, req);
    return r.ok() && r->IsDone();
  }));
  EXPECT_EQ(expectations.Pending("default/burst"), 0U);
  EXPECT_EQ(List(kPods).size(), 10U);
  EXPECT_EQ(events.Events().size(), 10U);
  // Expired expectations (a missed event) no longer hold the ReplicaSet back.
  frozen = true;
  expectations.ExpectCreation("default/burst", std::string(Get(kReplicaSets, "burst")->Uid()), "burst-never");
  clock.Advance(5min);
  auto r = reconciler.Reconcile(ctx, req);  // sees no pods (frozen view) and no longer waits
  ASSERT_TRUE(r.ok() || kube::IsConflict(r.error()));
  EXPECT_EQ(List(kPods).size(), 20U);
}

TEST_F(DeploymentControllerTest, ConcurrentWorkersAndEventStormsNeverOvershootReplicas) {
  StartControlPlane({.workers = 4, .kubelet_options = {.ready_delay = 1ms}});
  ASSERT_NE(Create(kDeployments, DeploymentJson("storm", 8, "nginx:1.27", kRolling)), nullptr);
  auto start = Api(kPods).List();
  ASSERT_TRUE(start.ok());
  PodCounter counter(Api(kPods), *start);
  // Label churn on the ReplicaSet and the Deployment: each one is another reconcile.
  for (int i = 0; i < 40; ++i) {
    for (const auto& rs : List(kReplicaSets)) {
      (void)Api(kReplicaSets).Patch(rs->Name(), kube::PatchType::kMerge,
                                    R"({"metadata":{"labels":{"churn":")" + std::to_string(i) + R"("}}})");
    }
    Patch(kDeployments, "storm", R"({"metadata":{"annotations":{"churn":")" + std::to_string(i) + R"("}}})");
  }
  ASSERT_TRUE(Eventually([&] { return RolledOut("storm", 8) && counter.Get().pods.size() == 8; }));
  counter.Stop();
  EXPECT_LE(counter.Get().max_pods, 8);
  EXPECT_EQ(List(kPods).size(), 8U);
}

TEST_F(DeploymentControllerTest, KubeletStartsAPodOnlyAfterTheReadyDelayOnItsClock) {
  kube::FakeClock& clock = clock_;
  StartControlPlane({.kubelet_options = {.ready_delay = 10s, .clock = &clock}});
  ASSERT_NE(Create(kPods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo","namespace":"default"},
      "spec":{"containers":[{"name":"c","image":"busybox"}]}})"),
            nullptr);
  ASSERT_TRUE(Eventually([&] {
    auto p = Get(kPods, "solo");
    return p != nullptr && p->GetString("/spec/nodeName") == "kubecpp-node-1" &&
           cp_->Kubelet()->Stats().requeue_afters >= 2;  // after binding, and after seeing it bound
  }));
  EXPECT_EQ(Get(kPods, "solo")->GetString("/status/phase"), "Pending");
  EXPECT_FALSE(PodReady(*Get(kPods, "solo")));
  clock.Advance(10s);
  ASSERT_TRUE(Eventually([&] {
    auto p = Get(kPods, "solo");
    return p != nullptr && p->GetString("/status/phase") == "Running" && PodReady(*p);
  }));
}

// Polls `cond`, moving `clock` forward by `step` before every check: time passes on the
// controllers' FakeClock only as the test says (a RequeueAfter fires when the clock reaches it).
bool EventuallyAdvancing(kube::FakeClock& clock, kube::Clock::Duration step, const std::function<bool()>& cond) {
  return Eventually([&] {
    clock.Advance(step);
    return cond();
  });
}

std::string WithSpec(std::string deployment_json, std::string_view extra_spec_members) {
  const std::string key = R"("spec":{)";
  deployment_json.insert(deployment_json.find(key) + key.size(), std::string(extra_spec_members) + ",");
  return deployment_json;
}

TEST_F(DeploymentControllerTest, RevisionHistoryLimitDeletesTheOldestScaledDownReplicaSets) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, WithSpec(DeploymentJson("web", 1, "nginx:1", kRolling), R"("revisionHistoryLimit":1)")),
            nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 1); }));
  std::map<std::string, std::string> rs_of_image;  // image -> ReplicaSet name
  rs_of_image["nginx:1"] = std::string(List(kReplicaSets)[0]->Name());
  for (const std::string image : {"nginx:2", "nginx:3", "nginx:4"}) {
    Patch(kDeployments, "web",
          R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":")" + image + R"("}]}}}})",
          kube::PatchType::kStrategicMerge);
    const std::string name =
        "web-" + ComputePodTemplateHash(TemplateOf(*Get(kDeployments, "web")), std::nullopt);
    rs_of_image[image] = name;
    ASSERT_TRUE(Eventually([&] {
      return RolledOut("web", 1) && Get(kReplicaSets, name) != nullptr && List(kReplicaSets).size() == 2;
    })) << image;
  }
  // The current ReplicaSet and one old one (the newest old revision) remain.
  std::set<std::string> names;
  for (const auto& rs : List(kReplicaSets)) names.insert(std::string(rs->Name()));
  EXPECT_EQ(names, (std::set<std::string>{rs_of_image["nginx:3"], rs_of_image["nginx:4"]}));
  EXPECT_EQ(Get(kReplicaSets, rs_of_image["nginx:3"])->Annotations().Get(kRevisionAnnotation),
            std::optional<std::string_view>("3"));
}

TEST_F(DeploymentControllerTest, MinReadySecondsHoldsAvailabilityAndTheRolloutUntilPodsStayedReady) {
  kube::FakeClock& clock = clock_;
  StartControlPlane({.kubelet_options = {.ready_delay = 0s, .clock = &clock}, .clock = &clock});
  constexpr std::string_view kNoUnavailable =
      R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}})";
  ASSERT_NE(Create(kDeployments, WithSpec(DeploymentJson("web", 2, "nginx:1", kNoUnavailable), R"("minReadySeconds":30)")),
            nullptr);
  // Ready, but not yet for 30 s: not available.
  ASSERT_TRUE(EventuallyAdvancing(clock, 1ms, [&] {
    auto d = Get(kDeployments, "web");
    return d != nullptr && Int32At(*d, "/status/readyReplicas") == 2;
  }));
  auto d = Get(kDeployments, "web");
  EXPECT_EQ(Int32At(*d, "/status/availableReplicas"), 0);
  EXPECT_EQ(Int32At(*d, "/status/unavailableReplicas"), 2);
  std::string status;
  EXPECT_EQ(ConditionReason(*d, "Available", &status), "MinimumReplicasUnavailable");
  EXPECT_EQ(status, "False");
  const std::string first(List(kReplicaSets)[0]->Name());
  EXPECT_EQ(Get(kReplicaSets, first)->GetInt("/spec/minReadySeconds"), 30);
  // 30 s later the ReplicaSet's requeue counts them.
  clock.Advance(30s);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 2); }));
  EXPECT_EQ(ConditionReason(*Get(kDeployments, "web"), "Available", &status), "MinimumReplicasAvailable");

  // A rolling update with maxUnavailable 0: the old ReplicaSet shrinks only once a new pod is
  // available, i.e. 30 s after it became ready.
  Patch(kDeployments, "web", R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})",
        kube::PatchType::kStrategicMerge);
  const std::string next =
      "web-" + ComputePodTemplateHash(TemplateOf(*Get(kDeployments, "web")), std::nullopt);
  ASSERT_TRUE(EventuallyAdvancing(clock, 1ms, [&] {
    auto rs = Get(kReplicaSets, next);
    return rs != nullptr && Int32At(*rs, "/status/readyReplicas") == 1;
  }));
  EXPECT_EQ(Int32At(*Get(kReplicaSets, next), "/status/availableReplicas"), 0);
  EXPECT_EQ(Int32At(*Get(kReplicaSets, first), "/spec/replicas"), 2) << "scaled down for a pod not yet available";
  ASSERT_TRUE(EventuallyAdvancing(clock, 1s, [&] { return RolledOut("web", 2); }));
  EXPECT_EQ(Int32At(*Get(kReplicaSets, first), "/spec/replicas"), 0);
}

TEST_F(DeploymentControllerTest, APausedDeploymentScalesButDoesNotRollOutUntilResumed) {
  StartControlPlane();
  ASSERT_NE(Create(kDeployments, DeploymentJson("web", 2, "nginx:1", kRolling)), nullptr);
  ASSERT_TRUE(Eventually([&] { return RolledOut("web", 2); }));
  const std::string first(List(kReplicaSets)[0]->Name());
  Patch(kDeployments, "web", R"({"spec":{"paused":true}})");
  ASSERT_TRUE(Eventually([&] {
    auto d = Get(kDeployments, "web");
    std::string status;
    return ConditionReason(*d, "Progressing", &status) == "DeploymentPaused" && status == "Unknown" &&
           d->GetInt("/status/observedGeneration") == d->Generation();
  }));
  // `kubectl rollout pause`, then set image and scale: only the scale applies.
  Patch(kDeployments, "web", R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})",
        kube::PatchType::kStrategicMerge);
  Patch(kDeployments, "web", R"({"spec":{"replicas":3}})");
  ASSERT_TRUE(Eventually([&] {
    auto d = Get(kDeployments, "web");
    return d->GetInt("/status/observedGeneration") == d->Generation() &&
           Int32At(*d, "/status/availableReplicas") == 3;
  }));
  EXPECT_EQ(List(kReplicaSets).size(), 1U) << "a paused Deployment started a rollout";
  for (const auto& p : List(kPods)) EXPECT_EQ(p->GetString("/spec/containers/0/image"), "nginx:1");
  std::string status;
  EXPECT_EQ(ConditionReason(*Get(kDeployments, "web"), "Progressing", &status), "DeploymentPaused");
  // `kubectl rollout resume`: the rollout proceeds.
  Patch(kDeployments, "web", R"({"spec":{"paused":false}})");
  ASSERT_TRUE(Eventually([&] {
    if (!RolledOut("web", 3) || List(kReplicaSets).size() != 2) return false;
    for (const auto& p : List(kPods)) {
      if (p->GetString("/status/containerStatuses/0/image") != "nginx:2") return false;
    }
    return List(kPods).size() == 3;
  }));
  EXPECT_EQ(Int32At(*Get(kReplicaSets, first), "/spec/replicas"), 0);
}

TEST_F(DeploymentControllerTest, NoProgressWithinTheDeadlineSetsProgressDeadlineExceeded) {
  kube::FakeClock& clock = clock_;
  // No kubelet: pods never become ready, so the rollout stalls.
  StartControlPlane({.kubelet = false, .clock = &clock});
  ASSERT_NE(Create(kDeployments, WithSpec(DeploymentJson("web", 2, "nginx:1", kRolling), R"("progressDeadlineSeconds":10)")),
            nullptr);
  ASSERT_TRUE(EventuallyAdvancing(clock, 1ms, [&] {
    auto d = Get(kDeployments, "web");
    return d != nullptr && Int32At(*d, "/status/replicas") == 2;
  }));
  std::string status;
  const std::string reason = ConditionReason(*Get(kDeployments, "web"), "Progressing", &status);
  EXPECT_NE(reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(status, "True");
  const std::string rs_name(List(kReplicaSets)[0]->Name());
  std::optional<kube::Clock::WallTime> last_progress;
  const auto stalled = ValueAt(*Get(kDeployments, "web"), "/status/conditions");
  for (const auto& c : stalled.as_array()) {
    if (c.at("type").as_string() == "Progressing") {
      auto t = kube::ParseTime(c.at("lastUpdateTime").as_string());
      if (t.ok()) last_progress = *t;
    }
  }
  ASSERT_TRUE(last_progress.has_value());
  ASSERT_TRUE(EventuallyAdvancing(clock, 1s, [&] {
    return ConditionReason(*Get(kDeployments, "web"), "Progressing", &status) == "ProgressDeadlineExceeded";
  }));
  EXPECT_EQ(status, "False");
  const auto conds = ValueAt(*Get(kDeployments, "web"), "/status/conditions");
  for (const auto& c : conds.as_array()) {
    if (c.at("type").as_string() != "Progressing") continue;
    EXPECT_EQ(c.at("message").as_string(), "ReplicaSet \"" + rs_name + "\" has timed out progressing.");
    auto transition = kube::ParseTime(c.at("lastTransitionTime").as_string());
    ASSERT_TRUE(transition.ok());
    EXPECT_GE(*transition, *last_progress + 10s) << "timed out before progressDeadlineSeconds without progress";
  }
}

}  // namespace
}  // namespace deployctl
