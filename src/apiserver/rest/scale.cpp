#include "apiserver/rest/scale.hpp"

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/strategy.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// Sets the value at `pointer` (object members only), creating intermediate objects.
void SetAt(json::object& obj, std::string_view pointer, json::value value) {
  auto parsed = JsonPointer::Parse(pointer);
  if (!parsed.ok() || parsed->Tokens().empty()) return;
  json::object* cur = &obj;
  const auto& tokens = parsed->Tokens();
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) cur = &EnsureObject(*cur, tokens[i]);
  (*cur)[tokens.back()] = std::move(value);
}

}  // namespace

Result<json::object> DecodeScale(const Request& r, std::string_view body) {
  auto parsed = ParseJson(body);
  if (!parsed.ok()) {
    return NewBadRequest("the object provided is unrecognized (must be of type Scale): " + parsed.error().message);
  }
  if (!parsed->is_object()) {
    return NewBadRequest("the object provided is unrecognized (must be of type Scale): expected a JSON object, found " +
                         std::string(JsonTypeName(*parsed)));
  }
  json::object scale = std::move(parsed->get_object());
  const auto kind = StringAt(scale, "kind");
  const auto api_version = StringAt(scale, "apiVersion");
  if (!kind.empty() && kind != "Scale") {
    return NewBadRequest(std::string(kind) + " in version \"v1\" cannot be handled as a Scale: converting (v1." +
                         std::string(kind) + ") to (autoscaling.Scale): unknown conversion");
  }
  if (!api_version.empty() && api_version != "autoscaling/v1") {
    return NewBadRequest("the API version in the data (" + std::string(api_version) +
                         ") does not match the expected API version (autoscaling/v1)");
  }
  const auto name = StringAt(MetadataOf(scale), "name");
  if (name != r.path.name) {
    return NewBadRequest("the name of the object (" + std::string(name) +
                         ") does not match the name on the URL (" + r.path.name + ")");
  }
  return scale;
}

Result<json::object> UpdateScale(const Env& env, const Request& r, const ScaleFn& fn, bool dry_run) {
  const ResourceInfo& info = *r.info;
  auto result = GuaranteedUpdate(
      env, r, Subresource::kScale,
      [&](const json::object& current, Revision current_rv) -> Result<json::object> {
        auto current_scale = ScaleFromObject(info, current);
        if (!current_scale.ok()) return std::move(current_scale).error();
        auto scale = fn(*current_scale);
        if (!scale.ok()) return std::move(scale).error();
        int64_t replicas = 0;
        if (const auto* spec = ObjectAt(*scale, "spec")) {
          if (const auto* v = spec->if_contains("replicas"); v != nullptr && !v->is_null()) {
            if (!v->is_int64()) {
              return NewBadRequest("Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal " +
                                   std::string(JsonTypeName(*v)) + " into Go struct field ScaleSpec.spec.replicas of type int32");
            }
            replicas = v->get_int64();
          }
        }
        if (replicas < 0) {
          return NewInvalid({"autoscaling", "Scale"}, r.path.name,
                            {FieldError::Invalid("spec.replicas", std::to_string(replicas),
                                                 "must be greater than or equal to 0")});
        }
        const auto& scale_meta = MetadataOf(*scale);
        const auto uid = StringAt(scale_meta, "uid");
        const auto current_uid = StringAt(MetadataOf(current), "uid");
        if (!uid.empty() && uid != current_uid) {
          return NewConflict({info.group, info.resource + "/scale"}, r.path.name,
                             "Precondition failed: UID in precondition: " + std::string(uid) +
                                 ", UID in object meta: " + std::string(current_uid));
        }
        json::object obj = current;
        SetAt(obj, info.scale_spec_replicas_path, replicas);
        auto& meta = EnsureObject(obj, "metadata");
        meta["resourceVersion"] = StringAt(scale_meta, "resourceVersion");
        KUBE_RETURN_IF_ERROR(CheckUpdateResourceVersion(r, obj, current_rv));
        return obj;
      },
      [&]() -> Result<json::object> { return NewNotFound(r.Gr(), r.path.name); }, dry_run);
  if (!result.ok()) return std::move(result).error();
  auto stored = ParseStored(result->stored);
  if (!stored.ok()) return std::move(stored).error();
  return ScaleFromObject(info, *stored);
}

}  // namespace kube::apiserver::rest
