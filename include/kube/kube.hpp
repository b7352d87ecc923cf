#pragma once
/// \file
/// The umbrella header of kubecpp: everything a controller or operator usually needs.
/// ```
/// #include <kube/kube.hpp>
/// ```
/// Heavier or more specialised headers (the embedded API server, fakes for tests) are included
/// on their own.

// Base: results, errors, logging, clocks.
#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>
#include <kube/base/log.hpp>
#include <kube/base/result.hpp>
#include <kube/base/wait.hpp>

// Objects and API machinery.
#include <kube/core/gvk.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>

// Client.
#include <kube/client/config.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/rest_mapper.hpp>
#include <kube/client/retry.hpp>
#include <kube/client/typed_api.hpp>

// Informers and work queues.
#include <kube/cache/informer_factory.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/workqueue/rate_limiting_queue.hpp>

// Controller runtime.
#include <kube/controller/builder.hpp>
#include <kube/controller/client.hpp>
#include <kube/controller/controller.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/finalizer.hpp>
#include <kube/controller/handler.hpp>
#include <kube/controller/manager.hpp>
#include <kube/controller/metrics.hpp>
#include <kube/controller/predicate.hpp>
#include <kube/controller/probe_server.hpp>
#include <kube/controller/reconciler.hpp>
#include <kube/controller/source.hpp>
#include <kube/controller/typed.hpp>

// Leader election.
#include <kube/leaderelection/leader_elector.hpp>
