#include <kube/cache/client_lister_watcher.hpp>

#include <kube/client/watch.hpp>

namespace kube::cache {

namespace {

// client-go's metadata client asks for these conversions (JSON only: the embedded server does not
// speak protobuf). A list must ask for the List kind and a watch for the item kind, as the server
// checks which one the request is.
constexpr std::string_view kMetadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
constexpr std::string_view kMetadataWatchAccept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

// Adapts the client's watch stream to the cache's WatchStream interface.
class ClientWatchStream final : public WatchStream {
 public:
  explicit ClientWatchStream(std::unique_ptr<client::WatchStream> stream) : stream_(std::move(stream)) {}
  Result<std::optional<WatchEvent>> Next() override { return stream_->Next(); }
  void Stop() override { stream_->Stop(); }

 private:
  std::unique_ptr<client::WatchStream> stream_;
};

class ClientListerWatcher final : public ListerWatcher {
 public:
  ClientListerWatcher(client::Api api, InformerScope scope) : api_(std::move(api)), scope_(std::move(scope)) {}

  Result<ObjectList> List(const ListOptions& options) override { return StreamList(options, {}); }

  Result<ObjectList> StreamList(const ListOptions& options, const std::function<void(ObjectPtr&)>& on_item) override {
    if (!scope_.metadata_only) return api_.List(Scoped(options), on_item);
    auto req = MetadataRequest(options, /*watch=*/false);
    if (!req.ok()) return std::move(req).error();
    auto res = api_.rest()->Do(*req);
    if (!res.ok()) return std::move(res).error();
    auto list = ObjectList::Parse(res->body);
    if (!list.ok()) {
      return InternalError("unable to decode the PartialObjectMetadataList of GET " + req->path + ": " +
                           list.error().message);
    }
    if (list->kind != "PartialObjectMetadataList") {
      return InternalError("GET " + req->path + " answered kind \"" + list->kind +
                           "\" to a PartialObjectMetadataList request");
    }
    if (on_item) {
      for (ObjectPtr& item : list->items) on_item(item);
    }
    return std::move(list).value();
  }

  Result<std::unique_ptr<WatchStream>> Watch(const ListOptions& options) override {
    Result<std::unique_ptr<client::WatchStream>> stream = InternalError("unreachable");
    if (!scope_.metadata_only) {
      stream = api_.Watch(Scoped(options));
    } else {
      auto req = MetadataRequest(options, /*watch=*/true);
      if (!req.ok()) return std::move(req).error();
      stream = api_.rest()->Watch(*req);
    }
    if (!stream.ok()) return std::move(stream).error();
    return std::unique_ptr<WatchStream>(std::make_unique<ClientWatchStream>(std::move(*stream)));
  }

 private:
  ListOptions Scoped(ListOptions options) const {
    if (!scope_.label_selector.empty()) options.label_selector = scope_.label_selector;
    if (!scope_.field_selector.empty()) options.field_selector = scope_.field_selector;
    return options;
  }

  Result<client::Request> MetadataRequest(const ListOptions& options, bool watch) const {
    auto path = client::ResourcePath(api_.gvr(), api_.ns());
    if (!path.ok()) return std::move(path).error();
    ListOptions opts = Scoped(options);
    opts.watch = watch;
    client::Request req;
    req.path = std::move(path).value();
    req.query = opts.ToQuery();
    req.accept = std::string(watch ? kMetadataWatchAccept : kMetadataListAccept);
    req.resource = api_.gvr().ToGroupResource();
    return req;
  }

  client::Api api_;
  InformerScope scope_;
};

}  // namespace

std::shared_ptr<ListerWatcher> NewClientListerWatcher(client::Api api, InformerScope scope) {
  if (!scope.ns.empty()) api = api.Namespace(scope.ns);
  return std::make_shared<ClientListerWatcher>(std::move(api), std::move(scope));
}

ListerWatcherFactory NewClientListerWatcherFactory(std::shared_ptr<client::RestClient> rest) {
  return [rest](const GroupVersionResource& gvr, const InformerScope& scope) {
    return NewClientListerWatcher(client::Api(rest, gvr), scope);
  };
}

}  // namespace kube::cache
