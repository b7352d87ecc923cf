// kube's printers of HorizontalPodAutoscalers and CertificateSigningRequests
// (pkg/printers/internalversion/printers.go, v1.32). kube prints the internal type, so an
// autoscaling/v1 HorizontalPodAutoscaler is read back in its autoscaling/v2 form first.

#include <fmt/format.h>

#include <boost/json.hpp>
#include <kube/apiserver/table.hpp>
#include <string>
#include <vector>

#include "apiserver/discovery/internal/json_access.hpp"
#include "apiserver/rest/hpa.hpp"

namespace kube::apiserver::internal {
namespace {

using namespace printer;  // NOLINT: the JSON accessors

// A *resource.Quantity's String(): its text, "<nil>" when unset.
std::string Quantity(const bj::object* o, std::string_view key) {
  if (o == nullptr) return "<nil>";
  const bj::value* v = o->if_contains(key);
  if (v == nullptr || v->is_null()) return "<nil>";
  if (v->is_string()) return std::string(v->get_string());
  return bj::serialize(*v);
}

const bj::object* StatusAt(const bj::array* statuses, std::size_t i, std::string_view source) {
  if (statuses == nullptr || i >= statuses->size()) return nullptr;
  return Obj((*statuses)[i].if_object(), source);
}

bool Has(const bj::object* o, std::string_view key) {
  const bj::value* v = o != nullptr ? o->if_contains(key) : nullptr;
  return v != nullptr && !v->is_null();
}

// A Resource or ContainerResource metric: `<name>: <current>/<target>`.
std::string ResourceTarget(const bj::object* spec, const bj::object* status) {
  const bj::object* target = Obj(spec, "target");
  const std::string name(Str(spec, "name"));
  const bj::object* current = Obj(status, "current");
  if (Has(target, "averageValue")) {
    const std::string now = status != nullptr ? Quantity(current, "averageValue") : "<unknown>";
    return name + ": " + now + "/" + Quantity(target, "averageValue");
  }
  const auto utilization = OptInt(current, "averageUtilization");
  const std::string now = status != nullptr && utilization ? fmt::format("{}%", *utilization) : "<unknown>";
  const auto goal = OptInt(target, "averageUtilization");
  return name + ": " + now + "/" + (goal ? fmt::format("{}%", *goal) : std::string("<auto>"));
}

// formatHPAMetrics: the first two metrics, then how many more.
std::string FormatMetrics(const bj::array* specs, const bj::array* statuses) {
  if (specs == nullptr || specs->empty()) return "<none>";
  std::vector<std::string> list;
  for (std::size_t i = 0; i < specs->size(); ++i) {
    const bj::object* m = (*specs)[i].if_object();
    const std::string_view type = Str(m, "type");
    if (type == "External" || type == "Object") {
      const std::string source = type == "External" ? "external" : "object";
      const bj::object* target = Obj(Obj(m, source), "target");
      const bj::object* status = StatusAt(statuses, i, source);
      const bj::object* current = Obj(status, "current");
      if (Has(target, "averageValue")) {
        const std::string now =
            status != nullptr && Has(current, "averageValue") ? Quantity(current, "averageValue") : "<unknown>";
        list.push_back(now + "/" + Quantity(target, "averageValue") + " (avg)");
      } else {
        const std::string now = status != nullptr ? Quantity(current, "value") : "<unknown>";
        list.push_back(now + "/" + Quantity(target, "value"));
      }
    } else if (type == "Pods") {
      const bj::object* status = StatusAt(statuses, i, "pods");
      const std::string now = status != nullptr ? Quantity(Obj(status, "current"), "averageValue") : "<unknown>";
      list.push_back(now + "/" + Quantity(Obj(Obj(m, "pods"), "target"), "averageValue"));
    } else if (type == "Resource") {
      list.push_back(ResourceTarget(Obj(m, "resource"), StatusAt(statuses, i, "resource")));
    } else if (type == "ContainerResource") {
      list.push_back(ResourceTarget(Obj(m, "containerResource"), StatusAt(statuses, i, "containerResource")));
    } else {
      list.emplace_back("<unknown type>");
    }
  }
  constexpr std::size_t kShown = 2;
  const std::size_t count = list.size();
  std::string out;
  for (std::size_t i = 0; i < count && i < kShown; ++i) out += (i == 0 ? "" : ", ") + list[i];
  if (count > kShown) out += fmt::format(" + {} more...", count - kShown);
  return out;
}

void PrintHorizontalPodAutoscaler(const bj::object& obj, Clock::WallTime now, CellWriter& cells, std::string&) {
  bj::object stored = obj;
  if (Str(&obj, "apiVersion") == "autoscaling/v1") rest::HpaV1ToV2(stored);
  const bj::object* spec = Obj(&stored, "spec");
  const bj::object* status = Obj(&stored, "status");
  const bj::object* ref = Obj(spec, "scaleTargetRef");
  cells.String(Name(obj));
  cells.String(std::string(Str(ref, "kind")) + "/" + std::string(Str(ref, "name")));
  cells.String(FormatMetrics(Arr(spec, "metrics"), Arr(status, "currentMetrics")));
  const auto min = OptInt(spec, "minReplicas");
  cells.String(min ? std::to_string(*min) : "<unset>");
  cells.Int(Int(spec, "maxReplicas"));
  cells.Int(Int(status, "currentReplicas"));
  cells.String(Age(obj, now));
}

// extractCSRStatus: Denied, Approved or Pending, then Failed and Issued.
std::string CsrCondition(const bj::object* status) {
  bool approved = false;
  bool denied = false;
  bool failed = false;
  ForEachObject(Arr(status, "conditions"), [&](const bj::object& c) {
    const std::string_view type = Str(&c, "type");
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  });
  std::string out = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) out += ",Failed";
  if (!Str(status, "certificate").empty()) out += ",Issued";
  return out;
}

void PrintCertificateSigningRequest(const bj::object& obj, Clock::WallTime now, CellWriter& cells, std::string&) {
  const bj::object* spec = Obj(&obj, "spec");
  cells.String(Name(obj));
  cells.String(Age(obj, now));
  const std::string_view signer = Str(spec, "signerName");
  cells.String(signer.empty() ? std::string_view("<none>") : signer);
  cells.String(Str(spec, "username"));
  const auto seconds = OptInt(spec, "expirationSeconds");
  cells.String(seconds ? HumanDuration(std::chrono::seconds(*seconds)) : "<none>");
  cells.String(CsrCondition(Obj(&obj, "status")));
}

}  // namespace

