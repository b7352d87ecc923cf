#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/apiserver/table.hpp>
#include <kube/core/watch_event.hpp>

#include "apiserver/rest/context.hpp"

/// Response bodies in the representation the client negotiated (object, Table,
/// PartialObjectMetadata[List]) for single objects, lists and watch events.
namespace kube::apiserver::rest {

/// The negotiated representation of one request.
struct OutputFormat {
  OutputKind kind = OutputKind::kObject;
  TableOptions::IncludeObject include_object = TableOptions::IncludeObject::kMetadata;
};

/// Negotiates from the Accept header and the `includeObject` query parameter.
/// **Errors:** 406 NotAcceptable; 400 for a bad `includeObject`.
Result<OutputFormat> Negotiate(const Request& r, bool is_list);

/// Answers with one object (`served_json` = the object as the resource serves it), with extra
/// response `headers` (e.g. `Warning`).
void RespondObject(const Env& env, const Request& r, const OutputFormat& f, int code,
                   std::string_view served_json,
                   const std::vector<std::pair<std::string, std::string>>& headers = {});

/// The `Warning: 299 - "<text>"` headers kube sends for field-validation warnings.
std::vector<std::pair<std::string, std::string>> WarningHeaders(const std::vector<std::string>& warnings);

/// One page of a list, with the stored values of its items.
struct ListPage {
  Revision revision = 0;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
  std::vector<KeyValue> items;
};

/// Answers with a list. Large object lists are streamed in chunks of
/// `env.options.write_chunk_bytes` instead of being assembled in memory.
void RespondList(const Env& env, const Request& r, const OutputFormat& f, const ListPage& page);

/// Encodes the lines of one watch stream in the negotiated representation (Table column
/// definitions only on the first event, as kube's NoHeaders does).
/// **Thread-safety:** one per stream, used by the streaming thread.
class WatchEncoder final {
 public:
  WatchEncoder(const Env& env, const Request& r, OutputFormat f) : env_(env), r_(r), f_(f) {}
  /// `{"type":...,"object":...}\n` for an object event; `served_json` as the resource serves it.
  std::string Event(WatchEventType type, std::string_view served_json);
  /// A BOOKMARK at `revision`; `initial_events_end` adds the k8s.io/initial-events-end annotation.
  std::string Bookmark(Revision revision, bool initial_events_end);
  /// An ERROR event carrying the Status of `err`.
  static std::string ErrorEvent(const Error& err);

 private:
  const Env& env_;
  const Request& r_;
  const OutputFormat f_;
  bool sent_columns_ = false;
};

}  // namespace kube::apiserver::rest
