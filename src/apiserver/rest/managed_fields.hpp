#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/status.hpp>
#include <kube/core/type_schema.hpp>

/// Field ownership for server-side apply (sigs.k8s.io/structured-merge-diff's fieldpath model
/// and the managedFields bookkeeping of k8s.io/apiserver's fieldmanager), over JSON DOMs and a
/// `TypeSchema` (nullptr = unknown: lists atomic, maps granular). Internal to src/apiserver/rest.
/// **Thread-safety:** values; pure functions.
namespace kube::apiserver::rest {

/// One step of a field path, ordered as structured-merge-diff orders them: fields, then list-map
/// keys, then set values, then indices.
struct PathElement {
  /// The element's form, in kube's order.
  enum class Kind { kField, kKey, kValue, kIndex };
  Kind kind = Kind::kField;  ///< which of the members below is meaningful
  std::string name;  ///< kField: the member name
  /// kKey: the list-map-key members of the element, sorted by name.
  std::vector<std::pair<std::string, boost::json::value>> key;
  boost::json::value value;  ///< kValue: the set element
  int64_t index = 0;         ///< kIndex: the position

  /// `f:<name>`.
  static PathElement Field(std::string name);
  /// `k:{...}`; `key` is sorted here.
  static PathElement Key(std::vector<std::pair<std::string, boost::json::value>> key);
  /// `v:<json>`.
  static PathElement Value(boost::json::value v);
  /// `i:<n>`.
  static PathElement Index(int64_t i);

  /// The FieldsV1 member name: `f:name`, `k:{"name":"c"}`, `v:"x"`, `i:0`.
  std::string ToFieldsV1Key() const;
  /// The form kube prints in conflicts: `.name`, `[name="c"]`, `[="x"]`, `[0]`.
  std::string ToString() const;
  /// Parses a FieldsV1 member name. **Errors:** 400 for an unknown prefix or bad JSON.
  static Result<PathElement> Parse(std::string_view s);

  /// Total order (structured-merge-diff's PathElement.Compare): <0, 0, >0.
  static int Compare(const PathElement& a, const PathElement& b);
  /// Compare(...) < 0.
  bool operator<(const PathElement& o) const { return Compare(*this, o) < 0; }
  /// Compare(...) == 0.
  bool operator==(const PathElement& o) const { return Compare(*this, o) == 0; }
};

/// A field path from the object root.
using FieldPath = std::vector<PathElement>;
/// `.metadata.labels.app` / `.spec.containers[name="c"].image`.
std::string PathString(const FieldPath& p);

/// A set of field paths, stored as a tree (structured-merge-diff's fieldpath.Set): `members` are
/// paths that end here, `children` continue below. A path may be both a member and a prefix of
/// other members (FieldsV1 writes that as `".": {}`).
class FieldSet {
 public:
  /// Adds `p` (an empty path is ignored: the root is never owned).
  void Insert(const FieldPath& p);
  /// True when `p` is a member.
  bool Has(const FieldPath& p) const;
  /// True when no path is a member.
  bool Empty() const;
  /// Number of member paths.
  std::size_t Size() const;
  /// Paths in either set.
  FieldSet Union(const FieldSet& o) const;
  /// Paths of this set not in `o`.
  FieldSet Difference(const FieldSet& o) const;
  /// Paths in both sets.
  FieldSet Intersection(const FieldSet& o) const;
  /// In place: adds the paths of `o` (Union without a copy).
  void Add(const FieldSet& o);
  /// In place: removes the paths of `o` (Difference without a copy).
  void Remove(const FieldSet& o);
  /// True when some member of this set starts with `prefix` and is longer than it.
  bool HasMemberBelow(const FieldPath& prefix) const;
  /// Calls `f` for every member path: at each level the members first, then the children, each
  /// in PathElement order (kube's iteration and conflict order).
  void Iterate(const std::function<void(const FieldPath&)>& f) const;

  /// FieldsV1 JSON, as kube writes it: `{"f:data":{".":{},"f:key":{}}}`.
  boost::json::object ToFieldsV1() const;
  /// Parses FieldsV1 JSON. **Errors:** 400 for a non-object node or a bad member name.
  static Result<FieldSet> FromFieldsV1(const boost::json::value& v);

  /// Same member paths.
  bool operator==(const FieldSet& o) const;