BuiltinPrinter HorizontalPodAutoscalerPrinter() {
  return {{{"Name", "string", "name", kNameDescription, 0},
           {"Reference", "string", "",
            "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should "
            "be collected, as well as to actually change the replica count.",
            0},
           {"Targets", "string", "",
            "metrics contains the specifications for which to use to calculate the desired replica count (the "
            "maximum replica count across all metrics will be used).  The desired replica count is calculated "
            "multiplying the ratio between the target value and the current value by the current number of pods.  "
            "Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual "
            "metric source types for more information about how each type of metric must respond.",
            0},
           {"MinPods", "string", "",
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It "
            "defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled "
            "and at least one Object or External metric is configured.  Scaling is active as long as at least one "
            "metric value is available.",
            0},
           {"MaxPods", "string", "",
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It "
            "cannot be less that minReplicas.",
            0},
           {"Replicas", "string", "",
            "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the "
            "autoscaler.",
            0},
           {"Age", "string", "", kCreationTimestampDescription, 0}},
          &PrintHorizontalPodAutoscaler};
}

BuiltinPrinter CertificateSigningRequestPrinter() {
  return {{{"Name", "string", "name", kNameDescription, 0},
           {"Age", "string", "", kCreationTimestampDescription, 0},
           {"SignerName", "string", "",
            "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If "
            "empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    "
            "\"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is "
            "assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
            "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can "
            "select on this field using `spec.signerName`.",
            0},
           {"Requestor", "string", "", "Base64-encoded PKCS#10 CSR data", 0},
           {"RequestedDuration", "string", "",
            "expirationSeconds is the requested duration of validity of the issued certificate. The certificate "
            "signer may issue a certificate with a different validity duration so a client must check the delta "
            "between the notBefore and and notAfter fields in the issued certificate to determine the actual "
            "duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this "
            "field as long as the requested duration is not greater than the maximum duration they will honor per "
            "the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers "
            "may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as "
            "the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than "
            "the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\n"
            "The minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
            0},
           {"Condition", "string", "", "Conditions applied to the request, such as approval or denial.", 0}},
          &PrintCertificateSigningRequest};
}

}  // namespace kube::apiserver::internal
