#include <kube/cache/client_lister_watcher.hpp>

namespace kube::cache {

namespace {

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

  Result<ObjectList> List(const ListOptions& options) override { return api_.List(Scoped(options)); }

  Result<std::unique_ptr<WatchStream>> Watch(const ListOptions& options) override {
    auto stream = api_.Watch(Scoped(options));
    if (!stream.ok()) return std::move(stream).error();
    return std::unique_ptr<WatchStream>(std::make_unique<ClientWatchStream>(std::move(*stream)));
  }

 private:
  ListOptions Scoped(ListOptions options) const {
    if (!scope_.label_selector.empty()) options.label_selector = scope_.label_selector;
    if (!scope_.field_selector.empty()) options.field_selector = scope_.field_selector;
    return options;
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
