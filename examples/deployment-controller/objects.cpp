#include "objects.hpp"

#include <tuple>

#include <kube/base/error.hpp>
#include <kube/core/time.hpp>

namespace deployctl {

std::int32_t Int32At(const kube::Object& obj, std::string_view pointer, std::int32_t fallback) {
  auto v = obj.GetInt(pointer);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return fallback;
  return static_cast<std::int32_t>(*v);
}

boost::json::value ValueAt(const kube::Object& obj, std::string_view pointer) {
  auto v = obj.Get(pointer);
  return v ? std::move(*v) : boost::json::value(nullptr);
}

bool IsPodReady(const kube::Object& pod) {
  const auto conditions = ValueAt(pod, "/status/conditions");
  if (!conditions.is_array()) return false;
  for (const auto& c : conditions.get_array()) {
    if (!c.is_object()) continue;
    const auto* type = c.get_object().if_contains("type");
    const auto* status = c.get_object().if_contains("status");
    if (type != nullptr && type->is_string() && type->get_string() == "Ready") {
      return status != nullptr && status->is_string() && status->get_string() == "True";
    }
  }
  return false;
}

std::optional<kube::Clock::WallTime> PodAvailableAt(const kube::Object& pod, std::int64_t min_ready_seconds) {
  if (!IsPodReady(pod)) return std::nullopt;
  if (min_ready_seconds <= 0) return kube::Clock::WallTime{};
  const auto conditions = ValueAt(pod, "/status/conditions");
  for (const auto& c : conditions.get_array()) {  // IsPodReady checked it is an array
    if (!c.is_object()) continue;
    const auto* type = c.get_object().if_contains("type");
    if (type == nullptr || !type->is_string() || type->get_string() != "Ready") continue;
    const auto* ltt = c.get_object().if_contains("lastTransitionTime");
    if (ltt == nullptr || !ltt->is_string()) return std::nullopt;
    auto t = kube::ParseTime(ltt->get_string());
    if (!t) return std::nullopt;
    return *t + std::chrono::seconds(min_ready_seconds);
  }
  return std::nullopt;
}

bool IsPodActive(const kube::Object& pod) {
  if (pod.IsBeingDeleted()) return false;
  const auto phase = pod.GetString("/status/phase").value_or("");
  return phase != "Succeeded" && phase != "Failed";
}

bool IsControlledBy(const kube::Object& obj, std::string_view owner_uid) {
  const auto ref = obj.ControllerRef();
  return ref.has_value() && ref->uid == owner_uid;
}

namespace {
int PhaseRank(const kube::Object& pod) {
  const auto phase = pod.GetString("/status/phase").value_or("");
  if (phase == "Pending" || phase.empty()) return 0;
  if (phase == "Unknown") return 1;
  return 2;  // Running
}
}  // namespace

bool DeletesBefore(const kube::Object& a, const kube::Object& b) {
  const bool a_bound = !a.GetString("/spec/nodeName").value_or("").empty();
  const bool b_bound = !b.GetString("/spec/nodeName").value_or("").empty();
  // RFC 3339 UTC timestamps of one format order as strings; newer first, hence b before a.
  return std::make_tuple(a_bound, PhaseRank(a), IsPodReady(a), b.CreationTimestamp(), a.Name()) <
         std::make_tuple(b_bound, PhaseRank(b), IsPodReady(b), a.CreationTimestamp(), b.Name());
}

kube::Result<kube::ObjectPtr> WriteStatus(kube::controller::Client& client, const kube::GroupVersionResource& gvr,
                                          const kube::Object& read, const boost::json::object& status) {
  auto write = [&](const kube::Object& base) -> kube::Result<kube::ObjectPtr> {
    kube::ObjectBuilder b(base);
    b.Json()["status"] = status;
    auto obj = b.Build();
    if (!obj) return obj.error();
    return client.UpdateStatus(**obj);
  };
  auto written = write(read);
  if (written || !kube::IsConflict(written.error())) return written;
  auto live = client.Api(gvr, std::string(read.Namespace())).Get(read.Name());
  if (!live) return live.error();
  if ((*live)->Uid() != read.Uid()) return written;
  return write(**live);
}

}  // namespace deployctl
