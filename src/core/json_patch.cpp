#include <kube/core/json_patch.hpp>
#include <kube/core/json.hpp>

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>

namespace kube {

namespace json = boost::json;

namespace {

// The result may always grow to this many (approximate) bytes, however small the inputs.
constexpr std::size_t kMinResultBudget = std::size_t{1} << 20;
// ... and to this multiple of the input sizes, up to JsonPatchOptions::max_result_bytes.
constexpr std::size_t kResultGrowthFactor = 3;
// Error messages quote at most this many bytes of a JSON value.
constexpr std::size_t kQuoteBytes = 64;

std::string_view KindName(json::kind k) {
  switch (k) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "value";
}

// The approximate serialized size and the container nesting depth of a value ("[]" is 1).
struct Extent {
  std::size_t bytes = 0;
  std::size_t depth = 0;
};

// Iterative, so that it is safe on values of any depth.
Extent Measure(const json::value& root) {
  Extent e;
  std::vector<std::pair<const json::value*, std::size_t>> stack{{&root, 0}};
  while (!stack.empty()) {
    const auto [v, level] = stack.back();
    stack.pop_back();
    switch (v->kind()) {
      case json::kind::null:
        e.bytes += 4;
        break;
      case json::kind::bool_:
        e.bytes += 5;
        break;
      case json::kind::int64:
      case json::kind::uint64:
      case json::kind::double_:
        e.bytes += 8;
        break;
      case json::kind::string:
        e.bytes += v->get_string().size() + 2;
        break;
      case json::kind::array:
        e.depth = std::max(e.depth, level + 1);
        e.bytes += 2 + v->get_array().size();
        for (const auto& item : v->get_array()) stack.emplace_back(&item, level + 1);
        break;
      case json::kind::object:
        e.depth = std::max(e.depth, level + 1);
        e.bytes += 2;
        for (const auto& member : v->get_object()) {
          e.bytes += member.key().size() + 4;
          stack.emplace_back(&member.value(), level + 1);
        }
        break;
    }
  }
  return e;
}

// A bounded prefix of the serialization of `v`, for error messages.
std::string Quote(const json::value& v) {
  json::serializer sr;
  sr.reset(&v);
  char buf[kQuoteBytes];
  std::string out(sr.read(buf, sizeof(buf)));
  if (!sr.done()) out += "...";
  return out;
}

std::size_t SaturatingSub(std::size_t a, std::size_t b) { return a > b ? a - b : 0; }

enum class OpKind { kAdd, kRemove, kReplace, kMove, kCopy, kTest };

std::optional<OpKind> ParseOpKind(std::string_view op) {
  if (op == "add") return OpKind::kAdd;
  if (op == "remove") return OpKind::kRemove;
  if (op == "replace") return OpKind::kReplace;
  if (op == "move") return OpKind::kMove;
  if (op == "copy") return OpKind::kCopy;
  if (op == "test") return OpKind::kTest;
  return std::nullopt;
}

// Applies operations one at a time to a private copy of the document.
class Patcher final {
 public:
  Patcher(json::value doc, const JsonPatchOptions& options, std::size_t limit_bytes,
          Extent doc_extent)
      : doc_(std::move(doc)),
        options_(options),
        limit_bytes_(limit_bytes),
        bytes_(doc_extent.bytes),
        depth_bound_(doc_extent.depth) {}

