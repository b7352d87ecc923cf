#include <kube/apiserver/table.hpp>

#include <charconv>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/discovery/internal/json_out.hpp"
#include "apiserver/discovery/internal/json_path.hpp"
#include "apiserver/discovery/internal/media_type.hpp"
#include "apiserver/discovery/internal/table_printers.hpp"

namespace kube::apiserver {
namespace {

namespace bj = boost::json;
using internal::AppendJsonString;
using internal::CellWriter;
using internal::ColumnSpec;

Error NotAcceptable(std::string message) {
  return MakeError(406, reason::kNotAcceptable, std::move(message));
}

void AppendColumn(std::string& out, std::string_view name, std::string_view type,
                  std::string_view format, std::string_view description, int32_t priority) {
  out += "{\"name\":";
  AppendJsonString(out, name);
  out += ",\"type\":";
  AppendJsonString(out, type);
  out += ",\"format\":";
  AppendJsonString(out, format);
  out += ",\"description\":";
  AppendJsonString(out, description);
  out += ",\"priority\":";
  out += std::to_string(priority);
  out.push_back('}');
}

void AppendListMeta(std::string& out, std::string_view resource_version,
                    std::string_view continue_token, std::optional<int64_t> remaining) {
  out += "\"metadata\":{";
  bool first = true;
  auto sep = [&] {
    if (!first) out.push_back(',');
    first = false;
  };
  if (!resource_version.empty()) {
    sep();
    out += "\"resourceVersion\":";
    AppendJsonString(out, resource_version);
  }
  if (!continue_token.empty()) {
    sep();
    out += "\"continue\":";
    AppendJsonString(out, continue_token);
  }
  if (remaining) {
    sep();
    out += "\"remainingItemCount\":";
    out += std::to_string(*remaining);
  }
  out.push_back('}');
}

// The object of a row with includeObject=Object: the stored object, with kind/apiVersion
// filled in from the resource when the stored JSON lacks them (kube always sets them).
void AppendFullObject(std::string& out, const ResourceInfo& info, const Object& obj) {
  if (!obj.Kind().empty() && !obj.ApiVersion().empty()) {
    out.append(obj.Json());
    return;
  }
  bj::object json = obj.ToJson();
  if (obj.Kind().empty()) json["kind"] = info.kind;
  if (obj.ApiVersion().empty()) json["apiVersion"] = info.ApiVersion();
  out += SerializeJson(json);
}

// Go's %v of a float64 (strconv 'g', shortest).
std::string GoFloatText(double d) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::general);
  return std::string(buf, static_cast<std::size_t>(res.ptr - buf));
}

// One cell of a custom column (apiextensions tableconvertor: string columns print the JSONPath
// result as text, the others go through cellForJSONValue).
void CustomCell(CellWriter& cells, const TableColumn& col, const bj::value* v, Clock::WallTime now) {
  if (v == nullptr || v->is_null()) {
    cells.Null();
    return;
  }
  if (col.type == "string") {
    if (v->is_string()) {
      cells.String(v->get_string());
    } else if (v->is_int64()) {
      cells.String(std::to_string(v->get_int64()));
    } else if (v->is_uint64()) {
      cells.String(std::to_string(v->get_uint64()));
    } else if (v->is_double()) {
      cells.String(GoFloatText(v->get_double()));
    } else if (v->is_bool()) {
      cells.String(v->get_bool() ? "true" : "false");
    } else {
      cells.String(SerializeJson(*v));  // maps and slices print as JSON
    }
    return;
  }
  if (col.type == "integer") {
    if (v->is_int64()) return cells.Int(v->get_int64());
    if (v->is_uint64()) return cells.Int(static_cast<int64_t>(v->get_uint64()));
    if (v->is_double()) return cells.Int(static_cast<int64_t>(v->get_double()));
  } else if (col.type == "number") {
    if (v->is_int64()) return cells.Number(static_cast<double>(v->get_int64()));
    if (v->is_uint64()) return cells.Number(static_cast<double>(v->get_uint64()));
    if (v->is_double()) return cells.Number(v->get_double());
  } else if (col.type == "boolean") {
    if (v->is_bool()) return cells.Bool(v->get_bool());
  } else if (col.type == "date") {
    if (v->is_string()) {
      const std::string_view s = v->get_string();
      if (s.empty() || s == "null") return cells.String("<unknown>");
      auto t = ParseTime(s);
      return cells.String(t.ok() ? HumanDuration(now - *t) : "<invalid>");
    }
  }
  cells.Null();
}

enum class ConvertorKind { kBuiltin, kCustom, kDefault };

