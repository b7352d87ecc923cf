#pragma once
/// \file
/// The `Website` custom resource (example.kubecpp.io/v1), declared in C++: its spec and status
/// with their schema (`Fields()`), and the CRD's names, subresources and printer columns.
/// `kube::api::CrdOf<Website>()` is its CustomResourceDefinition: `--install-crd` applies it, and
/// kubecpp-website-crd writes it as deploy/crd.yaml.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <kube/api/custom_resource.hpp>
#include <kube/api/meta/v1.hpp>

namespace kube::examples::website {

/// The image used when spec.image is empty (also the CRD's schema default).
inline constexpr std::string_view kDefaultImage = "nginx:1.27";
/// The replicas used when spec.replicas is absent (also the CRD's schema default).
inline constexpr int32_t kDefaultReplicas = 1;

/// What a Website asks for. The API server applies the schema defaults, so a stored Website has
/// `image` and `replicas`; `Image()` and `Replicas()` also cover one that does not.
struct WebsiteSpec {
  std::string image{};
  /// Optional, so that an explicit `replicas: 0` (scaled to zero) survives a round trip through
  /// the typed codec instead of being omitted and defaulted back to 1 by the server. The scale
  /// subresource (`kubectl scale`) reads and writes this field.
  std::optional<int32_t> replicas{};
  std::string content{};

  static auto Fields() {
    using kube::api::Field;
    return std::tuple{
        Field("image", &WebsiteSpec::image)
            .Default(kDefaultImage)
            .Description("The container image serving the content."),
        Field("replicas", &WebsiteSpec::replicas)
            .Minimum(0)
            .Default(kDefaultReplicas)
            .Description("How many pods serve the site."),
        Field("content", &WebsiteSpec::content).Description("The index.html served at /.")};
  }
  bool operator==(const WebsiteSpec&) const = default;

  /// `image`, or kDefaultImage when it is empty.
  std::string_view Image() const { return image.empty() ? kDefaultImage : std::string_view(image); }
  /// `replicas`, or kDefaultReplicas when it is absent.
  int32_t Replicas() const { return replicas.value_or(kDefaultReplicas); }
};

/// What the operator reports about a Website (the status subresource).
struct WebsiteStatus {
  std::optional<int64_t> observedGeneration{};
  std::optional<int32_t> readyReplicas{};  // optional: a reported 0 is written, not omitted
  std::string url{};
  std::vector<kube::api::meta::v1::Condition> conditions{};

  static auto Fields() {
    using kube::api::Field;
    return std::tuple{
        Field("observedGeneration", &WebsiteStatus::observedGeneration)
            .Description("The metadata.generation the status describes."),
        Field("readyReplicas", &WebsiteStatus::readyReplicas).Description("Ready pods of the Deployment."),
        Field("url", &WebsiteStatus::url).Description("Where the site is served inside the cluster."),
        Field("conditions", &WebsiteStatus::conditions).List(kube::api::ListType::kMap, {"type"})};
  }
  bool operator==(const WebsiteStatus&) const = default;
};

/// A static site served by nginx: `websites.example.kubecpp.io`, namespaced, short name `ws`,
/// with the status subresource and the scale subresource on `.spec.replicas` /
/// `.status.readyReplicas`.
struct Website : kube::api::CustomResource<Website, WebsiteSpec, WebsiteStatus> {
  static constexpr std::string_view kGroup = "example.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Website";
  static constexpr std::string_view kResource = "websites";
  static constexpr bool kNamespaced = true;

  static kube::api::CrdOptions Crd() {
    return {.short_names = {"ws"},
            .printer_columns = {{.name = "Replicas", .type = "integer", .json_path = ".spec.replicas"},
                                {.name = "Ready", .type = "integer", .json_path = ".status.readyReplicas"},
                                {.name = "Image", .type = "string", .json_path = ".spec.image"},
                                {.name = "Age", .type = "date", .json_path = ".metadata.creationTimestamp"}},
            .scale = kube::api::ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                                 .status_replicas_path = ".status.readyReplicas"}};
  }
};

/// The name of the Website CRD (`<plural>.<group>`).
inline constexpr std::string_view kWebsiteCrdName = "websites.example.kubecpp.io";

}  // namespace kube::examples::website