  Result<void> Apply(std::size_t index, const json::object& op) {
    index_ = index;
    op_name_ = {};
    const auto* op_member = op.if_contains("op");
    if (op_member == nullptr) return Fail("missing required member \"op\"");
    if (!op_member->is_string()) {
      return Fail(
          fmt::format("member \"op\" must be a string, got {}", KindName(op_member->kind())));
    }
    const std::string_view op_name = op_member->get_string();
    const auto kind = ParseOpKind(op_name);
    if (!kind) {
      return Fail(fmt::format("unknown op \"{}\" (want add, remove, replace, move, copy or test)",
                              op_name));
    }
    op_name_ = op_name;

    auto path = PointerMember(op, "path");
    if (!path.ok()) return std::move(path).error();
    switch (*kind) {
      case OpKind::kAdd: {
        auto value = ValueMember(op);
        if (!value.ok()) return std::move(value).error();
        const json::value& v = **value;
        return Add(*path, Measure(v), [&v] { return json::value(v); });
      }
      case OpKind::kRemove: {
        auto removed = Take(*path, "path");
        if (!removed.ok()) return std::move(removed).error();
        bytes_ = SaturatingSub(bytes_, Measure(*removed).bytes);
        return Ok();
      }
      case OpKind::kReplace: {
        auto value = ValueMember(op);
        if (!value.ok()) return std::move(value).error();
        return Replace(*path, **value);
      }
      case OpKind::kMove: {
        auto from = PointerMember(op, "from");
        if (!from.ok()) return std::move(from).error();
        return Move(*from, *path);
      }
      case OpKind::kCopy: {
        auto from = PointerMember(op, "from");
        if (!from.ok()) return std::move(from).error();
        auto source = Resolve(*from, from->Tokens().size(), "from");
        if (!source.ok()) return std::move(source).error();
        const json::value* src = *source;
        return Add(*path, Measure(*src), [src] { return json::value(*src); });
      }
      case OpKind::kTest: {
        auto value = ValueMember(op);
        if (!value.ok()) return std::move(value).error();
        auto target = Resolve(*path, path->Tokens().size(), "path");
        if (!target.ok()) return std::move(target).error();
        if (!JsonEqual(**target, **value)) {
          return Fail(fmt::format("path \"{}\": test failed: found {}, expected {}", path->String(),
                                  Quote(**target), Quote(**value)));
        }
        return Ok();
      }
    }
    return Fail("unreachable op kind");
  }

  json::value Release() && { return std::move(doc_); }

 private:
  Error Fail(std::string_view detail) const {
    if (op_name_.empty()) {
      return MakeError(422, reason::kInvalid,
                       fmt::format("jsonpatch operation {} failed: {}", index_, detail));
    }
    return MakeError(
        422, reason::kInvalid,
        fmt::format("jsonpatch operation {} ({}) failed: {}", index_, op_name_, detail));
  }

  Result<JsonPointer> PointerMember(const json::object& op, std::string_view name) const {
    const auto* member = op.if_contains(name);
    if (member == nullptr) return Fail(fmt::format("missing required member \"{}\"", name));
    if (!member->is_string()) {
      return Fail(
          fmt::format("member \"{}\" must be a string, got {}", name, KindName(member->kind())));
    }
    auto pointer = JsonPointer::Parse(member->get_string());
    if (!pointer.ok()) return Fail(fmt::format("member \"{}\": {}", name, pointer.error().message));
    return pointer;
  }

  Result<const json::value*> ValueMember(const json::object& op) const {
    const auto* member = op.if_contains("value");
    if (member == nullptr) return Fail("missing required member \"value\"");
    return member;
  }

  // Resolves the first `count` tokens of `pointer` in doc_ (all of them for a target, all but the
  // last for a parent). `member` ("path" or "from") names the pointer in errors.
  Result<json::value*> Resolve(const JsonPointer& pointer, std::size_t count,
                               std::string_view member) {
    const auto& tokens = pointer.Tokens();
    json::value* current = &doc_;
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& token = tokens[i];
      const bool last = i + 1 == tokens.size();
      if (auto* obj = current->if_object()) {
        current = obj->if_contains(token);
        if (current == nullptr) {
          if (last) return PointerFail(pointer, member, "missing value");
          return PointerFail(pointer, member,
                             fmt::format("missing value at \"{}\"", Prefix(pointer, i + 1)));
        }
      } else if (auto* arr = current->if_array()) {
        auto index = ArrayIndex(pointer, member, token, arr->size(), /*allow_end=*/false);
        if (!index.ok()) return std::move(index).error();
        current = &(*arr)[*index];
      } else {
        return PointerFail(pointer, member, NotAContainer(*current, Prefix(pointer, i)));
      }
    }
    return current;
  }

