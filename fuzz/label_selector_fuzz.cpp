// Fuzz target for kube::LabelSelector. For any input:
//  - Parse never crashes, and a rejection is a 400 BadRequest with a printable-ASCII message;
//  - an accepted selector's String() parses back to an equal selector with the same String();
//  - Matches agrees between the map overload and the LabelGetter template;
//  - the same holds for the input read as a metav1.LabelSelector JSON document.
// Any violation aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/label_selector.hpp>

namespace {

struct MapLabels {
  const std::map<std::string, std::string>* labels;
  std::optional<std::string_view> Get(std::string_view key) const {
    const auto it = labels->find(std::string(key));
    if (it == labels->end()) return std::nullopt;
    return std::string_view(it->second);
  }
};

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckRejection(const kube::Error& error) {
  Check(error.code == 400 && kube::IsBadRequest(error) && !error.message.empty());
  for (const char c : error.message) Check(c >= 0x20 && c < 0x7f);
}

void CheckAccepted(const kube::LabelSelector& selector) {
  const std::string text = selector.String();
  auto reparsed = kube::LabelSelector::Parse(text);
  Check(reparsed.ok());
  Check(*reparsed == selector);
  Check(reparsed->String() == text);
  Check(selector.Empty() == text.empty());

  // Label sets built from the selector's own terms exercise every operator's match path.
  std::map<std::string, std::string> labels;
  for (const auto& r : selector.Requirements()) {
    labels[r.key] = r.values.empty() ? std::string() : r.values.back();
    Check(selector.Matches(labels) == selector.Matches(MapLabels{&labels}));
  }
  labels.clear();
  Check(selector.Matches(labels) == selector.Matches(MapLabels{&labels}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  auto parsed = kube::LabelSelector::Parse(input);
  if (parsed.ok()) {
    CheckAccepted(*parsed);
  } else {
    CheckRejection(parsed.error());
  }

  boost::system::error_code ec;
  const boost::json::value json = boost::json::parse(
      boost::json::string_view(input.data(), input.size()), ec);
  if (!ec) {
    auto converted = kube::LabelSelector::FromLabelSelectorJson(json);
    if (!converted.ok()) {
      CheckRejection(converted.error());
    } else if (!converted->IsNothing()) {
      CheckAccepted(*converted);
    }
  }
  return 0;
}
