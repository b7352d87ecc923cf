#include <kube/controller/client.hpp>

#include <algorithm>
#include <charconv>
#include <utility>

#include <kube/base/error.hpp>

namespace kube::controller {
namespace {

std::optional<std::uint64_t> ParseRv(std::string_view rv) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || ptr != rv.data() + rv.size() || rv.empty()) return std::nullopt;
  return v;
}

Error NotFoundError(const GroupVersionResource& gvr, const ObjectKey& key) {
  Error e = MakeError(404, reason::kNotFound,
                      gvr.ToGroupResource().String() + " \"" + key.name + "\" not found");
  e.details = StatusDetails{.name = key.name, .group = gvr.group, .kind = gvr.resource, .uid = "",
                            .causes = {}, .retry_after_seconds = 0};
  return e;
}

}  // namespace

Client::Client(std::shared_ptr<client::RestClient> rest, client::RestMapper& mapper,
               cache::SharedInformerFactory& factory, ClientOptions options, Clock& clock)
    : rest_(std::move(rest)), mapper_(mapper), factory_(factory), options_(options), clock_(clock) {}

Client::~Client() {
  std::map<GroupVersionResource, Watched> watched;
  {
    MutexLock lock(mu_);
    watched.swap(watched_);
  }
  for (auto& [gvr, w] : watched) (void)w.informer->RemoveEventHandler(w.registration);
}

Result<cache::SharedIndexInformer*> Client::Informer(const GroupVersionResource& gvr, std::stop_token stop) {
  cache::SharedIndexInformer* informer = nullptr;
  {
    MutexLock lock(mu_);
    if (auto it = watched_.find(gvr); it != watched_.end()) informer = it->second.informer;
  }
  if (informer == nullptr) {
    informer = &factory_.ForResource(gvr);
    auto handler = std::make_shared<cache::ResourceEventHandlerFuncs>();
    auto bump = [signal = signal_] {
      MutexLock lock(signal->mu);
      ++signal->events;
      signal->cv.SignalAll();
    };
    handler->add = [bump](const ObjectPtr&, bool) { bump(); };
    handler->update = [bump](const ObjectPtr&, const ObjectPtr&) { bump(); };
    handler->del = [bump](const ObjectPtr&, bool) { bump(); };
    auto reg = informer->AddEventHandler(std::move(handler), Clock::Duration::zero());
    if (!reg.ok()) return std::move(reg).error();
    bool raced = false;
    {
      MutexLock lock(mu_);
      raced = !watched_.emplace(gvr, Watched{informer, *reg}).second;
    }
    if (raced) {
      (void)informer->RemoveEventHandler(*reg);
    } else {
      // The registration syncs right after the informer (its handler only bumps a counter):
      // wake the waits below then, instead of polling HasSynced.
      (*reg)->OnSynced([signal = signal_] {
        MutexLock lock(signal->mu);
        ++signal->events;
        signal->cv.SignalAll();
      });
    }
    factory_.Start();  // starts the new informer (a no-op for running ones)
  }
  if (informer->HasSynced()) return informer;
  const bool bounded = options_.cache_sync_timeout > Clock::Duration::zero();
  const Clock::TimePoint deadline =
      bounded ? clock_.Now() + options_.cache_sync_timeout : Clock::TimePoint::max();
  std::stop_callback wake(stop, [signal = signal_] {
    MutexLock lock(signal->mu);
    signal->cv.SignalAll();
  });
  MutexLock lock(signal_->mu);
  // The sync callback signals under signal_->mu: a check made under it cannot miss the wake-up.
  while (!informer->HasSynced()) {
    if (stop.stop_requested()) return CanceledError("client: stopped while waiting for the cache of " + gvr.String());
    if (bounded && clock_.Now() >= deadline) {
      return MakeError(504, reason::kTimeout, "client: timed out waiting for the cache of " + gvr.String() + " to sync");
    }
    clock_.WaitUntil(signal_->cv, signal_->mu, deadline);
  }
  return informer;
}

bool Client::CaughtUp(const Pending& p, const ObjectPtr& cached) {
  if (p.resource_version.empty()) return cached == nullptr || cached->Uid() != p.uid;
  if (cached == nullptr) return false;
  auto want = ParseRv(p.resource_version);
  auto have = ParseRv(cached->ResourceVersion());
  if (want && have) return *have >= *want;
  return cached->ResourceVersion() == p.resource_version;
}

