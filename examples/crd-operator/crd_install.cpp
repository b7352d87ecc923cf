#include "crd_install.hpp"

#include <string>
#include <utility>

#include <kube/api/custom_resource.hpp>

namespace kube::examples::website {

namespace apiextv1 = api::apiextensions::v1;

bool IsEstablished(const apiextv1::CustomResourceDefinition& crd) {
  for (const auto& c : crd.status.conditions) {
    if (c.type == "Established" && c.status == "True") return true;
  }
  return false;
}

Result<apiextv1::CustomResourceDefinition> InstallWebsiteCrd(std::shared_ptr<client::RestClient> rest,
                                                             std::stop_token stop, InstallCrdOptions options) {
  Clock& clock = options.clock != nullptr ? *options.clock : RealClock::Instance();
  const client::TypedApi<apiextv1::CustomResourceDefinition> crds(
      client::Api(std::move(rest), client::ResourceOf<apiextv1::CustomResourceDefinition>()).WithStop(stop));
  // The document as CrdOf writes it (not re-encoded through the typed CRD, which would add empty
  // values): the apply then owns exactly the fields Website declares.
  auto applied = crds.Patch(kWebsiteCrdName, PatchType::kApply, api::CrdJson<Website>(),
                            {.field_manager = options.field_manager, .force = true});
  if (!applied) return std::move(applied).error();
  apiextv1::CustomResourceDefinition crd = std::move(*applied);
  const auto deadline = clock.Now() + options.timeout;
  while (!IsEstablished(crd)) {
    if (clock.Now() >= deadline) {
      return MakeError(504, reason::kTimeout,
                       "customresourcedefinition " + std::string(kWebsiteCrdName) + " not Established after " +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(options.timeout).count()) +
                           "s");
    }
    if (!clock.SleepFor(options.poll_interval, stop)) return CanceledError();
    auto got = crds.Get(kWebsiteCrdName);
    if (!got) return std::move(got).error();
    crd = std::move(*got);
  }
  return crd;
}

}  // namespace kube::examples::website
