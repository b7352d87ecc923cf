#pragma once

#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/core/status.hpp>

/// kube's validation of pod specs and service specs (k8s.io/kubernetes pkg/apis/core/validation:
/// ValidatePodSpec, ValidateService), for the rules clients meet, in kube's order and with its
/// messages. The objects are in their defaulted v1 form. Internal to src/apiserver/rest.
/// **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// ValidatePodSpec of `spec` at `path` ("spec" for a Pod, "spec.template.spec" for a template):
/// volumes, containers and init containers (names, images, ports, env, mounts, probes,
/// resources, pull policy), host-network ports, restart and DNS policy, node selector, security
/// context, service account, deadline, hostname and tolerations.
void ValidatePodSpec(const boost::json::object& spec, const std::string& path, std::vector<FieldError>& errs);

/// ValidateService on a create (`old` nullptr) or an update: type, ports (names, numbers,
/// protocols, target ports, node ports), selector, session affinity, cluster IPs and IP family
/// policy, the type-specific fields; on an update the cluster IPs may not change.
void ValidateServiceSpec(const boost::json::object& obj, const boost::json::object* old, std::vector<FieldError>& errs);

}  // namespace kube::apiserver::rest
