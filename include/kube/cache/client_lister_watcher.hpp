#pragma once

#include <memory>

#include <kube/cache/informer_factory.hpp>
#include <kube/cache/lister_watcher.hpp>
#include <kube/client/dynamic_client.hpp>

namespace kube::cache {

/// A ListerWatcher over the dynamic client for `api`'s resource (and namespace), narrowed by
/// `scope`'s namespace, label and field selectors (they are added to every list and watch).
/// With `scope.metadata_only`, lists and watches ask the server for PartialObjectMetadata (Accept
/// `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` for a list,
/// `...;as=PartialObjectMetadata;...` for a watch, as client-go's metadata client does): the cached
/// objects are `meta.k8s.io/v1 PartialObjectMetadata` with the full `metadata` and nothing else.
/// **Errors:** those of the client, classified (Expired, TooManyRequests, transport, ...); 500
/// InternalError when a metadata list answer is not a PartialObjectMetadataList.
std::shared_ptr<ListerWatcher> NewClientListerWatcher(client::Api api, InformerScope scope = {});

/// A ListerWatcherFactory for SharedInformerFactory that builds client ListerWatchers on `rest`.
/// `scope.metadata_only` informers get metadata-only ListerWatchers.
ListerWatcherFactory NewClientListerWatcherFactory(std::shared_ptr<client::RestClient> rest);

}  // namespace kube::cache
