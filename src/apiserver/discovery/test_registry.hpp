#pragma once

#include <string_view>

#include <kube/apiserver/resource.hpp>
#include <kube/core/object.hpp>

/// Test fixtures shared by the discovery and table tests.
namespace kube::apiserver::testing {

/// Fills `registry` with the built-in resources the embedded server serves, as kube-apiserver
/// 1.32 describes them: core configmaps, events, namespaces, nodes, pods, secrets,
/// serviceaccounts, services; apps deployments, replicasets; coordination.k8s.io leases;
/// events.k8s.io events (sharing core events' storage).
void AddBuiltins(Registry& registry);

/// The ResourceInfo of a namespaced custom resource `widgets.example.com/<version>` (kind Widget,
/// short name `wd`, category `all`, status and scale subresources, CRD verbs).
ResourceInfo WidgetResource(std::string_view version = "v1");

/// Parses `json` (test data; aborts the test on malformed JSON).
ObjectPtr MustParse(std::string_view json);

}  // namespace kube::apiserver::testing
