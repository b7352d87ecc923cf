// Fuzzes Object::Parse, ObjectList::Parse and DecodeWatchEvent: outside input from API servers
// and users. Properties checked beyond "no crash":
//  - an accepted object's compact text is valid JSON with the same DOM as the input;
//  - re-parsing the compact text gives the same metadata;
//  - StripManagedFields leaves a valid object without managedFields.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/object.hpp>
#include <kube/core/watch_event.hpp>

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto obj = kube::Object::Parse(input);
  if (obj.ok()) {
    const auto& o = **obj;
    boost::json::parse_options opts;
    opts.max_depth = 1000;
    boost::system::error_code ec1, ec2;
    auto original = boost::json::parse(input, ec1, {}, opts);
    auto compact = boost::json::parse(o.Json(), ec2, {}, opts);
    Check(!ec2);
    if (!ec1) Check(original == compact);
    auto again = kube::Object::Parse(o.Json());
    Check(again.ok());
    Check((*again)->Json() == o.Json());
    Check((*again)->Name() == o.Name() && (*again)->Namespace() == o.Namespace());
    Check((*again)->Labels().size() == o.Labels().size());
    Check((*again)->Finalizers().size() == o.Finalizers().size());
    for (const auto& [k, v] : o.Labels()) Check(o.Labels().Get(k) == v);
    auto stripped = kube::StripManagedFields(*obj);
    Check(!stripped->HasManagedFields());
    (void)o.GetRaw("/spec/replicas");
    (void)o.GetString("/metadata/name");
    (void)o.OwnerReferences();
  } else {
    Check(obj.error().code == 400);
  }
  auto list = kube::ObjectList::Parse(input);
  if (!list.ok()) Check(list.error().code == 400);
  auto event = kube::DecodeWatchEvent(input);
  if (event.ok()) Check(event->object != nullptr);
  return 0;
}
