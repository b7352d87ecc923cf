#pragma once

#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

/// Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), which
/// kubectl's generator commands (`kubectl create deployment|configmap|secret|namespace|service|
/// serviceaccount|role|rolebinding|clusterrole|clusterrolebinding`) and client-go programs that
/// opt into protobuf send.
///
/// The body is kube's envelope: the 4 magic bytes `k8s\0`, then a `runtime.Unknown` message
/// (typeMeta {apiVersion, kind}, raw, contentEncoding, contentType) whose `raw` bytes are the
/// object's `generated.proto` message. The decoder turns it into the JSON object the Go types
/// would marshal to: zero values of non-pointer fields are omitted as `omitempty` would, `Time`
/// becomes RFC 3339, `Quantity` and `IntOrString` their JSON forms, `bytes` base64, `FieldsV1` its
/// raw JSON, embedded structs (`LocalObjectReference` in key selectors, `VolumeSource` in
/// `Volume`, `ProbeHandler` in `Probe`) are inlined.
///
/// Served kinds: v1 Namespace, ConfigMap, Secret, ServiceAccount, Service, Pod; apps/v1
/// Deployment, ReplicaSet; rbac.authorization.k8s.io/v1 Role, RoleBinding, ClusterRole,
/// ClusterRoleBinding. The message tables cover the fields of kube 1.32 those objects use, except
/// rarely used corners (affinity, ephemeral containers, most volume sources): a body using one
/// of those is rejected whole (415 naming the field), never stored with the field dropped.
namespace kube::apiserver::rest {

/// The media type of kube's protobuf encoding.
inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";

/// Whether request bodies of `kind` in `api_version` (e.g. "apps/v1", "Deployment") may be sent
/// in protobuf.
bool ProtobufServed(std::string_view api_version, std::string_view kind);

/// Decodes a protobuf request body (envelope included) into a JSON object with `apiVersion` and
/// `kind` set from the envelope.
/// **Errors:** 400 BadRequest for a body that is not a well-formed envelope or message (bad magic,
/// truncated varint or length, wrong wire type for a field); 415 UnsupportedMediaType for a kind
/// or a field this decoder does not know (the message names it, e.g. `protobuf field
/// PodSpec.18 (spec.template.spec) is not supported by this server; send application/json`).
Result<boost::json::value> DecodeProtobufObject(std::string_view body);

}  // namespace kube::apiserver::rest