Result<ObjectPtr> Client::DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) {
  auto informer = Informer(gvr, stop);
  if (!informer.ok()) return std::move(informer).error();
  const cache::Indexer& indexer = (*informer)->GetIndexer();
  const std::string store_key = key.String();

  std::optional<Pending> pending;
  if (options_.read_your_writes) {
    MutexLock lock(mu_);
    if (auto it = pending_.find(PendingKey{gvr, store_key}); it != pending_.end()) pending = it->second;
  }
  if (pending && pending->deleting) {
    // Our last write was to an object being deleted, and may have deleted it (removing the last
    // finalizer): kube answers such a write with the last stored state, so the cache may never
    // show a newer version, and a missing object may mean "deleted" or "not seen yet". The
    // server knows: one direct read settles it.
    {
      MutexLock lock(mu_);
      auto it = pending_.find(PendingKey{gvr, store_key});
      if (it != pending_.end() && it->second.resource_version == pending->resource_version) pending_.erase(it);
    }
    return Api(gvr, key.ns).WithStop(stop).Get(key.name);
  }
  if (pending) {
    const Clock::TimePoint deadline = clock_.Now() + options_.read_your_writes_timeout;
    std::stop_callback wake(stop, [signal = signal_] {
      MutexLock lock(signal->mu);
      signal->cv.SignalAll();
    });
    bool caught_up = false;
    {
      MutexLock lock(signal_->mu);
      // The informer updates its store before it notifies handlers, and the handler bumps
      // under signal_->mu: a check made under the lock cannot miss the event that satisfies it.
      while (!(caught_up = CaughtUp(*pending, indexer.GetByKey(store_key)))) {
        if (stop.stop_requested()) break;
        if (clock_.Now() >= deadline) break;
        clock_.WaitUntil(signal_->cv, signal_->mu, deadline);
      }
    }
    if (!caught_up) {
      if (stop.stop_requested()) return CanceledError("client: stopped waiting for " + store_key + " to reach the cache");
      return MakeError(504, reason::kTimeout,
                       "client: the cache of " + gvr.String() + " has not seen the write of " + store_key +
                           " (resourceVersion " + pending->resource_version + ") yet");
    }
    MutexLock lock(mu_);
    auto it = pending_.find(PendingKey{gvr, store_key});
    if (it != pending_.end() && it->second.resource_version == pending->resource_version &&
        it->second.uid == pending->uid) {
      pending_.erase(it);
    }
  }
  ObjectPtr obj = indexer.GetByKey(store_key);
  if (obj == nullptr) return NotFoundError(gvr, key);
  return obj;
}

Result<void> Client::IndexField(const GroupVersionResource& gvr, const std::string& field, FieldIndexFunc extract) {
  if (field.empty()) return BadRequest("IndexField: the field name must not be empty");
  if (!extract) return BadRequest("IndexField: no extract function for field " + field);
  // Each value is indexed twice, as controller-runtime's cache does: under the object's
  // namespace (for a List of one namespace) and under the all-namespaces key.
  cache::IndexFunc index = [extract = std::move(extract)](const Object& obj) {
    std::vector<std::string> values;
    try {
      values = extract(obj);
    } catch (...) {
      return std::vector<std::string>();  // a throwing extractor indexes nothing
    }
    std::vector<std::string> keys;
    keys.reserve(values.size() * 2);
    for (const std::string& v : values) {
      keys.push_back(FieldIndexValue({}, v));
      if (!obj.Namespace().empty()) keys.push_back(FieldIndexValue(obj.Namespace(), v));
    }
    return keys;
  };
  return factory_.ForResource(gvr).AddIndexersBeforeStart({{FieldIndexName(field), std::move(index)}});
}

Result<std::vector<ObjectPtr>> Client::DoList(const GroupVersionResource& gvr, const ListFilter& filter,
                                              std::stop_token stop) {
  auto informer = Informer(gvr, std::move(stop));
  if (!informer.ok()) return std::move(informer).error();
  std::vector<ObjectPtr> out;
  if (filter.field) {
    auto indexed = (*informer)->GetIndexer().ByIndex(FieldIndexName(filter.field->field),
                                                     FieldIndexValue(filter.ns, filter.field->value));
    if (!indexed.ok()) {
      return BadRequest("List on " + gvr.String() + " specifies selector on field " + filter.field->field +
                        ", but no index with name " + filter.field->field + " has been registered for " +
                        gvr.String());
    }
    out = std::move(*indexed);
    std::erase_if(out, [&](const ObjectPtr& o) { return !filter.selector.Matches(o->Labels()); });
  } else {
    cache::Lister lister = (*informer)->GetLister();
    out = filter.ns.empty() ? lister.List(filter.selector) : lister.List(filter.ns, filter.selector);
  }
  std::sort(out.begin(), out.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return std::pair(a->Namespace(), a->Name()) < std::pair(b->Namespace(), b->Name());
  });
  return out;
}

