#include "apiserver/rest/output.hpp"

#include <optional>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/object.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/hpa.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kJson = "application/json";

ObjectPtr ParseServed(std::string_view served_json) {
  auto obj = Object::Parse(served_json);
  if (obj.ok()) return *obj;
  // Stored values are valid JSON objects; this only guards against corrupt storage.
  return *Object::Parse("{}");
}

std::string ListMetadata(const ListPage& page) {
  std::string m = "{\"resourceVersion\":\"" + std::to_string(page.revision) + "\"";
  if (!page.continue_token.empty()) m += ",\"continue\":" + QuoteJson(page.continue_token);
  if (page.remaining_item_count) m += ",\"remainingItemCount\":" + std::to_string(*page.remaining_item_count);
  m += "}";
  return m;
}

TableOptions MakeTableOptions(const Env& env, const OutputFormat& f) {
  TableOptions o;
  o.include_object = f.include_object;
  o.now = env.clock.WallNow();
  return o;
}

}  // namespace

void RespondError(ResponseWriter& w, const Error& err) {
  const int code = err.code >= 100 && err.code <= 599 ? err.code : 500;
  w.Respond(code, kJson, StatusJson(err));
}

void RespondStatus(ResponseWriter& w, const Status& status) {
  const int code = status.error.code >= 100 && status.error.code <= 599 ? status.error.code : 500;
  w.Respond(code, kJson, StatusJson(status));
}

void RespondNotFoundPage(ResponseWriter& w) {
  w.Respond(404, "text/plain; charset=utf-8", "404 page not found\n",
            {{"X-Content-Type-Options", "nosniff"}});
}

Error MapStorageError(const Error& err, const GroupResource& gr, std::string_view name) {
  if (IsNotFound(err)) return NewNotFound(gr, name);
  if (IsAlreadyExists(err)) return NewAlreadyExists(gr, name);
  if (IsConflict(err)) return NewConflict(gr, name, kOptimisticLockErrorMsg);
  return err;
}

Result<OutputFormat> Negotiate(const Request& r, bool is_list) {
  OutputFormat f;
  auto kind = NegotiateOutput(r.http.Header("accept").value_or(""), is_list);
  if (!kind.ok()) return std::move(kind).error();
  f.kind = *kind;
  if (f.kind == OutputKind::kTable) {
    auto include = ParseIncludeObject(QueryParam(r.http.query, "includeObject").value_or(""));
    if (!include.ok()) return std::move(include).error();
    f.include_object = *include;
  }
  return f;
}

void RespondObject(const Env& env, const Request& r, const OutputFormat& f, int code,
                   std::string_view served_json, const std::vector<std::pair<std::string, std::string>>& headers) {
  switch (f.kind) {
    case OutputKind::kObject:
      r.w.Respond(code, kJson, served_json, headers);
      return;
    case OutputKind::kTable:
      r.w.Respond(code, ContentTypeFor(f.kind),
                  RenderObjectTable(*r.info, ParseServed(served_json), MakeTableOptions(env, f)), headers);
      return;
    case OutputKind::kPartialObjectMetadata:
    case OutputKind::kPartialObjectMetadataList:
      r.w.Respond(code, ContentTypeFor(f.kind), RenderPartialObjectMetadata(*ParseServed(served_json)), headers);
      return;
  }
}

std::vector<std::pair<std::string, std::string>> WarningHeaders(const std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& w : warnings) {
    std::string quoted;
    for (char c : w) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    headers.emplace_back("Warning", "299 - \"" + quoted + "\"");
  }
  return headers;
}

namespace {

// Appends `served` as an item of a list: kube's typed lists carry no kind and apiVersion on their
// items. Stored values begin with both (see StampedJson), so this drops a prefix.
void AppendListItem(std::string& out, std::string_view served) {
  auto skip_member = [&](std::string_view at, std::string_view name) -> std::optional<std::string_view> {
    const std::string open = "\"" + std::string(name) + "\":\"";
    if (!at.starts_with(open)) return std::nullopt;
    const auto close = at.find('"', open.size());
    if (close == std::string_view::npos || at.substr(open.size(), close - open.size()).find('\\') !=
                                               std::string_view::npos) {
      return std::nullopt;
    }
    return at.substr(close + 1);
  };
  if (served.starts_with('{')) {
    auto rest = skip_member(served.substr(1), "kind");
    if (rest && rest->starts_with(',')) rest = skip_member(rest->substr(1), "apiVersion");
    if (rest && (rest->starts_with(',') || rest->starts_with('}'))) {
      out.push_back('{');
      out.append(rest->starts_with(',') ? rest->substr(1) : *rest);
      return;
    }
  }
  auto obj = ParseStored(served);
  if (!obj.ok()) {
    out.append(served);
    return;
  }
  obj->erase("kind");
  obj->erase("apiVersion");
  out += json::serialize(*obj);
}

}  // namespace

