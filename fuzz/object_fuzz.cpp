// Fuzzes Object::Parse, ObjectList::Parse, ObjectListParser and DecodeWatchEvent: outside input
// from API servers and users. Properties checked beyond "no crash":
//  - an accepted object's compact text is valid JSON with the same DOM as the input;
//  - re-parsing the compact text gives the same metadata;
//  - StripManagedFields leaves a valid object without managedFields;
//  - a list fed to ObjectListParser in pieces (cut where the input's bytes say) parses as the
//    whole text does: both fail, or both give the same items and list metadata.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/object.hpp>
#include <kube/core/object_list_parser.hpp>
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
    // The strip splices bytes out and shifts the recorded spans: its metadata must be what a
    // parse of its own text gives.
    auto reparsed = kube::Object::Parse(stripped->Json());
    Check(reparsed.ok());
    const auto& r = **reparsed;
    Check(r.Json() == stripped->Json());
    Check(r.Name() == stripped->Name() && r.Namespace() == stripped->Namespace() &&
          r.Uid() == stripped->Uid() && r.ResourceVersion() == stripped->ResourceVersion() &&
          r.Kind() == stripped->Kind() && r.ApiVersion() == stripped->ApiVersion() &&
          r.CreationTimestamp() == stripped->CreationTimestamp() &&
          r.DeletionTimestamp() == stripped->DeletionTimestamp() &&
          r.Generation() == stripped->Generation());
    Check(r.Labels().size() == stripped->Labels().size());
    for (const auto& [k, v] : r.Labels()) Check(stripped->Labels().Get(k) == v);
    Check(r.Annotations().size() == stripped->Annotations().size());
    for (const auto& [k, v] : r.Annotations()) Check(stripped->Annotations().Get(k) == v);
    Check(r.Finalizers().size() == stripped->Finalizers().size());
    const auto want_refs = r.OwnerReferences();
    const auto got_refs = stripped->OwnerReferences();
    Check(want_refs.size() == got_refs.size());
    for (std::size_t i = 0; i < want_refs.size() && i < got_refs.size(); ++i) {
      Check(want_refs[i].name == got_refs[i].name && want_refs[i].uid == got_refs[i].uid &&
            want_refs[i].kind == got_refs[i].kind && want_refs[i].api_version == got_refs[i].api_version);
    }
    (void)o.GetRaw("/spec/replicas");
    (void)o.GetString("/metadata/name");
    (void)o.OwnerReferences();
  } else {
    Check(obj.error().code == 400);
  }
  auto list = kube::ObjectList::Parse(input);
  if (!list.ok()) {
    Check(list.error().code == 400);
  } else {
    // Items parsed in place must have the boundaries a full JSON parser sees.
    boost::json::parse_options opts;
    opts.max_depth = 1000;
    boost::system::error_code ec;
    auto dom = boost::json::parse(input, ec, {}, opts);
    Check(!ec && dom.is_object());
    const auto* items = dom.as_object().if_contains("items");
    const std::size_t want = items != nullptr && items->is_array() ? items->as_array().size() : 0;
    Check(list->items.size() == want);
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      auto item = boost::json::parse(list->items[i]->Json(), ec, {}, opts);
      Check(!ec && item.is_object());
      auto again = kube::Object::Parse(list->items[i]->Json());
      Check(again.ok() && (*again)->Json() == list->items[i]->Json());
      // Every member of the input item is in the parsed one (apiVersion/kind may be injected).
      for (const auto& [k, v] : items->as_array()[i].as_object()) {
        const auto* got = item.as_object().if_contains(k);
        Check(got != nullptr && *got == v);
      }
    }
  }
  {
    // Piece lengths from the input itself: every split pattern is reachable.
    kube::ObjectListParser parser(size % 2 == 0 ? 1 : 64);
    bool ok = true;
    std::size_t at = 0, seed = size;
    while (ok && at < size) {
      seed = seed * 31 + static_cast<unsigned char>(input[at]);
      const std::size_t n = std::min<std::size_t>(size - at, 1 + seed % 97);
      ok = parser.Feed(input.substr(at, n)).ok();
      at += n;
    }
    auto streamed = ok ? parser.Finish() : kube::Result<kube::ObjectList>(kube::BadRequest("fed"));
    Check(streamed.ok() == list.ok());
    if (streamed.ok()) {
      Check(streamed->api_version == list->api_version && streamed->kind == list->kind &&
            streamed->resource_version == list->resource_version &&
            streamed->continue_token == list->continue_token &&
            streamed->remaining_item_count == list->remaining_item_count);
      Check(streamed->items.size() == list->items.size());
      for (std::size_t i = 0; i < list->items.size(); ++i) Check(streamed->items[i]->Json() == list->items[i]->Json());
    }
  }
  auto event = kube::DecodeWatchEvent(input);
  if (event.ok()) Check(event->object != nullptr);
  return 0;
}
