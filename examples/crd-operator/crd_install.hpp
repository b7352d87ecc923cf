#pragma once
/// \file
/// The Website CRD manifest (deploy/crd.yaml, embedded at build time) and its installation.

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include <kube/kube.hpp>

namespace kube::examples::website {

/// The CustomResourceDefinition resource.
inline const GroupVersionResource kCustomResourceDefinitions{"apiextensions.k8s.io", "v1",
                                                             "customresourcedefinitions"};
/// The name of the Website CRD.
inline constexpr std::string_view kWebsiteCrdName = "websites.example.kubecpp.io";

/// The text of deploy/crd.yaml, as it was when the binary was built.
std::string_view WebsiteCrdManifest();

/// Options of `InstallWebsiteCrd`.
struct InstallCrdOptions {
  /// The server-side apply field manager.
  std::string field_manager = "website-operator";
  /// How long to wait for the Established condition.
  Clock::Duration timeout = std::chrono::seconds(60);
  /// How often the CRD is read while waiting.
  Clock::Duration poll_interval = std::chrono::milliseconds(200);
  /// Time for the waits; nullptr = RealClock.
  Clock* clock = nullptr;
};

/// Applies `WebsiteCrdManifest()` with server-side apply (force: this program owns the CRD's
/// fields), so it creates the CRD or brings it up to date and is idempotent, then waits until
/// the CRD is Established (its resources are served). Returns the CRD as last read.
/// **Errors:** the apply's API error (e.g. Forbidden without RBAC for CRDs); Timeout (504) when
/// it is not Established within `timeout`; Canceled when `stop` fires.
/// **Blocks?** Yes: requests and poll waits.
Result<ObjectPtr> InstallWebsiteCrd(std::shared_ptr<client::RestClient> rest, std::stop_token stop = {},
                                    InstallCrdOptions options = {});

/// True when `crd` has the condition Established=True.
bool IsEstablished(const Object& crd);

}  // namespace kube::examples::website
