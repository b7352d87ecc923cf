// Fuzz target for kube::FieldSelector. For any input:
//  - Parse never crashes, and a rejection is a 400 BadRequest with a printable-ASCII message;
//  - an accepted selector's String() parses back to an equal selector with the same String();
//  - Matches agrees between the map overload and the FieldGetter template;
//  - UnescapeFieldValue(EscapeFieldValue(input)) == input, and when `input` unescapes,
//    escaping the result gives `input` back.
// Any violation aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <kube/core/field_selector.hpp>

namespace {

struct MapFields {
  const std::map<std::string, std::string>* fields;
  std::optional<std::string_view> Get(std::string_view field) const {
    const auto it = fields->find(std::string(field));
    if (it == fields->end()) return std::nullopt;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  auto parsed = kube::FieldSelector::Parse(input);
  if (parsed.ok()) {
    const std::string text = parsed->String();
    auto reparsed = kube::FieldSelector::Parse(text);
    Check(reparsed.ok());
    Check(*reparsed == *parsed);
    Check(reparsed->String() == text);
    Check(parsed->Empty() == text.empty());

    std::map<std::string, std::string> fields;
    for (const auto& r : parsed->Requirements()) {
      fields[r.field] = r.value;
      Check(parsed->Matches(fields) == parsed->Matches(MapFields{&fields}));
      // RequiresExactMatch reports the first `field=value` term on the field, if any.
      const auto exact = parsed->RequiresExactMatch(r.field);
      std::optional<std::string> first_equal;
      for (const auto& q : parsed->Requirements()) {
        if (q.field == r.field && q.op == kube::FieldRequirement::Op::kEquals) {
          first_equal = q.value;
          break;
        }
      }
      Check(exact == first_equal);
    }
    fields.clear();
    Check(parsed->Matches(fields) == parsed->Matches(MapFields{&fields}));
  } else {
    CheckRejection(parsed.error());
  }

  auto unescaped = kube::UnescapeFieldValue(kube::EscapeFieldValue(input));
  Check(unescaped.ok() && *unescaped == input);
  auto direct = kube::UnescapeFieldValue(input);
  if (direct.ok()) {
    // A valid escaped value is exactly the canonical escaping of what it stands for.
    Check(kube::EscapeFieldValue(*direct) == input);
  } else {
    CheckRejection(direct.error());
  }
  return 0;
}