std::string RenderTableImpl(const ResourceInfo& info, const std::vector<ObjectPtr>& objects,
                            const TableOptions& options, bool single_object) {
  const internal::BuiltinPrinter* printer = internal::FindBuiltinPrinter(info.group, info.resource);
  const ConvertorKind convertor = printer != nullptr            ? ConvertorKind::kBuiltin
                                  : !info.table_columns.empty() ? ConvertorKind::kCustom
                                                                : ConvertorKind::kDefault;

  std::string out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",";
  if (single_object) {
    AppendListMeta(out, objects.empty() ? std::string_view() : objects.front()->ResourceVersion(),
                   {}, std::nullopt);
  } else {
    AppendListMeta(out, options.resource_version, options.continue_token,
                   options.remaining_item_count);
  }

  out += ",\"columnDefinitions\":";
  if (!options.column_definitions) {
    out += "null";
  } else {
    out.push_back('[');
    switch (convertor) {
      case ConvertorKind::kBuiltin:
        for (std::size_t i = 0; i < printer->columns.size(); ++i) {
          const ColumnSpec& c = printer->columns[i];
          if (i != 0) out.push_back(',');
          AppendColumn(out, c.name, c.type, c.format, c.description, c.priority);
        }
        break;
      case ConvertorKind::kCustom:
        AppendColumn(out, "Name", "string", "name", internal::kNameDescription, 0);
        for (const TableColumn& c : info.table_columns) {
          out.push_back(',');
          AppendColumn(out, c.name, c.type, c.format,
                       c.description.empty()
                           ? "Custom resource definition column (in JSONPath format): " + c.json_path
                           : c.description,
                       c.priority);
        }
        break;
      case ConvertorKind::kDefault:
        AppendColumn(out, "Name", "string", "name", internal::kNameDescription, 0);
        out.push_back(',');
        AppendColumn(out, "Created At", "date", "", internal::kCreationTimestampDescription, 0);
        break;
    }
    out.push_back(']');
  }

  // kube's default convertor leaves Rows nil for an empty list; the printers make an empty slice.
  if (objects.empty() && convertor == ConvertorKind::kDefault) {
    out += ",\"rows\":null}";
    return out;
  }
  out += ",\"rows\":[";
  std::string conditions;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const Object& obj = *objects[i];
    if (i != 0) out.push_back(',');
    out += "{\"cells\":[";
    conditions.clear();
    CellWriter cells(out);
    switch (convertor) {
      case ConvertorKind::kBuiltin:
        printer->row(obj.ToJson(), options.now, cells, conditions);
        break;
      case ConvertorKind::kCustom: {
        const bj::value root = obj.ToJson();
        cells.String(obj.Name());
        for (const TableColumn& c : info.table_columns) {
          CustomCell(cells, c, internal::EvalJsonPath(root, c.json_path), options.now);
        }
        break;
      }
      case ConvertorKind::kDefault: {
        cells.String(obj.Name());
        const std::string_view created = obj.CreationTimestamp();
        auto t = ParseTime(created);
        cells.String(created.empty() ? std::string("0001-01-01T00:00:00Z")
                                     : t.ok() ? FormatTime(*t) : std::string(created));
        break;
      }
    }
    out.push_back(']');
    if (!conditions.empty()) {
      out += ",\"conditions\":";
      out += conditions;
    }
    out += ",\"object\":";
    switch (options.include_object) {
      case TableOptions::IncludeObject::kNone:
        out += "null";
        break;
      case TableOptions::IncludeObject::kMetadata:
        out += RenderPartialObjectMetadata(obj);
        break;
      case TableOptions::IncludeObject::kObject:
        AppendFullObject(out, info, obj);
        break;
    }
    out.push_back('}');
  }
  out += "]}";
  return out;
}

}  // namespace

Result<OutputKind> NegotiateOutput(std::string_view accept, bool is_list) {
  const auto ranges = internal::ParseAccept(accept);
  if (ranges.empty() && accept.find_first_not_of(" \t") == std::string_view::npos) {
    return OutputKind::kObject;
  }
  for (const internal::MediaRange& m : ranges) {
    if (!m.AcceptsJson()) continue;  // protobuf, yaml, cbor: not spoken here
    if (!m.HasConversion()) return OutputKind::kObject;
    if (m.Param("g") != "meta.k8s.io" || m.Param("v") != "v1") continue;
    const auto as = m.Param("as");
    if (as == "Table") return OutputKind::kTable;
    if (as == "PartialObjectMetadata") {
      if (is_list) {
        return NotAcceptable("you requested PartialObjectMetadata, but the requested object is a list");
      }
      return OutputKind::kPartialObjectMetadata;
    }
    if (as == "PartialObjectMetadataList") {
      if (!is_list) {
        return NotAcceptable(
            "you requested PartialObjectMetadataList, but the requested object is not a list");
      }
      return OutputKind::kPartialObjectMetadataList;
    }
  }
  return NewNotAcceptable({std::string(kAcceptedMediaTypes)});
}

