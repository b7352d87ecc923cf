#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>

/// Request options (metav1 ListOptions, GetOptions, DeleteOptions, CreateOptions, UpdateOptions,
/// PatchOptions) and their query-string form, shared by the REST client (encode) and the API
/// server (decode).
///
/// Encoding follows client-go: parameters carry the metav1 JSON names, fields at their default
/// (empty string, 0, false, nullopt) are omitted, keys come out sorted as Go's
/// `url.Values.Encode` sorts them, and values are escaped as Go's `url.QueryEscape` does
/// (space as '+', everything but `A-Za-z0-9-_.~` percent-encoded).
///
/// Decoding follows kube-apiserver's parameter codec: unknown parameters are ignored, a repeated
/// parameter takes its first value (except `dryRun`, which collects all), booleans are false
/// only for "0" and "false" (any case) and true for every other value, including an empty one
/// (apimachinery `Convert_Slice_string_To_bool`; so `watch=1`, `watch=true`, `watch=True` and a
/// bare `watch` all mean true), and integers are base-10 int64 with an optional sign.
/// A leading '?' is accepted.
///
/// **Thread-safety:** the option structs are plain values; every function is pure.
namespace kube {

/// The only value `dryRun` accepts.
inline constexpr std::string_view kDryRunAll = "All";

/// metav1.ListOptions: query parameters of list and watch requests.
struct ListOptions {
  std::string label_selector{};          ///< labelSelector
  std::string field_selector{};          ///< fieldSelector
  std::string resource_version{};        ///< resourceVersion; "" = most recent, "0" = any
  std::string resource_version_match{};  ///< resourceVersionMatch: "", "NotOlderThan", "Exact"
  std::int64_t limit = 0;                ///< limit; 0 = no paging
  std::string continue_token{};          ///< continue
  std::optional<std::int64_t> timeout_seconds{};  ///< timeoutSeconds; nullopt = server's choice
  bool watch = false;                             ///< watch
  bool allow_watch_bookmarks = false;             ///< allowWatchBookmarks
  std::optional<bool> send_initial_events{};      ///< sendInitialEvents (watch-list)

  /// The query string, without '?', e.g. `labelSelector=app%3Dweb&limit=500`.
  std::string ToQuery() const;
  /// Decodes a query string. Does not validate combinations (that is a 422 Invalid of the
  /// server's ListOptions validation).
  /// **Errors:** 400 BadRequest naming the parameter for a malformed integer
  /// (`limit`, `timeoutSeconds`) or a malformed percent-escape.
  static Result<ListOptions> FromQuery(std::string_view query);
  bool operator==(const ListOptions&) const = default;
};

/// metav1.GetOptions.
struct GetOptions {
  std::string resource_version{};  ///< resourceVersion; "" = most recent, "0" = any

  /// The query string, without '?'.
  std::string ToQuery() const;
  /// Decodes a query string. **Errors:** 400 BadRequest for a malformed percent-escape.
  static Result<GetOptions> FromQuery(std::string_view query);
  bool operator==(const GetOptions&) const = default;
};

/// metav1.DeletionPropagation.
enum class PropagationPolicy { kOrphan, kBackground, kForeground };

/// "Orphan", "Background" or "Foreground".
std::string_view ToString(PropagationPolicy p);
/// The policy named `s` (case-sensitive, as kube), or nullopt.
std::optional<PropagationPolicy> ParsePropagationPolicy(std::string_view s);

/// metav1.Preconditions: the delete proceeds only if the stored object still has these values.
struct Preconditions {
  std::optional<std::string> uid{};               ///< required metadata.uid
  std::optional<std::string> resource_version{};  ///< required metadata.resourceVersion
  bool operator==(const Preconditions&) const = default;
};

/// metav1.DeleteOptions.
///
/// On the wire it travels either as a JSON body (what client-go sends) or as query parameters.
/// kube-apiserver uses **one or the other, never a merge**: a non-empty body is decoded and the
/// query is ignored; only an empty body makes it read the query (apiserver
/// `handlers/delete.go`). `FromRequest` reproduces that. Preconditions cannot be expressed as
/// query parameters (apimachinery opts them out of query conversion), so `ToQuery` omits them.
struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds{};     ///< gracePeriodSeconds; 0 = now
  std::optional<Preconditions> preconditions{};           ///< preconditions (body only)
  std::optional<PropagationPolicy> propagation_policy{};  ///< propagationPolicy
  std::vector<std::string> dry_run{};                     ///< dryRun; {"All"} or empty
  std::optional<bool> orphan_dependents{};                ///< orphanDependents (deprecated)