 private:
  void IterateFrom(FieldPath& prefix, const std::function<void(const FieldPath&)>& f) const;
  std::set<PathElement> members_;
  std::map<PathElement, FieldSet> children_;
};

/// The list element's path element under `schema` (list type set: `v:`; map: `k:` by the
/// list-map-keys, a missing key taking the key field's schema default). nullopt for an atomic
/// list. **Errors:** 422-style BadRequest for an element of a set that is an object or array, or
/// a map-list element missing a key.
Result<std::optional<PathElement>> ListElementPath(const boost::json::value& item, const TypeSchema* schema);

/// The leaf field set of `obj` (structured-merge-diff's ToFieldSet): scalars, atomic lists and
/// maps, null and empty-map members, list elements of set/map lists (the element itself and its
/// fields) and members of map-typed objects (additionalProperties) are members.
/// **Errors:** as ListElementPath.
Result<FieldSet> LeafFieldSet(const boost::json::value& obj, const TypeSchema* schema);

/// What changed between two objects (structured-merge-diff's Compare): leaves and newly
/// present / gone non-leaf nodes.
struct Comparison {
  FieldSet added;     ///< leaves and nodes present only in the new object
  FieldSet modified;  ///< leaves whose value changed
  FieldSet removed;   ///< leaves and nodes present only in the old object
};
/// Compares `lhs` (old) with `rhs` (new); either may be nullptr (absent). `metadata.managedFields`
/// is never compared. Top-level members named in `implicit` count as `{}` where absent. Empty
/// maps and slices that Go's omitempty drops count as absent, on the `rhs` side too unless
/// `rhs_merged` (a merge result that never went through Go's encoding, as an apply's).
/// **Errors:** as ListElementPath.
Result<Comparison> CompareObjects(const boost::json::value* lhs, const boost::json::value* rhs,
                                  const TypeSchema* schema, const std::vector<std::string>& implicit = {},
                                  bool rhs_merged = false);

/// Merges an applied configuration into `live` (structured-merge-diff's Merge): maps and
/// set/map lists merge recursively, scalars and atomic values are replaced by `config`'s.
/// **Errors:** as ListElementPath.
Result<boost::json::value> MergeApplied(const boost::json::value& live, const boost::json::value& config,
                                        const TypeSchema* schema);

/// Removes from `obj` every member path of `remove`; a node with a path of `keep` below it is
/// kept (only its unkept descendants go).
void RemoveFields(boost::json::value& obj, const FieldSet& remove, const FieldSet& keep, const TypeSchema* schema);

/// One managedFields entry.
struct ManagedEntry {
  std::string manager;      ///< `manager`
  std::string operation;    ///< "Apply" or "Update"
  std::string api_version;  ///< `apiVersion`
  std::string time;         ///< RFC 3339, "" = none
  std::string subresource;  ///< "" for the main resource
  FieldSet fields;          ///< `fieldsV1`

  /// kube's BuildManagerIdentifier: manager, operation, subresource and (for Update only)
  /// apiVersion identify an entry.
  bool SameManager(const ManagedEntry& o) const;
  /// kube's printManager: `"kubectl"`, `"m" with subresource "status"`, `"m" using v1`.
  std::string Describe() const;
};

/// Decodes `metadata.managedFields` of `obj` (absent = empty). **Errors:** 400 for malformed
/// entries (unknown fieldsType, bad FieldsV1).
Result<std::vector<ManagedEntry>> DecodeManagedFields(const boost::json::object& obj);
/// Writes `entries` (those with an empty set are dropped) into `metadata.managedFields`, sorted
/// as kube sorts them (operation, time, manager, apiVersion, subresource); removes the member
/// when none remain.
void EncodeManagedFields(boost::json::object& obj, std::vector<ManagedEntry> entries);

/// Who is writing.
struct WriteManager {
  std::string manager;      ///< the fieldManager
  std::string api_version;  ///< of the request, e.g. "apps/v1"
  std::string subresource;  ///< "" or "status", "scale", ...
  std::string time;         ///< now, RFC 3339 seconds
};

/// The metadata paths kube never tracks (apiVersion, kind, metadata, metadata.name, namespace,
/// creationTimestamp, selfLink, uid, clusterName, generation, managedFields, resourceVersion).
const FieldSet& StrippedFields();

/// Options of TrackUpdate. Top-level members in `implicit` count as `{}` on both sides when
/// absent: kube compares typed Go objects, whose non-pointer structs (`spec`, `status` of built-in
/// types) always exist, so filling them creates no `.` entry. Members in `ignored` (top-level, or
/// a dotted path of fields such as `status.conditions`) are never tracked, nor anything below
/// them (kube's reset fields, e.g. `status` on the create of a type with a status subresource).
struct TrackOptions {
  std::vector<std::string> implicit;  ///< top-level members that always exist (`{}` when absent)
  std::vector<std::string> ignored;   ///< members never tracked: top-level, or dotted (`status.conditions`)
};

/// kube's fieldmanager Update for a POST/PUT/non-apply PATCH: the fields `obj` changes relative
/// to `live` (nullptr = create) move to `who`'s Update entry (removed from the others), removed
/// fields leave every set, and `obj`'s managedFields are rewritten (at most 10 Update entries:
/// older ones merge into `ancient-changes`). The entries come from `obj` when it carries a
/// non-empty list (not for subresources), else from `live`; when nothing changed they are kept
/// byte-identical. An update of an object without managedFields is not tracked (kube's
/// skipNonApplied); a list whose entries are all empty (`[{}]`) resets them. Never fails:
/// undecodable managedFields are dropped.
void TrackUpdate(const boost::json::object* live, boost::json::object& obj, const WriteManager& who,
                 const TypeSchema* schema, const TrackOptions& options = {});

/// The outcome of an apply.
struct ApplyOutcome {
  boost::json::object object;  ///< the merged object, with managedFields
  bool changed = false;        ///< false for a no-op apply
};

/// kube's fieldmanager Apply: merges `config` into `live` (nullptr = create; both without
/// managedFields handling by the caller), prunes fields `who` applied before and no longer
/// applies unless another manager owns them, and updates the entries. Conflicts with other
/// managers' fields whose values change are an error unless `force` (then they are taken).
/// **Errors:** 409 Conflict with FieldManagerConflict causes and kube's message; 400 for a bad
/// list element or undecodable live managedFields.
Result<ApplyOutcome> ApplyConfiguration(const boost::json::object* live, const boost::json::object& config,
                                        const WriteManager& who, bool force, const TypeSchema* schema);

/// kube's prefixFromUserAgent: the part of `user_agent` before the first '/', without
/// non-printable characters, cut at 128 bytes.
std::string ManagerFromUserAgent(std::string_view user_agent);

/// kube's ValidateFieldManager: at most 128 bytes (TooLong) and printable characters only.
std::vector<FieldError> ValidateFieldManager(std::string_view field_manager);

}  // namespace kube::apiserver::rest
