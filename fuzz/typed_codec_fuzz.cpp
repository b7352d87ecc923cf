// Fuzzes the typed API's JSON codec (generated decoders of core/v1, apps/v1, apiextensions/v1 and
// the value types): outside input from API servers. Properties checked beyond "no crash":
//  - a value that decodes encodes to JSON that decodes again to an equal value;
//  - encoding that value again gives the same bytes (the encoding is a fixed point);
//  - Quantity and Duration text that parses prints in a form that parses to an equal value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <kube/api/apiextensions/v1.hpp>
#include <kube/api/apps/v1.hpp>
#include <kube/api/codec.hpp>
#include <kube/api/core/v1.hpp>

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

template <class T>
void RoundTrip(std::string_view input) {
  auto v = kube::api::FromJson<T>(input);
  if (!v.ok()) {
    Check(v.error().code == 400);
    return;
  }
  const std::string once = kube::api::ToJson(*v);
  auto again = kube::api::FromJson<T>(once);
  Check(again.ok());
  Check(*again == *v);
  Check(kube::api::ToJson(*again) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  RoundTrip<kube::api::core::v1::Pod>(input);
  RoundTrip<kube::api::apps::v1::Deployment>(input);
  RoundTrip<kube::api::apiextensions::v1::CustomResourceDefinition>(input);
  RoundTrip<kube::api::core::v1::Secret>(input);
  if (size < 256) {
    if (auto q = kube::api::Quantity::Parse(input); q.ok()) {
      auto back = kube::api::Quantity::Parse(q->String());
      Check(back.ok() && *back == *q && back->String() == q->String());
    }
    if (auto d = kube::api::Duration::Parse(input); d.ok()) {
      auto back = kube::api::Duration::Parse(d->String());
      Check(back.ok() && *back == *d);
    }
  }
  return 0;
}
