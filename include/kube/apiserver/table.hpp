#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/core/object.hpp>

/// The presentation of objects in the shapes `kubectl get` and metadata-only clients ask for:
/// meta.k8s.io/v1 Table and PartialObjectMetadata(List), and the Accept-header negotiation that
/// selects them (apiserver-semantics.md §2.8, §2.9). Pure functions; no storage, no sockets.
/// Every function here is safe to call concurrently.
namespace kube::apiserver {

/// What a GET/LIST/WATCH response body should be, as chosen by the Accept header.
enum class OutputKind {
  kObject,                     ///< the object / the List as stored (plain `application/json`)
  kTable,                      ///< `as=Table;g=meta.k8s.io;v=v1`
  kPartialObjectMetadata,      ///< `as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (one object, watch events)
  kPartialObjectMetadataList,  ///< `as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` (lists)
};

/// The media types this server can produce, as listed in 406 messages.
inline constexpr std::string_view kAcceptedMediaTypes = "application/json";

/// Chooses the output as kube-apiserver's negotiation does: media ranges are ordered by q (then
/// concrete before wildcard types, otherwise in header order); the first JSON range
/// (`application/json`, `application/*`, `*/*`) that can be served wins. Parameters `as`, `g`,
/// `v` may come in any order; other parameters (`charset`, `stream`, `pretty`) are ignored.
/// Ranges for other types (protobuf, YAML, CBOR) are skipped, since JSON is all this server
/// speaks. Without `as`/`g`/`v` a range means kObject. An empty header means kObject.
/// Only meta.k8s.io/v1 conversions are served (v1beta1 Table is skipped, like any other
/// unservable range).
/// `is_list` says whether the response body is a list: true for a LIST, false for a GET of one
/// object and for a WATCH (whose events each carry one object; client-go's metadata informer
/// watches with `as=PartialObjectMetadata`). It matters as in kube: selecting
/// `as=PartialObjectMetadata` for a list or `as=PartialObjectMetadataList` for a single object is
/// a 406, not a fallback to the next range.
/// **Errors:** 406 NotAcceptable: `only the following media types are accepted: application/json`
/// when no range is acceptable, or `you requested PartialObjectMetadata[List], but the requested
/// object is [not] a list`.
Result<OutputKind> NegotiateOutput(std::string_view accept, bool is_list);

/// The Content-Type of a response with output `kind` (kube answers Tables and
/// PartialObjectMetadata with plain `application/json`).
std::string_view ContentTypeFor(OutputKind kind);

/// Options of one Table rendering (metav1.TableOptions plus the list metadata).
struct TableOptions {
  std::string resource_version;                ///< Table metadata.resourceVersion ("" = absent)
  std::string continue_token;                  ///< Table metadata.continue ("" = absent)
  std::optional<int64_t> remaining_item_count;  ///< Table metadata.remainingItemCount
  /// What each row's `object` holds (the `includeObject` query parameter).
  enum class IncludeObject {
    kNone,      ///< `"object":null`
    kMetadata,  ///< a meta.k8s.io/v1 PartialObjectMetadata (the default)
    kObject,    ///< the full object
  } include_object = IncludeObject::kMetadata;
  /// "Now", for the AGE / LAST SEEN / RESTARTS cells (kube renders them on the server as human
  /// durations like `5m12s`). Callers pass `clock.WallNow()`; the default is the epoch.
  Clock::WallTime now{};
  /// When false, `columnDefinitions` is `null` (kube's NoHeaders: every watch event after the
  /// first).
  bool column_definitions = true;
};

/// Parses the `includeObject` query parameter: "" and "Metadata" -> kMetadata, "Object",
/// "None". **Errors:** 400 BadRequest `unrecognized includeObject value: "<v>"`.
Result<TableOptions::IncludeObject> ParseIncludeObject(std::string_view value);

/// The meta.k8s.io/v1 Table of `objects` (one row each, in order), exactly as kube-apiserver
/// renders it:
/// - built-in resources (core namespaces, configmaps, secrets, events, pods, services,
///   serviceaccounts, nodes; apps deployments, replicasets; coordination.k8s.io leases;
///   events.k8s.io events) use kube's printer columns and cells, wide columns included
///   (priority 1), with server-side human durations (`duration.HumanDuration`) for ages;
/// - otherwise, when `info.table_columns` is non-empty (custom resources), `Name` plus those
///   columns evaluated by their JSONPath (`.spec.replicas`, `['a.b']`, `[0]`, `[*]`,
///   `[?(@.type=="Ready")]`), typed as the CRD convertor does (integer, number, boolean, string,
///   date -> human duration; missing -> null);
/// - otherwise kube's default convertor: `Name` and `Created At` (RFC 3339).
/// `options.resource_version`/`continue_token`/`remaining_item_count` fill the Table metadata.
/// Never fails: a malformed field renders as kube would render its zero value.
/// **Ownership:** borrows its arguments for the call.
std::string RenderTable(const ResourceInfo& info, const std::vector<ObjectPtr>& objects,
                        const TableOptions& options);

/// The Table for one object: a GET of a named object, or the `object` of one watch event with
/// Table output. Like RenderTable with a single row, except that `metadata.resourceVersion` is
/// the object's own (as kube does for non-list objects) and `options.continue_token` /
/// `remaining_item_count` are ignored. For `kubectl get -w`, pass `column_definitions = true` for
/// the first event only.
std::string RenderObjectTable(const ResourceInfo& info, const ObjectPtr& object,
                              const TableOptions& options);

/// The Table kube sends as the object of a BOOKMARK event on a Table watch: no rows, no columns,
/// `metadata.resourceVersion` = `resource_version`.
std::string RenderBookmarkTable(std::string_view resource_version);

/// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}`: the
/// object's metadata with the fields of metav1.ObjectMeta in Go field order (name, generateName,
/// namespace, selfLink, uid, resourceVersion, generation, creationTimestamp (`null` when unset),
/// deletionTimestamp, deletionGracePeriodSeconds, labels, annotations, ownerReferences,
/// finalizers, managedFields); other members of `metadata` are dropped, as kube's typed decode
/// drops them. Values are copied byte for byte.
std::string RenderPartialObjectMetadata(const Object& object);

/// `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{...},
/// "items":[...]}` with one PartialObjectMetadata (kind and apiVersion set) per object;
/// `items` is `[]` when empty.
std::string RenderPartialObjectMetadataList(const std::vector<ObjectPtr>& objects,
                                            std::string_view resource_version,
                                            std::string_view continue_token,
                                            std::optional<int64_t> remaining_item_count = {});

/// The Table columns of a custom resource version from its CRD's `additionalPrinterColumns`
/// (a JSON array of `{name, type, format, description, priority, jsonPath}`), for
/// `ResourceInfo::table_columns`. An absent/empty array gives kube's default
/// (`serveDefaultColumnsIfEmpty`): `[{name: "Age", type: "date", jsonPath:
/// ".metadata.creationTimestamp"}]`. An empty description becomes `Custom resource definition
/// column (in JSONPath format): <jsonPath>`. Malformed entries are skipped.
std::vector<TableColumn> CustomResourceColumns(const boost::json::value& additional_printer_columns);

/// apimachinery `duration.HumanDuration`: `45s`, `3m20s`, `2d3h`, `3y`; `<invalid>` below -1s,
/// `0s` for [-1s, 0).
std::string HumanDuration(std::chrono::nanoseconds d);

}  // namespace kube::apiserver