Result<GroupVersionResource> Client::DoResourceFor(const GroupVersionKind& gvk) const {
  auto mapping = mapper_.Mapping(gvk.ToGroupKind(), gvk.version);
  if (!mapping.ok()) return std::move(mapping).error();
  return mapping->resource;
}

Result<std::tuple<GroupVersionResource, client::Api>> Client::ApiFor(const Object& object) const {
  auto gvk = object.Gvk();
  if (!gvk.ok()) return std::move(gvk).error();
  auto mapping = mapper_.Mapping(gvk->ToGroupKind(), gvk->version);
  if (!mapping.ok()) return std::move(mapping).error();
  std::string ns = mapping->namespaced ? std::string(object.Namespace()) : std::string();
  if (mapping->namespaced && ns.empty()) {
    return BadRequest("client: " + gvk->String() + " is namespaced but the object has no metadata.namespace");
  }
  return std::tuple(mapping->resource, client::Api(rest_, mapping->resource, std::move(ns)));
}

client::Api Client::Api(const GroupVersionResource& gvr, std::string ns) const {
  return client::Api(rest_, gvr, std::move(ns));
}

void Client::RecordWrite(const GroupVersionResource& gvr, const Object& written) {
  if (!options_.read_your_writes || written.ResourceVersion().empty()) return;
  MutexLock lock(mu_);
  pending_[PendingKey{gvr, written.Key()}] =
      Pending{.resource_version = std::string(written.ResourceVersion()),
              .uid = std::string(written.Uid()),
              .deleting = written.IsBeingDeleted()};
}

void Client::RecordDelete(const GroupVersionResource& gvr, const Object& target, const Object& answer) {
  if (!options_.read_your_writes) return;
  const bool answered_object = answer.Kind() == target.Kind() && !answer.Name().empty();
  if (answered_object && answer.IsBeingDeleted()) {
    // Finalizers (or a grace period) keep the object: the answer is its new state.
    RecordWrite(gvr, answer);
    return;
  }
  // Deleted. The answer is a Status, or the object's last state (kinds that return the deleted
  // object, e.g. pods deleted at once).
  std::string uid(target.Uid());
  if (uid.empty()) uid = answered_object ? std::string(answer.Uid()) : answer.GetString("/details/uid").value_or("");
  MutexLock lock(mu_);
  pending_[PendingKey{gvr, target.Key()}] = Pending{.resource_version = "", .uid = std::move(uid)};
}

Result<ObjectPtr> Client::DoCreate(const Object& object, const CreateOptions& options) {
  auto api = ApiFor(object);
  if (!api.ok()) return std::move(api).error();
  auto& [gvr, a] = *api;
  auto out = a.Create(object, options);
  if (out.ok()) RecordWrite(gvr, **out);
  return out;
}

Result<ObjectPtr> Client::DoUpdate(const Object& object, const UpdateOptions& options, std::string_view subresource) {
  if (!subresource.empty() && subresource != "status") {
    return BadRequest("client: Update of subresource \"" + std::string(subresource) + "\" is not supported");
  }
  auto api = ApiFor(object);
  if (!api.ok()) return std::move(api).error();
  auto& [gvr, a] = *api;
  auto out = subresource.empty() ? a.Update(object, options) : a.UpdateStatus(object, options);
  if (out.ok()) RecordWrite(gvr, **out);
  return out;
}

Result<ObjectPtr> Client::DoPatch(const Object& object, PatchType type, std::string_view patch,
                                  const PatchOptions& options, std::string_view subresource) {
  auto api = ApiFor(object);
  if (!api.ok()) return std::move(api).error();
  auto& [gvr, a] = *api;
  auto out = a.Patch(object.Name(), type, patch, options, subresource);
  if (out.ok()) RecordWrite(gvr, **out);
  return out;
}

Result<ObjectPtr> Client::DoDelete(const Object& object, const DeleteOptions& options) {
  auto api = ApiFor(object);
  if (!api.ok()) return std::move(api).error();
  auto& [gvr, a] = *api;
  auto out = a.Delete(object.Name(), options);
  if (out.ok()) RecordDelete(gvr, object, **out);
  return out;
}

}  // namespace kube::controller