  /// The query string, without '?' (no preconditions; see above).
  std::string ToQuery() const;
  /// Decodes a query string.
  /// **Errors:** 400 BadRequest naming the parameter for a malformed `gracePeriodSeconds` or
  /// percent-escape; for an unknown `propagationPolicy`, the 422 Invalid kube's validation
  /// answers: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value:
  /// "X": supported values: "Foreground", "Background", "Orphan", "nil"`.
  static Result<DeleteOptions> FromQuery(std::string_view query);

  /// The JSON body client-go sends: `{"kind":"DeleteOptions","apiVersion":"v1",
  /// "gracePeriodSeconds":0,"preconditions":{"uid":"..","resourceVersion":".."},
  /// "orphanDependents":false,"propagationPolicy":"Foreground","dryRun":["All"]}` (Go's field
  /// order; unset fields omitted).
  std::string ToJson() const;
  /// Decodes a JSON body. `kind`, if present, must be "DeleteOptions"; `apiVersion` is not
  /// checked (kube accepts per-group DeleteOptions); unknown members are ignored; `null` means
  /// unset. **Errors:** 400 BadRequest for invalid JSON, a non-object, another kind, or a member
  /// of the wrong type (naming it, e.g. `DeleteOptions.gracePeriodSeconds: expected an integer,
  /// got string`); the 422 Invalid above for an unknown propagationPolicy.
  static Result<DeleteOptions> FromJson(std::string_view json);

  /// What kube-apiserver does with a DELETE request: decode `body` when it is not empty
  /// (whitespace counts as empty), otherwise `query`; then `Validate()`.
  /// **Errors:** those of FromJson / FromQuery / Validate.
  static Result<DeleteOptions> FromRequest(std::string_view query, std::string_view body);

  /// apimachinery `ValidateDeleteOptions`: `orphanDependents` and `propagationPolicy` are
  /// mutually exclusive, and every dryRun value must be "All".
  /// **Errors:** 422 Invalid, kind `DeleteOptions`, group `meta.k8s.io`, e.g.
  /// `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground":
  /// orphanDependents and deletionPropagation cannot be both set`.
  Result<void> Validate() const;

  bool operator==(const DeleteOptions&) const = default;
};

/// metav1.CreateOptions.
struct CreateOptions {
  std::vector<std::string> dry_run{};  ///< dryRun; {"All"} or empty
  std::string field_manager{};        ///< fieldManager
  std::string field_validation{};     ///< fieldValidation: "", "Ignore", "Warn" or "Strict"

  /// The query string, without '?'.
  std::string ToQuery() const;
  /// Decodes a query string. **Errors:** 400 BadRequest for a malformed percent-escape.
  static Result<CreateOptions> FromQuery(std::string_view query);
  bool operator==(const CreateOptions&) const = default;
};

/// metav1.UpdateOptions (same parameters as CreateOptions).
struct UpdateOptions {
  std::vector<std::string> dry_run{};  ///< dryRun; {"All"} or empty
  std::string field_manager{};        ///< fieldManager
  std::string field_validation{};     ///< fieldValidation: "", "Ignore", "Warn" or "Strict"

  /// The query string, without '?'.
  std::string ToQuery() const;
  /// Decodes a query string. **Errors:** 400 BadRequest for a malformed percent-escape.
  static Result<UpdateOptions> FromQuery(std::string_view query);
  bool operator==(const UpdateOptions&) const = default;
};

/// metav1.PatchOptions.
struct PatchOptions {
  std::vector<std::string> dry_run{};  ///< dryRun; {"All"} or empty
  std::string field_manager{};        ///< fieldManager (required for apply)
  std::string field_validation{};     ///< fieldValidation
  std::optional<bool> force{};        ///< force (apply only)

  /// The query string, without '?'.
  std::string ToQuery() const;
  /// Decodes a query string. **Errors:** 400 BadRequest for a malformed percent-escape.
  static Result<PatchOptions> FromQuery(std::string_view query);
  bool operator==(const PatchOptions&) const = default;
};

/// The four PATCH body formats.
enum class PatchType { kJson, kMerge, kStrategicMerge, kApply };

/// The Content-Type of a patch: "application/json-patch+json", "application/merge-patch+json",
/// "application/strategic-merge-patch+json" or "application/apply-patch+yaml".
std::string_view ContentType(PatchType t);

/// The patch type of a Content-Type header value; parameters (`; charset=utf-8`), surrounding
/// whitespace and letter case are ignored. nullopt for any other media type.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

}  // namespace kube
