#pragma once
// The object tracker behind kube::testing::FakeClient: the un-intercepted client.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/testing/fake_client.hpp>

namespace kube::testing {

// What a builder collected; immutable once the tracker owns it.
struct FakeClient::State {
  std::map<GroupVersionKind, FakeKind> kinds;
  std::set<GroupVersionKind> status_subresource;
  std::map<GroupVersionResource, std::map<std::string, controller::FieldIndexFunc>> indexes;
  std::map<GroupVersionKind, TypeSchemaPtr> schemas;
  std::vector<ObjectPtr> initial;
  std::optional<Error> error;  // the first problem a builder call recorded
  FakeInterceptors interceptors;
  Clock* clock = nullptr;  // nullptr = RealClock
};

namespace internal {

// **Thread-safety:** all members may be called concurrently; `mu_` guards the objects, the
// resourceVersion counter and the random source. Index functions run outside it.
class FakeTracker final : public controller::ClientInterface {
 public:
  // Takes the registrations and stores the initial objects. **Errors:** as FakeClientBuilder::Build.
  static Result<std::unique_ptr<FakeTracker>> Create(std::unique_ptr<FakeClient::State> state);
  explicit FakeTracker(std::unique_ptr<FakeClient::State> state);

 private:
  enum class Part { kObject, kStatus };
  enum class Verb { kUpdate, kPatch };
  // Where an object of a kind lives.
  struct Target {
    GroupVersionKind gvk;
    GroupVersionResource gvr;
    std::string ns;
    std::string name;
  };
  using Key = std::pair<std::string, std::string>;  // namespace, name

  Result<ObjectPtr> DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) override
      KUBE_EXCLUDES(mu_);
  Result<std::vector<ObjectPtr>> DoList(const GroupVersionResource& gvr, const controller::ListFilter& filter,
                                        std::stop_token stop) override KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoCreate(const Object& object, const CreateOptions& options) override KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoUpdate(const Object& object, const UpdateOptions& options, std::string_view subresource) override
      KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoPatch(const Object& object, PatchType type, std::string_view patch, const PatchOptions& options,
                            std::string_view subresource) override KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoDelete(const Object& object, const DeleteOptions& options) override KUBE_EXCLUDES(mu_);
  Result<GroupVersionResource> DoResourceFor(const GroupVersionKind& gvk) const override;

  Result<void> AddInitial(const ObjectPtr& object) KUBE_EXCLUDES(mu_);
  Result<Target> Resolve(const Object& object) const;
  bool HasStatus(const GroupVersionKind& gvk) const { return state_->status_subresource.contains(gvk); }
  static Result<Part> PartOf(std::string_view subresource);
  // Update and Patch after the new content is known: the status subresource rules, the
  // resourceVersion check, server-owned metadata, generation, and deletion once the last
  // finalizer is gone. Stores the result unless `dry_run`.
  Result<ObjectPtr> WriteLocked(const Target& t, const Object& old, boost::json::object next, Part part, Verb verb,
                                bool dry_run) KUBE_REQUIRES(mu_);
  ObjectPtr FindLocked(const GroupVersionResource& gvr, const Key& key) const KUBE_REQUIRES(mu_);
  std::string NewUidLocked() KUBE_REQUIRES(mu_);
  std::string RandomSuffixLocked() KUBE_REQUIRES(mu_);

  const std::unique_ptr<const FakeClient::State> state_;
  Clock& clock_;
  mutable Mutex mu_;
  // resource -> (namespace, name) -> object; ordered, so a List comes out sorted.
  std::map<GroupVersionResource, std::map<Key, ObjectPtr>> objects_ KUBE_GUARDED_BY(mu_);
  // The last resourceVersion handed out; every stored version is at most this.
  std::uint64_t resource_version_ KUBE_GUARDED_BY(mu_) = 0;
  std::mt19937_64 random_ KUBE_GUARDED_BY(mu_){std::random_device{}()};
};

}  // namespace internal
}  // namespace kube::testing
