#pragma once
/// \file
/// The installation of the Website CRD, `kube::api::CrdOf<Website>()` (website_types.hpp).

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>

#include <kube/api/apiextensions/v1.hpp>
#include <kube/kube.hpp>

#include "website_types.hpp"

namespace kube::examples::website {

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

/// Applies `CrdOf<Website>()` with server-side apply (force: this program owns the CRD's
/// fields), so it creates the CRD or brings it up to date and is idempotent, then waits until
/// the CRD is Established (its resources are served). Returns the CRD as last read.
/// **Errors:** the apply's API error (e.g. Forbidden without RBAC for CRDs); Timeout (504) when
/// it is not Established within `timeout`; Canceled when `stop` fires.
/// **Blocks?** Yes: requests and poll waits.
Result<api::apiextensions::v1::CustomResourceDefinition> InstallWebsiteCrd(std::shared_ptr<client::RestClient> rest,
                                                                         std::stop_token stop = {},
                                                                         InstallCrdOptions options = {});

/// True when `crd` has the condition Established=True.
bool IsEstablished(const api::apiextensions::v1::CustomResourceDefinition& crd);

}  // namespace kube::examples::website
