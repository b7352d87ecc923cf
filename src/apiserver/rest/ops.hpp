#pragma once

#include <kube/core/options.hpp>

#include "apiserver/rest/context.hpp"

/// The REST operations, one per verb. Each answers on `r.w` (success or Status) and never throws
/// for bad input. Routing (resource, scope, subresource, verb) has been checked by the handler.
namespace kube::apiserver::rest {

/// GET of one object, or of its /status or /scale subresource (read.cpp).
void HandleGet(const Env& env, Request& r);
/// LIST of a collection with `opts` (read.cpp).
void HandleList(const Env& env, Request& r, const ListOptions& opts);
/// WATCH of a collection with `opts`; streams until timeout, stop or error (watch.cpp).
void HandleWatch(const Env& env, Request& r, const ListOptions& opts);
/// POST to a collection (write.cpp).
void HandleCreate(const Env& env, Request& r);
/// PUT of an object or its /status, /scale, /finalize (write.cpp).
void HandleUpdate(const Env& env, Request& r);
/// PATCH of an object or its /status, /scale (patch.cpp).
void HandlePatch(const Env& env, Request& r);
/// POST of pods/NAME/binding, or of the `bindings` collection (pod_subresources.cpp).
void HandlePodBinding(const Env& env, Request& r);
/// POST of pods/NAME/eviction (pod_subresources.cpp).
void HandlePodEviction(const Env& env, Request& r);
/// POST of serviceaccounts/NAME/token: a TokenRequest answered with a signed token, signed by
/// `env.options.token_issuer` (never null in a handler; token_request.cpp).
void HandleServiceAccountToken(const Env& env, Request& r);
/// DELETE of one object (delete.cpp).
void HandleDelete(const Env& env, Request& r);
/// DELETE of a collection (delete.cpp).
void HandleDeleteCollection(const Env& env, Request& r);

}  // namespace kube::apiserver::rest
