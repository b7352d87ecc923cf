#include <kube/client/dynamic_client.hpp>

#include <optional>
#include <string>
#include <utility>

#include <kube/core/object_list_parser.hpp>
#include <kube/core/protobuf.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

/// A 2xx body must be JSON for us to decode it (client-go decodes by Content-Type too).
Result<void> CheckJson(const HttpResponse& r, const Request& req) {
  const auto ct = FindHeader(r.headers, "Content-Type");
  if (!ct) return Ok();  // servers that omit it send JSON in practice
  const std::string mt = internal::MediaType(*ct);
  if (mt == "application/json" || mt.empty()) return Ok();
  return InternalError("the server responded to " + req.method + " " + req.path + " with content type " +
                       internal::Quote(*ct) + ", which cannot be decoded (expected application/json)");
}

Error DecodeError(const Request& req, const Error& e) {
  return InternalError("unable to decode the response of " + req.method + " " + req.path + ": " + e.message);
}

bool IsProtobuf(const HttpResponse& r) {
  const auto ct = FindHeader(r.headers, "Content-Type");
  return ct && internal::MediaType(*ct) == protobuf::kMediaType;
}

// Parses a list body as it arrives and hands each item to `on_item` (may be empty). A protobuf
// body is transcoded to JSON on the way in.
class ListConsumer final : public BodyConsumer {
 public:
  ListConsumer(const Request& req, const std::function<void(ObjectPtr&)>& on_item) : req_(req), on_item_(on_item) {}

  Result<void> Begin(const HttpResponse& head) override {
    parser_.emplace();
    handed_ = 0;
    transcoder_.reset();
    if (IsProtobuf(head)) {
      transcoder_.emplace([this](std::string_view json) -> Result<void> {
        auto fed = parser_->Feed(json);
        if (!fed) return DecodeError(req_, fed.error());
        Hand(parser_->items());
        return Ok();
      });
      return Ok();
    }
    return CheckJson(head, req_);
  }
  Result<void> Append(std::string_view bytes) override {
    if (transcoder_) return Transcoded(transcoder_->Feed(bytes));
    auto fed = parser_->Feed(bytes);
    if (!fed) return DecodeError(req_, fed.error());
    Hand(parser_->items());
    return Ok();
  }
  Result<ObjectList> Finish() {
    if (!parser_) parser_.emplace();
    if (transcoder_) KUBE_RETURN_IF_ERROR(Transcoded(transcoder_->Finish()));
    auto list = parser_->Finish();
    if (!list) return DecodeError(req_, list.error());
    Hand(list->items);  // items Finish parsed (a list whose kind follows its items)
    return list;
  }
  /// Whether the body was protobuf with a field or kind the table does not know.
  bool unknown_protobuf() const { return unknown_protobuf_; }

 private:
  Result<void> Transcoded(Result<void> r) {
    if (r) return r;
    if (IsUnsupportedMediaType(r.error())) unknown_protobuf_ = true;
    if (r.error().code == 500) return r;  // the parser's error, already wrapped
    return DecodeError(req_, r.error());
  }

  void Hand(std::vector<ObjectPtr>& items) {
    if (!on_item_) return;
    for (; handed_ < items.size(); ++handed_) on_item_(items[handed_]);
  }
  const Request& req_;
  const std::function<void(ObjectPtr&)>& on_item_;
  std::optional<ObjectListParser> parser_;
  std::optional<protobuf::StreamTranscoder> transcoder_;
  std::size_t handed_ = 0;
  bool unknown_protobuf_ = false;
};

}  // namespace

Api::Api(std::shared_ptr<RestClient> rest, GroupVersionResource gvr, std::string ns)
    : rest_(std::move(rest)), gvr_(std::move(gvr)), ns_(std::move(ns)) {}

Api Api::Namespace(std::string ns) const {
  Api copy = *this;
  copy.ns_ = std::move(ns);
  return copy;
}

Api Api::WithStop(std::stop_token stop) const {
  Api copy = *this;
  copy.stop_ = std::move(stop);
  return copy;
}

Result<std::string> Api::Path(std::string_view ns, std::string_view name, std::string_view subresource) const {
  return ResourcePath(gvr_, ns, name, subresource);
}

std::string_view Api::NamespaceFor(const Object& object) const {
  return ns_.empty() ? object.Namespace() : std::string_view(ns_);
}

Result<ObjectPtr> Api::SendForObject(Request request) const {
  request.resource = gvr_.ToGroupResource();
  auto r = rest_->Do(request, stop_);
  if (!r) return std::move(r).error();
  KUBE_RETURN_IF_ERROR(CheckJson(*r, request));
  auto obj = Object::Parse(r->body);
  if (!obj) return DecodeError(request, obj.error());
  return std::move(obj).value();
}