  // An index into an array of `size` elements; `allow_end` admits `size` itself and "-" (add).
  Result<std::size_t> ArrayIndex(const JsonPointer& pointer, std::string_view member,
                                 std::string_view token, std::size_t size, bool allow_end) const {
    if (token == "-") {
      if (allow_end) return size;
      return PointerFail(pointer, member, "array index \"-\" names no existing element");
    }
    const auto index = ParseJsonPointerArrayIndex(token);
    if (!index)
      return PointerFail(pointer, member, fmt::format("invalid array index \"{}\"", token));
    if (*index > size || (*index == size && !allow_end)) {
      return PointerFail(
          pointer, member,
          fmt::format("array index {} out of range (array length {})", *index, size));
    }
    return *index;
  }

  Error PointerFail(const JsonPointer& pointer, std::string_view member,
                    std::string_view detail) const {
    return Fail(fmt::format("{} \"{}\": {}", member, pointer.String(), detail));
  }

  static std::string Prefix(const JsonPointer& pointer, std::size_t count) {
    const auto& tokens = pointer.Tokens();
    return JsonPointer::FromTokens(
               std::vector<std::string>(tokens.begin(),
                                        tokens.begin() + static_cast<std::ptrdiff_t>(count)))
        .String();
  }

  static std::string NotAContainer(const json::value& v, std::string_view at) {
    return fmt::format("value at \"{}\" is a {}, not an object or array", at, KindName(v.kind()));
  }

  Result<void> CheckDepth(const JsonPointer& path, std::size_t value_depth) const {
    const std::size_t depth = path.Tokens().size() + value_depth;
    if (depth > options_.max_depth) {
      return PointerFail(path, "path",
                         fmt::format("result would nest {} levels deep, more than the limit of {}",
                                     depth, options_.max_depth));
    }
    return Ok();
  }

  Result<void> CheckSize(const JsonPointer& path, std::size_t new_bytes) const {
    if (new_bytes > limit_bytes_) {
      return PointerFail(
          path, "path",
          fmt::format("result would exceed the size limit of {} bytes", limit_bytes_));
    }
    return Ok();
  }

  void NoteDepth(const JsonPointer& path, std::size_t value_depth) {
    depth_bound_ = std::max(depth_bound_, path.Tokens().size() + value_depth);
  }

  // Adds (or, for an object member, sets) the value `make()` returns at `path`. `extent` is the
  // value's measure, checked before the value is built. `make` may read doc_: it runs before
  // doc_ is modified.
  template <class MakeValue>
  Result<void> Add(const JsonPointer& path, Extent extent, MakeValue&& make) {
    KUBE_RETURN_IF_ERROR(CheckDepth(path, extent.depth));
    const auto& tokens = path.Tokens();
    if (tokens.empty()) {
      KUBE_RETURN_IF_ERROR(CheckSize(path, extent.bytes));
      doc_ = make();
      bytes_ = extent.bytes;
      depth_bound_ = extent.depth;
      return Ok();
    }
    auto parent = Resolve(path, tokens.size() - 1, "path");
    if (!parent.ok()) return std::move(parent).error();
    const std::string& last = tokens.back();
    if (auto* obj = (*parent)->if_object()) {
      if (auto* existing = obj->if_contains(last)) {
        const std::size_t new_bytes =
            SaturatingSub(bytes_, Measure(*existing).bytes) + extent.bytes;
        KUBE_RETURN_IF_ERROR(CheckSize(path, new_bytes));
        json::value v = make();  // before assigning: `make` may read *existing
        *existing = std::move(v);
        bytes_ = new_bytes;
      } else {
        const std::size_t new_bytes = bytes_ + extent.bytes + last.size() + 4;
        KUBE_RETURN_IF_ERROR(CheckSize(path, new_bytes));
        json::value v = make();
        obj->emplace(last, std::move(v));
        bytes_ = new_bytes;
      }
    } else if (auto* arr = (*parent)->if_array()) {
      auto index = ArrayIndex(path, "path", last, arr->size(), /*allow_end=*/true);
      if (!index.ok()) return std::move(index).error();
      const std::size_t new_bytes = bytes_ + extent.bytes + 1;
      KUBE_RETURN_IF_ERROR(CheckSize(path, new_bytes));
      json::value v = make();
      arr->insert(arr->begin() + static_cast<std::ptrdiff_t>(*index), std::move(v));
      bytes_ = new_bytes;
    } else {
      return PointerFail(path, "path", NotAContainer(**parent, Prefix(path, tokens.size() - 1)));
    }
    NoteDepth(path, extent.depth);
    return Ok();
  }

