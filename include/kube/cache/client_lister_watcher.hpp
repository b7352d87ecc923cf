#pragma once

#include <memory>

#include <kube/cache/informer_factory.hpp>
#include <kube/cache/lister_watcher.hpp>
#include <kube/client/dynamic_client.hpp>

namespace kube::cache {

/// A ListerWatcher over the dynamic client for `api`'s resource (and namespace), narrowed by
/// `scope`'s label and field selectors (they are added to every list and watch).
/// **Errors:** those of the client, classified (Expired, TooManyRequests, transport, ...).
std::shared_ptr<ListerWatcher> NewClientListerWatcher(client::Api api, InformerScope scope = {});

/// A ListerWatcherFactory for SharedInformerFactory that builds client ListerWatchers on `rest`.
/// `scope.metadata_only` is not supported by this factory yet (full objects are cached).
ListerWatcherFactory NewClientListerWatcherFactory(std::shared_ptr<client::RestClient> rest);

}  // namespace kube::cache