void RespondList(const Env& env, const Request& r, const OutputFormat& f, const ListPage& page) {
  const ResourceInfo& info = *r.info;
  if (f.kind != OutputKind::kObject) {
    std::vector<ObjectPtr> objects;
    objects.reserve(page.items.size());
    // kube prints the object as stored (internal), before the conversion to the served version:
    // an autoscaling/v1 HorizontalPodAutoscaler's metrics keep their order.
    const bool print_stored = f.kind == OutputKind::kTable && IsHpaV1View(info);
    for (const auto& kv : page.items) {
      objects.push_back(ParseServed(print_stored ? std::string(*kv.value) : ServedJson(info, *kv.value)));
    }
    const std::string rv = std::to_string(page.revision);
    std::string body;
    if (f.kind == OutputKind::kTable) {
      TableOptions o = MakeTableOptions(env, f);
      o.resource_version = rv;
      o.continue_token = page.continue_token;
      o.remaining_item_count = page.remaining_item_count;
      body = RenderTable(info, objects, o);
    } else {
      body = RenderPartialObjectMetadataList(objects, rv, page.continue_token, page.remaining_item_count);
    }
    r.w.Respond(200, ContentTypeFor(f.kind), body);
    return;
  }

  std::string head = "{\"kind\":" + QuoteJson(info.list_kind) + ",\"apiVersion\":" +
                     QuoteJson(info.ApiVersion()) + ",\"metadata\":" + ListMetadata(page) +
                     ",\"items\":[";
  std::size_t total = head.size() + 2;
  for (const auto& kv : page.items) total += kv.value->size() + 1;
  const bool convert = NeedsViewConversion(info);
  const std::size_t chunk = env.options.write_chunk_bytes;
  if (total <= chunk) {
    std::string body = std::move(head);
    body.reserve(total + 64);
    bool first = true;
    for (const auto& kv : page.items) {
      if (!first) body.push_back(',');
      first = false;
      if (convert) {
        AppendListItem(body, ServedJson(info, *kv.value));
      } else {
        AppendListItem(body, *kv.value);
      }
    }
    body += "]}";
    r.w.Respond(200, kJson, body);
    return;
  }
  // Streamed: at most one chunk of the response is held beyond the stored values themselves.
  r.w.BeginStream(200, kJson);
  std::string buf = std::move(head);
  bool first = true;
  for (const auto& kv : page.items) {
    if (!first) buf.push_back(',');
    first = false;
    if (convert) {
      AppendListItem(buf, ServedJson(info, *kv.value));
    } else {
      AppendListItem(buf, *kv.value);
    }
    if (buf.size() >= chunk) {
      if (!r.w.Write(buf)) return;
      buf.clear();
    }
  }
  buf += "]}";
  (void)r.w.Write(buf);
}

std::string WatchEncoder::Event(WatchEventType type, std::string_view served_json) {
  std::string line = "{\"type\":\"";
  line += WatchEventTypeName(type);
  line += "\",\"object\":";
  switch (f_.kind) {
    case OutputKind::kObject:
      line += served_json;
      break;
    case OutputKind::kTable: {
      TableOptions o = MakeTableOptions(env_, f_);
      o.column_definitions = !sent_columns_;
      sent_columns_ = true;
      line += RenderObjectTable(*r_.info, ParseServed(served_json), o);
      break;
    }
    case OutputKind::kPartialObjectMetadata:
    case OutputKind::kPartialObjectMetadataList:
      line += RenderPartialObjectMetadata(*ParseServed(served_json));
      break;
  }
  line += "}\n";
  return line;
}

std::string WatchEncoder::Bookmark(Revision revision, bool initial_events_end) {
  const std::string rv = std::to_string(revision);
  std::string meta = "{\"resourceVersion\":\"" + rv + "\"";
  if (initial_events_end) {
    meta += ",\"annotations\":{\"";
    meta += kInitialEventsEndAnnotation;
    meta += "\":\"true\"}";
  }
  meta += "}";
  std::string object;
  switch (f_.kind) {
    case OutputKind::kObject:
      object = "{\"kind\":" + QuoteJson(r_.info->kind) + ",\"apiVersion\":" +
               QuoteJson(r_.info->ApiVersion()) + ",\"metadata\":" + meta + "}";
      break;
    case OutputKind::kTable:
      object = RenderBookmarkTable(rv);
      break;
    case OutputKind::kPartialObjectMetadata:
    case OutputKind::kPartialObjectMetadataList:
      object = "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":" +
               meta + "}";
      break;
  }
  return "{\"type\":\"BOOKMARK\",\"object\":" + object + "}\n";
}

std::string WatchEncoder::ErrorEvent(const Error& err) {
  return "{\"type\":\"ERROR\",\"object\":" + StatusJson(err) + "}\n";
}

}  // namespace kube::apiserver::rest