  Result<void> Replace(const JsonPointer& path, const json::value& value) {
    const Extent extent = Measure(value);
    KUBE_RETURN_IF_ERROR(CheckDepth(path, extent.depth));
    // evanphx/json-patch v4 (kube-apiserver's): replacing a missing member of an object sets it.
    if (options_.replace_missing_member_adds && !path.Tokens().empty()) {
      auto parent = Resolve(path, path.Tokens().size() - 1, "path");
      if (parent.ok()) {
        if (const auto* obj = (*parent)->if_object(); obj != nullptr && !obj->contains(path.Tokens().back())) {
          return Add(path, extent, [&value] { return json::value(value); });
        }
      }
    }
    auto target = Resolve(path, path.Tokens().size(), "path");
    if (!target.ok()) return std::move(target).error();
    const std::size_t new_bytes = SaturatingSub(bytes_, Measure(**target).bytes) + extent.bytes;
    KUBE_RETURN_IF_ERROR(CheckSize(path, new_bytes));
    **target = value;
    bytes_ = new_bytes;
    if (path.Tokens().empty()) {
      depth_bound_ = extent.depth;
    } else {
      NoteDepth(path, extent.depth);
    }
    return Ok();
  }

  // Removes and returns the value at `pointer`, which must exist.
  Result<json::value> Take(const JsonPointer& pointer, std::string_view member) {
    const auto& tokens = pointer.Tokens();
    if (tokens.empty()) return PointerFail(pointer, member, "cannot remove the whole document");
    auto parent = Resolve(pointer, tokens.size() - 1, member);
    if (!parent.ok()) return std::move(parent).error();
    const std::string& last = tokens.back();
    if (auto* obj = (*parent)->if_object()) {
      auto it = obj->find(last);
      if (it == obj->end()) return PointerFail(pointer, member, "missing value");
      json::value v = std::move(it->value());
      obj->stable_erase(it);  // keeps the remaining members in their order
      return v;
    }
    if (auto* arr = (*parent)->if_array()) {
      auto index = ArrayIndex(pointer, member, last, arr->size(), /*allow_end=*/false);
      if (!index.ok()) return std::move(index).error();
      const auto it = arr->begin() + static_cast<std::ptrdiff_t>(*index);
      json::value v = std::move(*it);
      arr->erase(it);
      return v;
    }
    return PointerFail(pointer, member,
                       NotAContainer(**parent, Prefix(pointer, tokens.size() - 1)));
  }

