#include "crd_install.hpp"

#include <string>
#include <utility>

namespace kube::examples::website {

bool IsEstablished(const Object& crd) {
  const auto conditions = crd.Get("/status/conditions");
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    const auto* obj = c.if_object();
    if (obj == nullptr) continue;
    const auto* type = obj->if_contains("type");
    const auto* status = obj->if_contains("status");
    if (type != nullptr && status != nullptr && type->is_string() && status->is_string() &&
        type->as_string() == "Established" && status->as_string() == "True") {
      return true;
    }
  }
  return false;
}

Result<ObjectPtr> InstallWebsiteCrd(std::shared_ptr<client::RestClient> rest, std::stop_token stop,
                                    InstallCrdOptions options) {
  Clock& clock = options.clock != nullptr ? *options.clock : RealClock::Instance();
  const client::Api crds = client::Api(std::move(rest), kCustomResourceDefinitions).WithStop(stop);
  // The YAML goes to the server as is: apply accepts YAML, so no parser is needed here.
  auto applied = crds.Patch(kWebsiteCrdName, PatchType::kApply, WebsiteCrdManifest(),
                            {.field_manager = options.field_manager, .force = true});
  if (!applied) return std::move(applied).error();
  ObjectPtr crd = *applied;
  const auto deadline = clock.Now() + options.timeout;
  while (!IsEstablished(*crd)) {
    if (clock.Now() >= deadline) {
      return MakeError(504, reason::kTimeout,
                       "customresourcedefinition " + std::string(kWebsiteCrdName) + " not Established after " +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(options.timeout).count()) +
                           "s");
    }
    if (!clock.SleepFor(options.poll_interval, stop)) return CanceledError();
    auto got = crds.Get(kWebsiteCrdName);
    if (!got) return std::move(got).error();
    crd = *got;
  }
  return crd;
}

}  // namespace kube::examples::website