Result<ObjectPtr> Api::Get(std::string_view name, const GetOptions& options) const {
  if (name.empty()) return BadRequest("get " + gvr_.resource + ": resource name may not be empty");
  auto path = Path(ns_, name);
  if (!path) return std::move(path).error();
  Request req;
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.name = std::string(name);
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::GetSubresource(std::string_view name, std::string_view subresource) const {
  if (name.empty()) return BadRequest("get " + gvr_.resource + ": resource name may not be empty");
  auto path = Path(ns_, name, subresource);
  if (!path) return std::move(path).error();
  Request req;
  req.path = std::move(path).value();
  req.name = std::string(name);
  return SendForObject(std::move(req));
}

bool Api::AskForProtobuf() const {
  return rest_->config().protobuf && !rest_->protobuf_refused() &&
         protobuf::KnowsGroupVersion(gvr_.ToGroupVersion().String());
}

Result<ObjectList> Api::List(const ListOptions& options) const { return List(options, {}); }

Result<ObjectList> Api::List(const ListOptions& options, const std::function<void(ObjectPtr&)>& on_item) const {
  auto path = Path(ns_);
  if (!path) return std::move(path).error();
  Request req;
  req.path = std::move(path).value();
  ListOptions opts = options;
  opts.watch = false;
  req.query = opts.ToQuery();
  req.resource = gvr_.ToGroupResource();
  if (AskForProtobuf()) req.accept = std::string(protobuf::kMediaType) + ", application/json";
  {
    ListConsumer body(req, on_item);
    auto r = rest_->Do(req, body, stop_);
    auto list = r ? body.Finish() : Result<ObjectList>(std::move(r).error());
    if (list || !body.unknown_protobuf()) return list;
  }
  // A newer server's field: JSON keeps it. Ask again, and from now on, in JSON.
  rest_->RefuseProtobuf();
  req.accept = "application/json";
  ListConsumer body(req, on_item);
  auto r = rest_->Do(req, body, stop_);
  if (!r) return std::move(r).error();
  return body.Finish();
}

ListPager Api::Pager(ListOptions options, std::int64_t page_size) const {
  return ListPager(*this, std::move(options), page_size);
}

Result<ObjectList> Api::ListAll(ListOptions options, std::int64_t page_size) const {
  ListPager pager(*this, std::move(options), page_size);
  ObjectList all;
  bool first = true;
  for (;;) {
    auto page = pager.Next();
    if (!page) return std::move(page).error();
    if (!*page) break;
    ObjectList& list = (*page)->list;
    if (first || (*page)->restarted) {
      // The full-list fallback replaces whatever the earlier pages delivered.
      all.api_version = list.api_version;
      all.kind = list.kind;
      all.resource_version = list.resource_version;
      all.items.clear();
      first = false;
    }
    all.items.insert(all.items.end(), std::make_move_iterator(list.items.begin()),
                     std::make_move_iterator(list.items.end()));
  }
  return all;
}

Result<std::unique_ptr<WatchStream>> Api::Watch(ListOptions options) const {
  auto path = Path(ns_);
  if (!path) return std::move(path).error();
  options.watch = true;
  Request req;
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.resource = gvr_.ToGroupResource();
  if (AskForProtobuf()) req.accept = std::string(protobuf::kMediaType) + ", application/json";
  return rest_->Watch(req, stop_);
}

Result<ObjectPtr> Api::Create(const Object& object, const CreateOptions& options) const {
  auto path = Path(NamespaceFor(object));
  if (!path) return std::move(path).error();
  Request req;
  req.method = "POST";
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.body = std::string(object.Json());
  req.name = std::string(object.Name());
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::CreateSubresource(std::string_view name, std::string_view subresource, const Object& object,
                                         const CreateOptions& options) const {
  if (name.empty()) return BadRequest("create " + gvr_.resource + "/" + std::string(subresource) + ": no object name");
  auto path = Path(NamespaceFor(object), name, subresource);
  if (!path) return std::move(path).error();
  Request req;
  req.method = "POST";
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.body = std::string(object.Json());
  req.name = std::string(name);
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::UpdateSubresource(const Object& object, std::string_view subresource,
                                         const UpdateOptions& options) const {
  if (object.Name().empty()) return BadRequest("update " + gvr_.resource + ": the object has no metadata.name");
  auto path = Path(NamespaceFor(object), object.Name(), subresource);
  if (!path) return std::move(path).error();
  Request req;
  req.method = "PUT";
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.body = std::string(object.Json());
  req.name = std::string(object.Name());
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::Update(const Object& object, const UpdateOptions& options) const {
  return UpdateSubresource(object, {}, options);
}

Result<ObjectPtr> Api::UpdateStatus(const Object& object, const UpdateOptions& options) const {
  return UpdateSubresource(object, "status", options);
}

Result<ObjectPtr> Api::Patch(std::string_view name, PatchType type, std::string_view patch,
                             const PatchOptions& options, std::string_view subresource) const {
  if (name.empty()) return BadRequest("patch " + gvr_.resource + ": resource name may not be empty");
  auto path = Path(ns_, name, subresource);
  if (!path) return std::move(path).error();
  Request req;
  req.method = "PATCH";
  req.path = std::move(path).value();
  req.query = options.ToQuery();
  req.body = std::string(patch);
  req.content_type = std::string(ContentType(type));
  req.name = std::string(name);
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::Apply(const Object& object, const ApplyOptions& options, std::string_view subresource) const {
  if (options.field_manager.empty()) {
    return BadRequest("apply " + gvr_.resource + ": fieldManager is required for apply patch");
  }
  if (object.Name().empty()) return BadRequest("apply " + gvr_.resource + ": the object has no metadata.name");
  auto path = Path(NamespaceFor(object), object.Name(), subresource);
  if (!path) return std::move(path).error();
  PatchOptions po;
  po.field_manager = options.field_manager;
  po.dry_run = options.dry_run;
  po.field_validation = options.field_validation;
  if (options.force) po.force = true;
  Request req;
  req.method = "PATCH";
  req.path = std::move(path).value();
  req.query = po.ToQuery();
  req.body = std::string(object.Json());  // JSON is YAML
  req.content_type = std::string(ContentType(PatchType::kApply));
  req.name = std::string(object.Name());
  return SendForObject(std::move(req));
}

Result<ObjectPtr> Api::ApplyStatus(const Object& object, const ApplyOptions& options) const {
  return Apply(object, options, "status");
}

Result<ObjectPtr> Api::Delete(std::string_view name, const DeleteOptions& options) const {
  if (name.empty()) return BadRequest("delete " + gvr_.resource + ": resource name may not be empty");
  auto path = Path(ns_, name);
  if (!path) return std::move(path).error();
  Request req;
  req.method = "DELETE";
  req.path = std::move(path).value();
  req.body = options.ToJson();
  req.content_type = "application/json";
  req.name = std::string(name);
  return SendForObject(std::move(req));
}

Result<void> Api::DeleteCollection(const DeleteOptions& delete_options, const ListOptions& list_options) const {
  auto path = Path(ns_);
  if (!path) return std::move(path).error();
  Request req;
  req.method = "DELETE";
  req.path = std::move(path).value();
  ListOptions lo = list_options;
  lo.watch = false;
  req.query = lo.ToQuery();
  req.body = delete_options.ToJson();
  req.content_type = "application/json";
  req.resource = gvr_.ToGroupResource();
  auto r = rest_->Do(req, stop_);
  if (!r) return std::move(r).error();
  return Ok();
}

ListPager::ListPager(Api api, ListOptions options, std::int64_t page_size)
    : api_(std::move(api)), options_(std::move(options)) {
  requested_rv_ = options_.resource_version;
  requested_rv_match_ = options_.resource_version_match;
  if (options_.limit == 0 && page_size > 0) options_.limit = page_size;
}

Result<std::optional<ListPager::Page>> ListPager::Next() {
  if (done_) return std::optional<Page>();
  auto list = api_.List(options_);
  if (!list) {
    const Error& err = list.error();
    // client-go: fall back to a full list only for an expired continue token (page 2 or later).
    if (!IsExpired(err) || options_.continue_token.empty()) {
      done_ = true;
      return std::move(list).error();
    }
    ListOptions full = options_;
    full.limit = 0;
    full.continue_token.clear();
    full.resource_version = requested_rv_;
    full.resource_version_match = requested_rv_match_;
    done_ = true;
    auto all = api_.List(full);
    if (!all) return std::move(all).error();
    return std::optional<Page>(Page{std::move(all).value(), true});
  }
  if (list->continue_token.empty()) {
    done_ = true;
  } else {
    options_.continue_token = list->continue_token;
    // A continue token carries the snapshot; RV with continue is a 400 (kubernetes#85221).
    options_.resource_version.clear();
    options_.resource_version_match.clear();
  }
  return std::optional<Page>(Page{std::move(list).value(), false});
}

Result<void> ListPager::ForEach(const std::function<Result<void>(const ObjectPtr&)>& fn) {
  for (;;) {
    auto page = Next();
    if (!page) return std::move(page).error();
    if (!*page) return Ok();
    for (const ObjectPtr& item : (*page)->list.items) KUBE_RETURN_IF_ERROR(fn(item));
  }
}

DynamicClient::DynamicClient(std::shared_ptr<RestClient> rest) : rest_(std::move(rest)) {}

Result<DynamicClient> DynamicClient::Create(const Config& config, RestClientOptions options) {
  auto rest = RestClient::Create(config, std::move(options));
  if (!rest) return std::move(rest).error();
  return DynamicClient(std::move(rest).value());
}

}  // namespace kube::client
