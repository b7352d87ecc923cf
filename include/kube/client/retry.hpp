#pragma once

/// \file
/// Conflict retries for read-modify-write loops. They live in `kube::base` (`wait.hpp`) because
/// they need no network; this header re-exports them where client users look for them:
///
/// ```cpp
/// auto r = kube::RetryOnConflict(kube::DefaultRetry(), [&]() -> kube::Result<void> {
///   auto cm = api.Get("cfg");            // re-read the latest version on every attempt
///   if (!cm) return std::move(cm).error();
///   kube::ObjectBuilder b(**cm);
///   b.SetLabel("seen", "yes");
///   auto built = b.Build();
///   if (!built) return std::move(built).error();
///   auto updated = api.Update(**built);  // IsConflict -> retried
///   if (!updated) return std::move(updated).error();
///   return kube::Ok();
/// });
/// ```
/// - `RetryOnConflict(backoff, fn)`: retries while fn fails with a 409 Conflict (client-go
///   `retry.RetryOnConflict`); `DefaultRetry()` = 5 steps, 10 ms, factor 1.0, jitter 0.1;
///   `DefaultBackoff()` = 4 steps, 10 ms, factor 5.0, jitter 0.1.
/// - `RetryOnError(backoff, retriable, fn)`: the general form (client-go `retry.OnError`).

#include <kube/base/wait.hpp>

namespace kube::client {

/// Re-exported from `kube::` (base/wait.hpp); see the file comment.
using ::kube::DefaultBackoff;
using ::kube::DefaultRetry;
using ::kube::RetryOnConflict;
using ::kube::RetryOnError;

}  // namespace kube::client