  Result<void> Move(const JsonPointer& from, const JsonPointer& path) {
    if (from == path) {  // a no-op, but "from" must still exist
      auto source = Resolve(from, from.Tokens().size(), "from");
      if (!source.ok()) return std::move(source).error();
      return Ok();
    }
    if (from.IsPrefixOf(path)) {
      return Fail(
          fmt::format("from \"{}\" is a proper prefix of path \"{}\": a value cannot be moved into "
                      "its own child",
                      from.String(), path.String()));
    }
    auto moved = Take(from, "from");
    if (!moved.ok()) return std::move(moved).error();
    // The moved value nests at most depth_bound_ - |from| levels; measure it only when that
    // bound is not enough to prove the result shallow enough.
    Extent extent{.bytes = 0, .depth = SaturatingSub(depth_bound_, from.Tokens().size())};
    if (path.Tokens().size() + extent.depth > options_.max_depth)
      extent.depth = Measure(*moved).depth;
    // Moving keeps the content; add's accounting then only charges the new member's key.
    return Add(path, extent, [&moved] { return std::move(*moved); });
  }

  json::value doc_;
  const JsonPatchOptions& options_;
  const std::size_t limit_bytes_;
  std::size_t bytes_;         // approximate serialized size of doc_
  std::size_t depth_bound_;   // an upper bound on the nesting depth of doc_
  std::size_t index_ = 0;     // the operation being applied, for errors
  std::string_view op_name_;  // its "op", once known to be valid; points into the patch
};

Result<json::value> ApplyChecked(const json::value& doc, const json::value& patch,
                                 const JsonPatchOptions& options) {
  const auto* ops = patch.if_array();
  if (ops == nullptr) {
    return BadRequest(fmt::format("jsonpatch: the patch must be a JSON array of operations, got {}",
                                  KindName(patch.kind())));
  }
  for (std::size_t i = 0; i < ops->size(); ++i) {
    if (!(*ops)[i].is_object()) {
      return BadRequest(fmt::format("jsonpatch operation {}: must be a JSON object, got {}", i,
                                    KindName((*ops)[i].kind())));
    }
  }
  if (ops->size() > options.max_operations) {
    return MakeError(413, reason::kRequestEntityTooLarge,
                     fmt::format("Request entity too large: The allowed maximum operations in a "
                                 "JSON patch is {}, got {}",
                                 options.max_operations, ops->size()));
  }
  const Extent doc_extent = Measure(doc);
  const std::size_t inputs = doc_extent.bytes + Measure(patch).bytes;
  const std::size_t growth =
      std::min(std::max(kResultGrowthFactor * inputs, kMinResultBudget), options.max_result_bytes);
  Patcher patcher(doc, options, std::max(growth, inputs), doc_extent);
  for (std::size_t i = 0; i < ops->size(); ++i) {
    KUBE_RETURN_IF_ERROR(patcher.Apply(i, (*ops)[i].get_object()));
  }
  return std::move(patcher).Release();
}


}  // namespace

Result<json::value> ApplyJsonPatch(const json::value& doc, const json::value& patch,
                                   const JsonPatchOptions& options) {
  try {
    return ApplyChecked(doc, patch, options);
  } catch (const std::bad_alloc&) {
    return InternalError("jsonpatch: out of memory while applying the patch");
  } catch (const std::exception& e) {
    return InternalError(fmt::format("jsonpatch: {}", e.what()));
  }
}

Result<std::string> ApplyJsonPatch(std::string_view doc_json, std::string_view patch_json,
                                   const JsonPatchOptions& options) {
  try {
    auto doc = ParseJson(doc_json, "document");
    if (!doc.ok()) return std::move(doc).error();
    auto patch = ParseJson(patch_json, "patch");
    if (!patch.ok()) return std::move(patch).error();
    auto patched = ApplyChecked(*doc, *patch, options);
    if (!patched.ok()) return std::move(patched).error();
    return json::serialize(*patched);
  } catch (const std::bad_alloc&) {
    return InternalError("jsonpatch: out of memory while applying the patch");
  } catch (const std::exception& e) {
    return InternalError(fmt::format("jsonpatch: {}", e.what()));
  }
}

}  // namespace kube
