// CustomResourceDefinitions: strategy, status and conversion to ResourceInfo (apiserver-semantics.md §6).

#include "apiserver/rest/crd.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <boost/json.hpp>

#include <kube/apiserver/table.hpp>
#include <kube/core/json.hpp>
#include <kube/core/type_schema.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/names.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

std::vector<std::string> Strings(const json::object& obj, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : v->get_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

const json::array* VersionsOf(const json::object& crd) {
  const auto* spec = ObjectAt(crd, "spec");
  if (spec == nullptr) return nullptr;
  const auto* v = spec->if_contains("versions");
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

bool BoolAt(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

json::array StringArray(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

json::object AcceptedNamesJson(const CrdNames& n) {
  json::object out{{"plural", n.plural}, {"singular", n.singular}};
  if (!n.short_names.empty()) out["shortNames"] = StringArray(n.short_names);
  out["kind"] = n.kind;
  out["listKind"] = n.list_kind;
  if (!n.categories.empty()) out["categories"] = StringArray(n.categories);
  return out;
}

void ValidateDns1035(std::vector<FieldError>& errs, const std::string& field, std::string_view value,
                     bool required) {
  if (value.empty()) {
    if (required) errs.push_back(FieldError::Required(field, ""));
    return;
  }
  if (auto msgs = IsDns1035Label(value); !msgs.empty()) {
    errs.push_back(FieldError::Invalid(field, QuoteJson(value), Join(msgs, ",")));
  }
}

void ValidateVersion(const json::object& version, const std::string& path, std::vector<FieldError>& errs) {
  // Schema (required in apiextensions.k8s.io/v1).
  const auto* schema = ObjectAt(version, "schema");
  const auto* openapi = schema != nullptr ? schema->if_contains("openAPIV3Schema") : nullptr;
  if (openapi == nullptr || !openapi->is_object()) {
    errs.push_back(FieldError::Required(path + ".schema.openAPIV3Schema", "schemas are required"));
  } else if (auto parsed = ParseTypeSchema(*openapi); !parsed.ok()) {
    errs.push_back(FieldError::Invalid(path + ".schema.openAPIV3Schema", "", parsed.error().message));
  } else if (const auto type = StringAt(openapi->get_object(), "type"); type != "object") {
    if (type.empty()) {
      errs.push_back(FieldError::Required(path + ".schema.openAPIV3Schema.type", "must be object at the root"));
    } else {
      errs.push_back(FieldError::Invalid(path + ".schema.openAPIV3Schema.type", QuoteJson(type),
                                         "must be object at the root"));
    }
  }
  // Subresources.
  if (const auto* subs = ObjectAt(version, "subresources")) {
    if (const auto* scale = ObjectAt(*subs, "scale")) {
      const std::string sp = path + ".subresources.scale";
      const auto spec_path = StringAt(*scale, "specReplicasPath");
      if (spec_path.empty()) {
        errs.push_back(FieldError::Required(sp + ".specReplicasPath", ""));
      } else if (!spec_path.starts_with(".spec.") || SimpleJsonPathToPointer(spec_path).empty()) {
        errs.push_back(FieldError::Invalid(sp + ".specReplicasPath", QuoteJson(spec_path),
                                           "should be a json path under .spec"));
      }
      const auto status_path = StringAt(*scale, "statusReplicasPath");
      if (status_path.empty()) {
        errs.push_back(FieldError::Required(sp + ".statusReplicasPath", ""));
      } else if (!status_path.starts_with(".status.") || SimpleJsonPathToPointer(status_path).empty()) {
        errs.push_back(FieldError::Invalid(sp + ".statusReplicasPath", QuoteJson(status_path),
                                           "should be a json path under .status"));
      }
      const auto selector_path = StringAt(*scale, "labelSelectorPath");
      if (!selector_path.empty() &&
          ((!selector_path.starts_with(".spec.") && !selector_path.starts_with(".status.")) ||
           SimpleJsonPathToPointer(selector_path).empty())) {
        errs.push_back(FieldError::Invalid(sp + ".labelSelectorPath", QuoteJson(selector_path),
                                           "should be a json path under either .spec or .status"));
      }
    }
  }
  // Printer columns (kube's ValidateCustomResourceColumnDefinition: sorted sets joined by ",",
  // and the Go field name `JSONPath` in the path).
  if (const auto* cols = version.if_contains("additionalPrinterColumns"); cols != nullptr && cols->is_array()) {
    static const std::vector<std::string> kTypes = {"boolean", "date", "integer", "number", "string"};
    static const std::vector<std::string> kFormats = {"byte", "date", "date-time", "double",
                                                      "float", "int32", "int64", "password"};
    static const std::string kTypesMsg = "must be one of " + Join(kTypes, ",");
    static const std::string kFormatsMsg = "must be one of " + Join(kFormats, ",");
    std::size_t i = 0;
    for (const auto& c : cols->get_array()) {
      const std::string cp = path + ".additionalPrinterColumns[" + std::to_string(i++) + "]";
      if (!c.is_object()) continue;
      const auto& col = c.get_object();
      if (StringAt(col, "name").empty()) errs.push_back(FieldError::Required(cp + ".name", ""));
      const auto type = StringAt(col, "type");
      if (type.empty()) {
        errs.push_back(FieldError::Required(cp + ".type", kTypesMsg));
      } else if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
        errs.push_back(FieldError::Invalid(cp + ".type", QuoteJson(type), kTypesMsg));
      }
      const auto format = StringAt(col, "format");
      if (!format.empty() && std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end()) {
        errs.push_back(FieldError::Invalid(cp + ".format", QuoteJson(format), kFormatsMsg));
      }
      const auto json_path = StringAt(col, "jsonPath");
      if (json_path.empty()) {
        errs.push_back(FieldError::Required(cp + ".JSONPath", ""));
      } else if (json_path.front() != '.') {
        errs.push_back(FieldError::Invalid(cp + ".JSONPath", QuoteJson(json_path), "must be a simple json path starting with ."));
      }
    }
  }
  // Selectable fields.
  if (const auto* fields = version.if_contains("selectableFields"); fields != nullptr && fields->is_array()) {
    std::set<std::string> seen;
    std::size_t i = 0;
    for (const auto& f : fields->get_array()) {
      const std::string fp = path + ".selectableFields[" + std::to_string(i++) + "].jsonPath";
      const auto jp = f.is_object() ? StringAt(f.get_object(), "jsonPath") : std::string_view();
      if (jp.empty()) {
        errs.push_back(FieldError::Required(fp, ""));
      } else if (SimpleJsonPathToPointer(jp).empty()) {
        errs.push_back(FieldError::Invalid(fp, QuoteJson(jp), "must be a simple json path starting with ."));
      } else if (!seen.insert(std::string(jp)).second) {
        errs.push_back(FieldError::Duplicate(fp, QuoteJson(jp)));
      }
    }
  }
}

}  // namespace

ResourceInfo CrdResourceInfo() {
  ResourceInfo info;
  info.group = std::string(kCrdGroup);
  info.version = "v1";
  info.resource = std::string(kCrdResource);
  info.singular = "customresourcedefinition";
  info.kind = "CustomResourceDefinition";
  info.list_kind = "CustomResourceDefinitionList";
  info.namespaced = false;
  info.builtin = true;
  info.schema = OpenApiSchema(info.group, info.version, info.kind);
  info.short_names = {"crd", "crds"};
  info.categories = {"api-extensions"};
  info.has_status = true;
  info.allow_unconditional_update = false;
  info.tracks_generation = true;
  return info;
}

void RegisterCustomResourceDefinitions(Registry& registry) { registry.Add(CrdResourceInfo()); }

bool IsCrdResource(const ResourceInfo& info) {
  return info.group == kCrdGroup && info.resource == kCrdResource;
}

bool CrdIsTerminating(const json::object& crd) {
  if (MetadataOf(crd).contains("deletionTimestamp")) return true;
  const auto* status = ObjectAt(crd, "status");
  const auto* conditions = status != nullptr ? status->if_contains("conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& c : conditions->get_array()) {
    if (c.is_object() && StringAt(c.get_object(), "type") == "Terminating" &&
        StringAt(c.get_object(), "status") == "True") {
      return true;
    }
  }
  return false;
}

Error NewCrdTerminatingCreate(const GroupResource& gr) {
  Error e = NewMethodNotSupported(gr, "create");
  e.message = "create not allowed while custom resource definition is terminating";
  return e;
}

CrdNames NamesOf(const json::object& crd) {
  CrdNames n;
  const auto* spec = ObjectAt(crd, "spec");
  if (spec == nullptr) return n;
  n.group = std::string(StringAt(*spec, "group"));
  const auto* names = ObjectAt(*spec, "names");
  if (names == nullptr) return n;
  n.plural = std::string(StringAt(*names, "plural"));
  n.singular = std::string(StringAt(*names, "singular"));
  n.kind = std::string(StringAt(*names, "kind"));
  n.list_kind = std::string(StringAt(*names, "listKind"));
  if (n.singular.empty()) n.singular = Lower(n.kind);
  if (n.list_kind.empty() && !n.kind.empty()) n.list_kind = n.kind + "List";
  n.short_names = Strings(*names, "shortNames");
  n.categories = Strings(*names, "categories");
  return n;
}

void DefaultCrd(json::object& crd, bool creating) {
  auto& spec = EnsureObject(crd, "spec");
  if (auto* names = ObjectAt(spec, "names")) {
    const std::string kind(StringAt(*names, "kind"));
    if (StringAt(*names, "singular").empty() && !kind.empty()) (*names)["singular"] = Lower(kind);
    if (StringAt(*names, "listKind").empty() && !kind.empty()) (*names)["listKind"] = kind + "List";
  }
  if (ObjectAt(spec, "conversion") == nullptr) spec["conversion"] = json::object{{"strategy", "None"}};
  if (creating) {
    auto& meta = EnsureObject(crd, "metadata");
    auto& fin = meta["finalizers"];
    if (!fin.is_array()) fin = json::array();
    bool has = false;
    for (const auto& f : fin.get_array()) has = has || (f.is_string() && f.get_string() == kCrdCleanupFinalizer);
    if (!has) fin.get_array().emplace_back(kCrdCleanupFinalizer);
  }
}

std::vector<FieldError> ValidateCrd(const json::object& crd, const json::object* old) {
  std::vector<FieldError> errs;
  const CrdNames n = NamesOf(crd);
  const auto* spec = ObjectAt(crd, "spec");
  const json::object empty;
  const json::object& s = spec != nullptr ? *spec : empty;
  const auto name = StringAt(MetadataOf(crd), "name");
  if (!name.empty() && name != n.plural + "." + n.group) {
    errs.push_back(FieldError::Invalid("metadata.name", QuoteJson(name), "must be spec.names.plural+\".\"+spec.group"));
  }
  if (n.group.empty()) {
    errs.push_back(FieldError::Required("spec.group", ""));
  } else if (auto msgs = IsDns1123Subdomain(n.group); !msgs.empty()) {
    errs.push_back(FieldError::Invalid("spec.group", QuoteJson(n.group), Join(msgs, ",")));
  } else if (n.group.find('.') == std::string::npos) {
    errs.push_back(FieldError::Invalid("spec.group", QuoteJson(n.group), "should be a domain with at least one dot"));
  }
  const auto scope = StringAt(s, "scope");
  if (scope.empty()) {
    errs.push_back(FieldError::Required("spec.scope", ""));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    errs.push_back(FieldError::NotSupported("spec.scope", QuoteJson(scope), {"Cluster", "Namespaced"}));
  }
  // Versions.
  const json::array* versions = VersionsOf(crd);
  int storage = 0;
  bool unique_names = true;
  std::set<std::string> seen;
  if (versions != nullptr) {
    std::size_t i = 0;
    for (const auto& v : *versions) {
      const std::string path = "spec.versions[" + std::to_string(i++) + "]";
      if (!v.is_object()) continue;
      const auto& ver = v.get_object();
      const auto vname = StringAt(ver, "name");
      if (vname.empty()) {
        errs.push_back(FieldError::Required(path + ".name", ""));
      } else if (auto msgs = IsDns1035Label(vname); !msgs.empty()) {
        errs.push_back(FieldError::Invalid(path + ".name", QuoteJson(vname), Join(msgs, ",")));
      }
      if (!seen.insert(std::string(vname)).second) unique_names = false;
      if (BoolAt(ver, "storage")) ++storage;
      ValidateVersion(ver, path, errs);
    }
  }
  // kube prints the versions as a Go value (%#v) here; kubecpp leaves the value out. There is no
  // "served" rule: a CRD may serve no version.
  if (versions == nullptr || versions->empty()) {
    errs.push_back(FieldError::Required("spec.versions", ""));
  } else {
    if (!unique_names) errs.push_back(FieldError::Invalid("spec.versions", "", "must contain unique version names"));
    if (storage != 1) {
      errs.push_back(FieldError::Invalid("spec.versions", "", "must have exactly one version marked as storage version"));
    }
  }
  // Names.
  ValidateDns1035(errs, "spec.names.plural", n.plural, true);
  ValidateDns1035(errs, "spec.names.singular", n.singular, true);
  if (n.kind.empty()) {
    errs.push_back(FieldError::Required("spec.names.kind", ""));
  } else if (auto msgs = IsDns1035Label(Lower(n.kind)); !msgs.empty()) {
    errs.push_back(FieldError::Invalid("spec.names.kind", QuoteJson(n.kind),
                                       "may have mixed case, but should otherwise match: " + Join(msgs, ",")));
  }
  if (!n.kind.empty() && n.kind == n.list_kind) {
    errs.push_back(FieldError::Invalid("spec.names.listKind", QuoteJson(n.list_kind), "kind and listKind may not be the same"));
  }
  for (std::size_t i = 0; i < n.short_names.size(); ++i) {
    ValidateDns1035(errs, "spec.names.shortNames[" + std::to_string(i) + "]", n.short_names[i], false);
  }
  for (std::size_t i = 0; i < n.categories.size(); ++i) {
    ValidateDns1035(errs, "spec.names.categories[" + std::to_string(i) + "]", n.categories[i], false);
  }
  if (old != nullptr) {
    for (auto& e : ValidateCrdUpdate(crd, *old)) errs.push_back(std::move(e));
  } else if (storage == 0) {
    // kube's create strategy records the storage version in status.storedVersions before
    // validating it: with none, that check fails too.
    errs.push_back(FieldError::Invalid("status.storedVersions", "[]string(nil)", "must have at least one stored version"));
  }
  return errs;
}

std::vector<FieldError> ValidateCrdUpdate(const json::object& crd, const json::object& old) {
  std::vector<FieldError> errs;
  const CrdNames n = NamesOf(crd);
  const CrdNames o = NamesOf(old);
  auto immutable = [&](const char* field, const std::string& now, const std::string& before) {
    if (!before.empty() && now != before) errs.push_back(FieldError::Invalid(field, QuoteJson(now), "field is immutable"));
  };
  immutable("spec.group", n.group, o.group);
  immutable("spec.names.plural", n.plural, o.plural);
  // Scope and kind are fixed once the CRD is established (kube's requireImmutableNames).
  bool established = false;
  if (const auto* status = ObjectAt(old, "status")) {
    if (const auto* conds = status->if_contains("conditions"); conds != nullptr && conds->is_array()) {
      for (const auto& c : conds->get_array()) {
        if (c.is_object() && StringAt(c.get_object(), "type") == "Established" &&
            StringAt(c.get_object(), "status") == "True") {
          established = true;
        }
      }
    }
  }
  if (established) {
    const auto* spec = ObjectAt(crd, "spec");
    const auto* old_spec = ObjectAt(old, "spec");
    immutable("spec.scope", spec != nullptr ? std::string(StringAt(*spec, "scope")) : "",
              old_spec != nullptr ? std::string(StringAt(*old_spec, "scope")) : "");
    immutable("spec.names.kind", n.kind, o.kind);
  }
  return errs;
}

std::string SimpleJsonPathToPointer(std::string_view json_path) {
  if (json_path.size() < 2 || json_path.front() != '.') return {};
  std::string out;
  std::size_t i = 1;
  while (i <= json_path.size()) {
    const std::size_t dot = json_path.find('.', i);
    const std::string_view token = json_path.substr(i, dot == std::string_view::npos ? std::string_view::npos : dot - i);
    if (token.empty()) return {};
    for (char c : token) {
      if (c == '[' || c == ']' || c == '*' || c == '@' || c == '?' || c == '(' || c == ')' || c == '$') return {};
    }
    out += '/';
    for (char c : token) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    if (dot == std::string_view::npos) break;
    i = dot + 1;
  }
  return out;
}

std::vector<ResourceInfo> CrdServedResources(const json::object& crd) {
  std::vector<ResourceInfo> out;
  const CrdNames n = NamesOf(crd);
  const auto* spec = ObjectAt(crd, "spec");
  const json::array* versions = VersionsOf(crd);
  if (spec == nullptr || versions == nullptr || n.plural.empty() || n.kind.empty()) return out;
  const bool namespaced = StringAt(*spec, "scope") != "Cluster";
  for (const auto& v : *versions) {
    if (!v.is_object()) continue;
    const auto& ver = v.get_object();
    if (!BoolAt(ver, "served") || StringAt(ver, "name").empty()) continue;
    ResourceInfo info;
    info.group = n.group;
    info.version = std::string(StringAt(ver, "name"));
    info.resource = n.plural;
    info.singular = n.singular;
    info.kind = n.kind;
    info.list_kind = n.list_kind;
    info.namespaced = namespaced;
    info.short_names = n.short_names;
    info.categories = n.categories;
    info.allow_unconditional_update = false;
    info.tracks_generation = true;
    if (const auto* subs = ObjectAt(ver, "subresources")) {
      info.has_status = subs->contains("status");
      if (const auto* scale = ObjectAt(*subs, "scale")) {
        info.has_scale = true;
        info.scale_spec_replicas_path = SimpleJsonPathToPointer(StringAt(*scale, "specReplicasPath"));
        info.scale_status_replicas_path = SimpleJsonPathToPointer(StringAt(*scale, "statusReplicasPath"));
        info.scale_label_selector_path = SimpleJsonPathToPointer(StringAt(*scale, "labelSelectorPath"));
      }
    }
    const auto* cols = ver.if_contains("additionalPrinterColumns");
    info.table_columns = CustomResourceColumns(cols != nullptr ? *cols : json::value(json::array()));
    if (const auto* fields = ver.if_contains("selectableFields"); fields != nullptr && fields->is_array()) {
      for (const auto& f : fields->get_array()) {
        if (!f.is_object()) continue;
        const auto jp = StringAt(f.get_object(), "jsonPath");
        std::string pointer = SimpleJsonPathToPointer(jp);
        if (pointer.empty()) continue;
        info.field_selectors.emplace_back(std::string(jp.substr(1)), std::move(pointer));
      }
    }
    if (const auto* schema = ObjectAt(ver, "schema")) {
      if (const auto* openapi = schema->if_contains("openAPIV3Schema")) {
        if (auto parsed = ParseTypeSchema(*openapi); parsed.ok()) info.schema = *parsed;
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

NamesConflict FindNamesConflict(const CrdNames& names, const std::vector<ResourcePtr>& others) {
  std::set<std::string, std::less<>> resources;
  std::set<std::string, std::less<>> kinds;
  for (const auto& r : others) {
    resources.insert(r->resource);
    if (!r->singular.empty()) resources.insert(r->singular);
    for (const auto& s : r->short_names) resources.insert(s);
    kinds.insert(r->kind);
    if (!r->list_kind.empty()) kinds.insert(r->list_kind);
  }
  auto in_use = [](std::string_view s) { return QuoteJson(s) + " is already in use"; };
  if (resources.contains(names.plural)) return {"PluralConflict", in_use(names.plural)};
  if (resources.contains(names.singular)) return {"SingularConflict", in_use(names.singular)};
  for (const auto& s : names.short_names) {
    if (resources.contains(s)) return {"ShortNamesConflict", in_use(s)};
  }
  if (kinds.contains(names.kind)) return {"KindConflict", in_use(names.kind)};
  if (kinds.contains(names.list_kind)) return {"ListKindConflict", in_use(names.list_kind)};
  return {};
}

void SetCrdCondition(json::object& crd, std::string_view type, std::string_view status, std::string_view reason,
                     std::string_view message, std::string_view now) {
  auto& st = EnsureObject(crd, "status");
  auto& conds = st["conditions"];
  if (!conds.is_array()) conds = json::array();
  json::object cond{{"type", type}, {"status", status}, {"lastTransitionTime", now},
                    {"reason", reason}, {"message", message}};
  for (auto& c : conds.get_array()) {
    if (!c.is_object() || StringAt(c.get_object(), "type") != type) continue;
    const auto& old = c.get_object();
    if (StringAt(old, "status") == status && old.contains("lastTransitionTime")) {
      cond["lastTransitionTime"] = old.at("lastTransitionTime");
    }
    c = std::move(cond);
    return;
  }
  conds.get_array().emplace_back(std::move(cond));
}

bool CrdConditionTrue(const json::object& crd, std::string_view type) {
  const auto* st = ObjectAt(crd, "status");
  const auto* conds = st != nullptr ? st->if_contains("conditions") : nullptr;
  if (conds == nullptr || !conds->is_array()) return false;
  for (const auto& c : conds->get_array()) {
    if (c.is_object() && StringAt(c.get_object(), "type") == type) return StringAt(c.get_object(), "status") == "True";
  }
  return false;
}

void UpdateCrdStatus(json::object& crd, const NamesConflict& conflict, std::string_view now) {
  const CrdNames n = NamesOf(crd);
  auto& st = EnsureObject(crd, "status");
  if (conflict.reason.empty()) {
    st["acceptedNames"] = AcceptedNamesJson(n);
  } else if (ObjectAt(st, "acceptedNames") == nullptr) {
    st["acceptedNames"] = json::object{{"plural", ""}, {"kind", ""}};
  }
  // storedVersions: every version ever used for storage (kube only adds).
  auto& stored = st["storedVersions"];
  if (!stored.is_array()) stored = json::array();
  if (const json::array* versions = VersionsOf(crd)) {
    for (const auto& v : *versions) {
      if (!v.is_object() || !BoolAt(v.get_object(), "storage")) continue;
      const auto vname = StringAt(v.get_object(), "name");
      bool has = false;
      for (const auto& s : stored.get_array()) has = has || (s.is_string() && s.get_string() == vname);
      if (!has && !vname.empty()) stored.get_array().emplace_back(vname);
    }
  }
  const bool was_established = CrdConditionTrue(crd, "Established");
  if (conflict.reason.empty()) {
    SetCrdCondition(crd, "NamesAccepted", "True", "NoConflicts", "no conflicts found", now);
    if (!was_established) {
      SetCrdCondition(crd, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", now);
    }
  } else {
    SetCrdCondition(crd, "NamesAccepted", "False", conflict.reason, conflict.message, now);
    if (!was_established) SetCrdCondition(crd, "Established", "False", "NotAccepted", "not all names are accepted", now);
  }
}

}  // namespace kube::apiserver::rest