std::string_view ContentTypeFor(OutputKind kind) {
  switch (kind) {
    case OutputKind::kObject:
    case OutputKind::kTable:
    case OutputKind::kPartialObjectMetadata:
    case OutputKind::kPartialObjectMetadataList:
      return "application/json";
  }
  return "application/json";
}

Result<TableOptions::IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return TableOptions::IncludeObject::kMetadata;
  if (value == "Object") return TableOptions::IncludeObject::kObject;
  if (value == "None") return TableOptions::IncludeObject::kNone;
  return NewBadRequest(fmt::format("unrecognized includeObject value: {}", QuoteJson(value)));
}

std::string RenderTable(const ResourceInfo& info, const std::vector<ObjectPtr>& objects,
                        const TableOptions& options) {
  return RenderTableImpl(info, objects, options, /*single_object=*/false);
}

std::string RenderObjectTable(const ResourceInfo& info, const ObjectPtr& object,
                              const TableOptions& options) {
  return RenderTableImpl(info, {object}, options, /*single_object=*/true);
}

std::string RenderBookmarkTable(std::string_view resource_version) {
  std::string out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",";
  AppendListMeta(out, resource_version, {}, std::nullopt);
  out += ",\"columnDefinitions\":[],\"rows\":[]}";
  return out;
}

std::vector<TableColumn> CustomResourceColumns(const bj::value& additional_printer_columns) {
  std::vector<TableColumn> out;
  if (const bj::array* columns = additional_printer_columns.if_array()) {
    for (const bj::value& v : *columns) {
      const bj::object* c = v.if_object();
      if (c == nullptr) continue;
      auto str = [&](std::string_view key) -> std::string {
        const bj::value* f = c->if_contains(key);
        return f != nullptr && f->is_string() ? std::string(f->get_string()) : std::string();
      };
      TableColumn col;
      col.name = str("name");
      col.type = str("type");
      col.format = str("format");
      col.description = str("description");
      col.json_path = str("jsonPath");
      if (const bj::value* p = c->if_contains("priority"); p != nullptr && p->is_int64()) {
        col.priority = static_cast<int32_t>(p->get_int64());
      }
      if (col.name.empty() || col.type.empty() || col.json_path.empty()) continue;
      out.push_back(std::move(col));
    }
  }
  if (out.empty()) {
    out.push_back(TableColumn{.name = "Age",
                              .type = "date",
                              .format = "",
                              .description = std::string(internal::kCreationTimestampDescription),
                              .priority = 0,
                              .json_path = ".metadata.creationTimestamp"});
  }
  return out;
}

std::string HumanDuration(std::chrono::nanoseconds d) {
  using std::chrono::hours;
  using std::chrono::minutes;
  using std::chrono::seconds;
  const int64_t secs = std::chrono::duration_cast<seconds>(d).count();  // truncates toward 0
  if (secs < -1) return "<invalid>";
  if (secs < 0) return "0s";
  if (secs < 60 * 2) return fmt::format("{}s", secs);
  const int64_t mins = std::chrono::duration_cast<minutes>(d).count();
  if (mins < 10) {
    const int64_t s = secs % 60;
    return s == 0 ? fmt::format("{}m", mins) : fmt::format("{}m{}s", mins, s);
  }
  if (mins < 60 * 3) return fmt::format("{}m", mins);
  const int64_t hrs = std::chrono::duration_cast<hours>(d).count();
  if (hrs < 8) {
    const int64_t m = mins % 60;
    return m == 0 ? fmt::format("{}h", hrs) : fmt::format("{}h{}m", hrs, m);
  }
  if (hrs < 48) return fmt::format("{}h", hrs);
  if (hrs < 24 * 8) {
    const int64_t h = hrs % 24;
    return h == 0 ? fmt::format("{}d", hrs / 24) : fmt::format("{}d{}h", hrs / 24, h);
  }
  if (hrs < 24 * 365 * 2) return fmt::format("{}d", hrs / 24);
  if (hrs < 24 * 365 * 8) {
    const int64_t dy = (hrs / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hrs / 24 / 365) : fmt::format("{}y{}d", hrs / 24 / 365, dy);
  }
  return fmt::format("{}y", hrs / 24 / 365);
}

}  // namespace kube::apiserver
