#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/object.hpp>

namespace kube {

namespace {

boost::json::object& ChildObject(boost::json::object& parent, std::string_view key) {
  auto& v = parent[key];
  if (!v.is_object()) v = boost::json::object();
  return v.as_object();
}

}  // namespace

ObjectBuilder::ObjectBuilder(std::string_view api_version, std::string_view kind) {
  json_["apiVersion"] = api_version;
  json_["kind"] = kind;
  json_["metadata"] = boost::json::object();
}

ObjectBuilder::ObjectBuilder(const Object& obj) : json_(obj.ToJson()) {}

ObjectBuilder::ObjectBuilder(boost::json::object json) : json_(std::move(json)) {}

boost::json::object& ObjectBuilder::Metadata() { return ChildObject(json_, "metadata"); }

ObjectBuilder& ObjectBuilder::SetName(std::string_view name) {
  Metadata()["name"] = name;
  return *this;
}
ObjectBuilder& ObjectBuilder::SetGenerateName(std::string_view prefix) {
  Metadata()["generateName"] = prefix;
  return *this;
}
ObjectBuilder& ObjectBuilder::SetNamespace(std::string_view ns) {
  if (ns.empty()) {
    Metadata().erase("namespace");
  } else {
    Metadata()["namespace"] = ns;
  }
  return *this;
}
ObjectBuilder& ObjectBuilder::SetResourceVersion(std::string_view rv) {
  if (rv.empty()) {
    Metadata().erase("resourceVersion");
  } else {
    Metadata()["resourceVersion"] = rv;
  }
  return *this;
}
ObjectBuilder& ObjectBuilder::SetUid(std::string_view uid) {
  Metadata()["uid"] = uid;
  return *this;
}
ObjectBuilder& ObjectBuilder::SetGeneration(int64_t generation) {
  Metadata()["generation"] = generation;
  return *this;
}
ObjectBuilder& ObjectBuilder::SetLabel(std::string_view key, std::string_view value) {
  ChildObject(Metadata(), "labels")[key] = value;
  return *this;
}
ObjectBuilder& ObjectBuilder::RemoveLabel(std::string_view key) {
  auto& md = Metadata();
  if (auto* labels = md.if_contains("labels"); labels && labels->is_object()) {
    labels->as_object().erase(key);
  }
  return *this;
}
ObjectBuilder& ObjectBuilder::SetAnnotation(std::string_view key, std::string_view value) {
  ChildObject(Metadata(), "annotations")[key] = value;
  return *this;
}
ObjectBuilder& ObjectBuilder::RemoveAnnotation(std::string_view key) {
  auto& md = Metadata();
  if (auto* ann = md.if_contains("annotations"); ann && ann->is_object()) ann->as_object().erase(key);
  return *this;
}

bool ObjectBuilder::AddFinalizer(std::string_view finalizer) {
  auto& v = Metadata()["finalizers"];
  if (!v.is_array()) v = boost::json::array();
  auto& arr = v.as_array();
  for (const auto& f : arr) {
    if (f.is_string() && f.as_string() == finalizer) return false;
  }
  arr.emplace_back(finalizer);
  return true;
}

bool ObjectBuilder::RemoveFinalizer(std::string_view finalizer) {
  auto& md = Metadata();
  auto* v = md.if_contains("finalizers");
  if (!v || !v->is_array()) return false;
  auto& arr = v->as_array();
  bool removed = false;
  for (auto it = arr.begin(); it != arr.end();) {
    if (it->is_string() && it->as_string() == finalizer) {
      it = arr.erase(it);
      removed = true;
    } else {
      ++it;
    }
  }
  if (arr.empty()) md.erase("finalizers");
  return removed;
}

ObjectBuilder& ObjectBuilder::AddOwnerReference(const OwnerReference& ref) {
  auto& v = Metadata()["ownerReferences"];
  if (!v.is_array()) v = boost::json::array();
  auto& arr = v.as_array();
  boost::json::object o;
  o["apiVersion"] = ref.api_version;
  o["kind"] = ref.kind;
  o["name"] = ref.name;
  o["uid"] = ref.uid;
  if (ref.controller) o["controller"] = *ref.controller;
  if (ref.block_owner_deletion) o["blockOwnerDeletion"] = *ref.block_owner_deletion;
  for (auto& existing : arr) {
    if (existing.is_object()) {
      const auto* uid = existing.as_object().if_contains("uid");
      if (uid && uid->is_string() && uid->as_string() == ref.uid) {
        existing = std::move(o);
        return *this;
      }
    }
  }
  arr.emplace_back(std::move(o));
  return *this;
}

ObjectBuilder& ObjectBuilder::RemoveManagedFields() {
  Metadata().erase("managedFields");
  return *this;
}

Result<void> ObjectBuilder::Set(std::string_view pointer, boost::json::value value) {
  auto ptr = JsonPointer::Parse(pointer);
  if (!ptr.ok()) return std::move(ptr).error();
  const auto& tokens = ptr->Tokens();
  if (tokens.empty()) {
    if (!value.is_object()) return BadRequest("the root of an object must be a JSON object");
    json_ = std::move(value.as_object());
    return Ok();
  }
  boost::json::value root(std::move(json_));
  boost::json::value* cur = &root;
  Result<void> result = Ok();
  for (std::size_t i = 0; i + 1 < tokens.size() && result.ok(); ++i) {
    const auto& tok = tokens[i];
    if (cur->is_object()) {
      auto& child = cur->as_object()[tok];
      if (child.is_null()) child = boost::json::object();
      cur = &child;
    } else if (cur->is_array()) {
      auto idx = ParseJsonPointerArrayIndex(tok);
      if (!idx || *idx >= cur->as_array().size()) {
        result = BadRequest(fmt::format("{}: array index {} out of range", pointer, tok));
      } else {
        cur = &cur->as_array()[*idx];
      }
    } else {
      result = BadRequest(fmt::format("{}: cannot descend into a {}", pointer, JsonTypeName(*cur)));
    }
  }
  if (result.ok()) {
    const auto& last = tokens.back();
    if (cur->is_object()) {
      cur->as_object()[last] = std::move(value);
    } else if (cur->is_array()) {
      auto& arr = cur->as_array();
      if (last == "-") {
        arr.emplace_back(std::move(value));
      } else if (auto idx = ParseJsonPointerArrayIndex(last); idx && *idx < arr.size()) {
        arr[*idx] = std::move(value);
      } else {
        result = BadRequest(fmt::format("{}: array index {} out of range", pointer, last));
      }
    } else {
      result = BadRequest(fmt::format("{}: cannot set a member of a {}", pointer, JsonTypeName(*cur)));
    }
  }
  json_ = std::move(root.as_object());
  return result;
}

bool ObjectBuilder::Remove(std::string_view pointer) {
  auto ptr = JsonPointer::Parse(pointer);
  if (!ptr.ok() || ptr->Tokens().empty()) return false;
  auto tokens = ptr->Tokens();
  const std::string last = tokens.back();
  tokens.pop_back();
  boost::json::value root(std::move(json_));
  bool removed = false;
  if (auto* parent = kube::Find(root, JsonPointer::FromTokens(tokens))) {
    if (parent->is_object()) {
      removed = parent->as_object().erase(last) > 0;
    } else if (parent->is_array()) {
      auto idx = ParseJsonPointerArrayIndex(last);
      auto& arr = parent->as_array();
      if (idx && *idx < arr.size()) {
        arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(*idx));
        removed = true;
      }
    }
  }
  json_ = std::move(root.as_object());
  return removed;
}

const boost::json::value* ObjectBuilder::Find(std::string_view pointer) const {
  auto ptr = JsonPointer::Parse(pointer);
  if (!ptr.ok()) return nullptr;
  const auto& tokens = ptr->Tokens();
  if (tokens.empty()) return nullptr;  // the root is an object, not a value; use Json()
  const auto* first = json_.if_contains(tokens.front());
  if (!first) return nullptr;
  return kube::Find(*first, JsonPointer::FromTokens({tokens.begin() + 1, tokens.end()}));
}

Result<ObjectPtr> ObjectBuilder::Build() const { return Object::FromJson(json_); }

}  // namespace kube
