#include <map>
#include <optional>

#include <fmt/format.h>

#include <kube/apiserver/table.hpp>

#include "apiserver/discovery/internal/json_access.hpp"
#include "apiserver/discovery/internal/table_printers.hpp"

// A port of printPod (k8s.io/kubernetes pkg/printers/internalversion/printers.go, v1.32).
namespace kube::apiserver::internal {
namespace {

using namespace printer;  // NOLINT: the JSON accessors

bool IsRestartableInitContainer(const bj::object* c) {
  return c != nullptr && Str(c, "restartPolicy") == "Always";
}

bool HasCondition(const bj::array* conditions, std::string_view type) {
  bool found = false;
  ForEachObject(conditions, [&](const bj::object& c) {
    if (Str(&c, "type") == type && Str(&c, "status") == "True") found = true;
  });
  return found;
}

}  // namespace

void PrintPod(const boost::json::object& pod, Clock::WallTime now, CellWriter& cells,
              std::string& conditions) {
  const bj::object* spec = Obj(&pod, "spec");
  const bj::object* status = Obj(&pod, "status");
  const bj::array* pod_conditions = Arr(status, "conditions");

  int64_t restarts = 0;
  int64_t restartable_init_restarts = 0;
  int64_t total_containers = static_cast<int64_t>(ArrSize(spec, "containers"));
  int64_t ready_containers = 0;
  std::optional<Clock::WallTime> last_restart;
  std::optional<Clock::WallTime> last_restartable_init_restart;
  auto later = [](std::optional<Clock::WallTime>& current, const std::optional<Clock::WallTime>& t) {
    if (t && (!current || *current < *t)) current = t;
  };

  const std::string_view phase = Str(status, "phase");
  std::string reason(phase);
  if (!Str(status, "reason").empty()) reason = std::string(Str(status, "reason"));
  ForEachObject(pod_conditions, [&](const bj::object& c) {
    if (Str(&c, "type") == "PodScheduled" && Str(&c, "reason") == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  });

  if (phase == "Succeeded") {
    conditions = R"([{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}])";
  } else if (phase == "Failed") {
    conditions = R"([{"type":"Completed","status":"True","reason":"Failed","message":"The pod failed."}])";
  }

  std::map<std::string_view, const bj::object*> init_containers;
  ForEachObject(Arr(spec, "initContainers"), [&](const bj::object& c) {
    init_containers[Str(&c, "name")] = &c;
    if (IsRestartableInitContainer(&c)) ++total_containers;
  });
  auto restartable = [&](std::string_view name) {
    auto it = init_containers.find(name);
    return it != init_containers.end() && IsRestartableInitContainer(it->second);
  };
  const std::size_t init_count = ArrSize(spec, "initContainers");

  bool initializing = false;
  if (const bj::array* statuses = Arr(status, "initContainerStatuses")) {
    for (std::size_t i = 0; i < statuses->size(); ++i) {
      const bj::object* c = (*statuses)[i].if_object();
      if (c == nullptr) continue;
      const int64_t count = Int(c, "restartCount");
      restarts += count;
      const bj::object* last_terminated = Obj(Obj(c, "lastState"), "terminated");
      if (last_terminated != nullptr) later(last_restart, Time(last_terminated, "finishedAt"));
      const bool is_restartable = restartable(Str(c, "name"));
      if (is_restartable) {
        restartable_init_restarts += count;
        if (last_terminated != nullptr) {
          later(last_restartable_init_restart, Time(last_terminated, "finishedAt"));
        }
      }
      const bj::object* state = Obj(c, "state");
      const bj::object* terminated = Obj(state, "terminated");
      const bj::object* waiting = Obj(state, "waiting");
      if (terminated != nullptr && Int(terminated, "exitCode") == 0) continue;
      if (is_restartable && Bool(c, "started")) {
        if (Bool(c, "ready")) ++ready_containers;
        continue;
      }
      if (terminated != nullptr) {
        if (Str(terminated, "reason").empty()) {
          reason = Int(terminated, "signal") != 0
                       ? fmt::format("Init:Signal:{}", Int(terminated, "signal"))
                       : fmt::format("Init:ExitCode:{}", Int(terminated, "exitCode"));
        } else {
          reason = "Init:" + std::string(Str(terminated, "reason"));
        }
      } else if (waiting != nullptr && !Str(waiting, "reason").empty() &&
                 Str(waiting, "reason") != "PodInitializing") {
        reason = "Init:" + std::string(Str(waiting, "reason"));
      } else {
        reason = fmt::format("Init:{}/{}", i, init_count);
      }
      initializing = true;
      break;
    }
  }

  if (!initializing || HasCondition(pod_conditions, "Initialized")) {
    restarts = restartable_init_restarts;
    last_restart = last_restartable_init_restart;
    bool has_running = false;
    if (const bj::array* statuses = Arr(status, "containerStatuses")) {
      for (std::size_t i = statuses->size(); i-- > 0;) {
        const bj::object* c = (*statuses)[i].if_object();
        if (c == nullptr) continue;
        restarts += Int(c, "restartCount");
        if (const bj::object* t = Obj(Obj(c, "lastState"), "terminated")) {
          later(last_restart, Time(t, "finishedAt"));
        }
        const bj::object* state = Obj(c, "state");
        const bj::object* terminated = Obj(state, "terminated");
        const bj::object* waiting = Obj(state, "waiting");
        if (waiting != nullptr && !Str(waiting, "reason").empty()) {
          reason = std::string(Str(waiting, "reason"));
        } else if (terminated != nullptr && !Str(terminated, "reason").empty()) {
          reason = std::string(Str(terminated, "reason"));
        } else if (terminated != nullptr) {
          reason = Int(terminated, "signal") != 0
                       ? fmt::format("Signal:{}", Int(terminated, "signal"))
                       : fmt::format("ExitCode:{}", Int(terminated, "exitCode"));
        } else if (Bool(c, "ready") && Obj(state, "running") != nullptr) {
          has_running = true;
          ++ready_containers;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      reason = HasCondition(pod_conditions, "Ready") ? "Running" : "NotReady";
    }
  }

  const bool deleting = !Str(Meta(pod), "deletionTimestamp").empty();
  if (deleting && Str(status, "reason") == "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }

  std::string restarts_str = std::to_string(restarts);
  if (restarts != 0 && last_restart) {
    restarts_str = fmt::format("{} ({} ago)", restarts, HumanDuration(now - *last_restart));
  }

  cells.String(Name(pod));
  cells.String(fmt::format("{}/{}", ready_containers, total_containers));
  cells.String(reason);
  cells.String(restarts_str);
  cells.String(Age(pod, now));

  std::string pod_ip;
  if (const bj::array* ips = Arr(status, "podIPs"); ips != nullptr && !ips->empty()) {
    if (const auto* first = (*ips)[0].if_object()) pod_ip = std::string(Str(first, "ip"));
  }
  std::string node_name(Str(spec, "nodeName"));
  std::string nominated(Str(status, "nominatedNodeName"));
  if (pod_ip.empty()) pod_ip = "<none>";
  if (node_name.empty()) node_name = "<none>";
  if (nominated.empty()) nominated = "<none>";
  std::string readiness_gates = "<none>";
  if (const bj::array* gates = Arr(spec, "readinessGates"); gates != nullptr && !gates->empty()) {
    int64_t true_conditions = 0;
    ForEachObject(gates, [&](const bj::object& gate) {
      const std::string_view type = Str(&gate, "conditionType");
      bool done = false;
      ForEachObject(pod_conditions, [&](const bj::object& c) {
        if (done || Str(&c, "type") != type) return;
        done = true;
        if (Str(&c, "status") == "True") ++true_conditions;
      });
    });
    readiness_gates = fmt::format("{}/{}", true_conditions, gates->size());
  }
  cells.String(pod_ip);
  cells.String(node_name);
  cells.String(nominated);
  cells.String(readiness_gates);
}

}  // namespace kube::apiserver::internal
