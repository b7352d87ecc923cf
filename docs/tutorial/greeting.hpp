// The Greeting custom resource (tutorial.kubecpp.io/v1), declared in C++: its spec and status
// with their schema, and the CRD's printer columns. `kube::api::CrdOf<Greeting>()` is its
// CustomResourceDefinition; `greeting-operator crd` prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <kube/api/custom_resource.hpp>
#include <kube/api/meta/v1.hpp>

// What a Greeting asks for.
struct GreetingSpec {
  std::string name;
  bool excited = false;

  static auto Fields() {
    using kube::api::Field;
    return std::tuple{
        Field("name", &GreetingSpec::name).Required().MinLength(1).Description("Who to greet."),
        Field("excited", &GreetingSpec::excited).Description("End the message with !!! instead of a full stop.")};
  }
  bool operator==(const GreetingSpec&) const = default;
};

// What the operator reports (the status subresource).
struct GreetingStatus {
  std::optional<int64_t> observedGeneration;
  std::string message;
  std::vector<kube::api::meta::v1::Condition> conditions;

  static auto Fields() {
    using kube::api::Field;
    return std::tuple{
        Field("observedGeneration", &GreetingStatus::observedGeneration)
            .Description("The metadata.generation this status describes."),
        Field("message", &GreetingStatus::message).Description("The message in the Greeting's ConfigMap."),
        Field("conditions", &GreetingStatus::conditions).List(kube::api::ListType::kMap, {"type"})};
  }
  bool operator==(const GreetingStatus&) const = default;
};

// greetings.tutorial.kubecpp.io: namespaced, with the status subresource (a Status is declared).
struct Greeting : kube::api::CustomResource<Greeting, GreetingSpec, GreetingStatus> {
  static constexpr std::string_view kGroup = "tutorial.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Greeting";
  static constexpr std::string_view kResource = "greetings";
  static constexpr bool kNamespaced = true;

  static kube::api::CrdOptions Crd() {
    return {.printer_columns = {
                {.name = "Message", .type = "string", .json_path = ".status.message"},
                {.name = "Ready", .type = "string", .json_path = R"(.status.conditions[?(@.type=="Ready")].status)"},
                {.name = "Age", .type = "date", .json_path = ".metadata.creationTimestamp"}}};
  }
};
