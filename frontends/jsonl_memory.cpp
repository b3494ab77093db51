#include "frontends/jsonl_memory.hpp"

#include <limits>

#include <nlohmann/json.hpp>

#include "frontends/bounded_json.hpp"
#include "frontends/memory_view_text.hpp"
#include "protocol/json_text.hpp"

namespace vasana {

using nlohmann::json;

Result<int64_t> time_from_json(const nlohmann::json& v, const std::string& name) {
  if (v.is_number_unsigned()) {
    // An unsigned JSON integer above INT64_MAX would wrap to a negative time if read as int64.
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Status::InvalidArgument(name + " " + std::to_string(u) + " is outside the supported times (" +
                                     std::string(kTimeFormsHelp) + ")");
    Status s = check_time_ms(name, static_cast<int64_t>(u));
    if (!s.ok()) return s;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    Status s = check_time_ms(name, v.get<int64_t>());
    if (!s.ok()) return s;
    return v.get<int64_t>();
  }
  if (v.is_string()) {
    auto t = parse_time_ms(v.get<std::string>());
    if (t) return *t;
    return Status::InvalidArgument(name + " '" + v.get<std::string>() + "' is not a time (" +
                                   std::string(kTimeFormsHelp) + ")");
  }
  return Status::InvalidArgument(name + " must be a time (" + std::string(kTimeFormsHelp) + ")");
}

namespace {

// The "versions" field: an array of {"text": ..., "recorded_at": ...} (recorded_at, which an
// export writes for information, is read and ignored), each text checked as a memory's.
Result<std::vector<std::string>> versions_from_json(const json& v, const InputLimits& limits) {
  const char* form = "versions must be an array of {\"text\": ..., \"recorded_at\": ...}";
  if (!v.is_array()) return Status::InvalidArgument(form);
  std::vector<std::string> out;
  for (const json& e : v) {
    if (!e.is_object()) return Status::InvalidArgument(form);
    auto text = e.find("text");
    if (text == e.end() || !text->is_string()) return Status::InvalidArgument("each of versions needs a text string");
    for (auto f = e.begin(); f != e.end(); ++f) {
      if (f.key() == "recorded_at" && !f->is_string()) return Status::InvalidArgument("versions: recorded_at must be a string");
      if (f.key() != "text" && f.key() != "recorded_at")
        return Status::InvalidArgument("versions: unknown field '" + f.key() + "'");
    }
    if (Status s = check_text("text", text->get<std::string>(), limits.max_text_bytes, true); !s.ok())
      return Status::InvalidArgument("versions[" + std::to_string(out.size()) + "]: " + s.message());
    out.push_back(text->get<std::string>());
  }
  return out;
}

}  // namespace

Result<MemoryInput> memory_from_json_line(const std::string& line, const std::string& realm, const InputLimits& limits,
                                          MemoryLineExtras* extras) {
  auto parsed = parse_bounded_json(line);
  if (!parsed.ok()) return parsed.status();
  const json& obj = *parsed;
  if (!obj.is_object()) return Status::InvalidArgument("not a JSON object");
  MemoryInput m;
  m.realm = realm;
  m.source_tool = "vasana-import";
  bool have_text = false, have_ref = false;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "text") {
      if (!v.is_string()) return Status::InvalidArgument("text must be a string");
      m.text = v.get<std::string>();
      have_text = true;
    } else if (key == "ref") {
      if (!v.is_string()) return Status::InvalidArgument("ref must be a string");
      m.ref = v.get<std::string>();
      have_ref = !m.ref.empty();
    } else if (key == "kind") {
      if (!v.is_string()) return Status::InvalidArgument("kind must be a string");
      m.kind = v.get<std::string>();
    } else if (key == "tags") {
      if (!v.is_array()) return Status::InvalidArgument("tags must be an array of strings");
      for (const auto& t : v) {
        if (!t.is_string()) return Status::InvalidArgument("tags must be an array of strings");
        m.tags.push_back(t.get<std::string>());
      }
    } else if (key == "valid_from" || key == "valid_to") {
      auto t = time_from_json(v, key);
      if (!t.ok()) return t.status();
      (key == "valid_from" ? m.valid_from_ms : m.valid_to_ms) = *t;
    } else if (key == "vector") {
      if (!v.is_array()) return Status::InvalidArgument("vector must be an array of numbers");
      for (const auto& f : v) {
        if (!f.is_number()) return Status::InvalidArgument("vector must be an array of numbers");
        m.vector.push_back(f.get<float>());
      }
    } else if (key == "status" || key == "epistemic") {
      if (!v.is_string()) return Status::InvalidArgument(key + " must be a string");
      (key == "status" ? m.status : m.epistemic) = v.get<std::string>();
    } else if (key == "confidence") {
      if (!v.is_number()) return Status::InvalidArgument("confidence must be a number from 0 to 1");
      m.confidence = v.get<float>();
    } else if (key == "pinned") {
      if (!v.is_boolean()) return Status::InvalidArgument("pinned must be true or false");
      m.pinned = v.get<bool>();
    } else if (key == "review") {
      if (!v.is_string() || (v.get<std::string>() != "approved" && v.get<std::string>() != "rejected"))
        return Status::InvalidArgument("review must be \"approved\" or \"rejected\"");
      if (extras) extras->review = v.get<std::string>() == "approved" ? ReviewVerdict::approve : ReviewVerdict::reject;
    } else if (key == "versions") {
      auto versions = versions_from_json(v, limits);
      if (!versions.ok()) return versions.status();
      if (extras) extras->versions = std::move(versions.value());
    } else if (key == "deleted") {
      if (!v.is_boolean()) return Status::InvalidArgument("deleted must be true or false");
      if (extras) extras->deleted = v.get<bool>();
    } else if (key == "id" || key == "recorded_at") {
      if (!v.is_string()) return Status::InvalidArgument(key + " must be a string");
    } else {
      return Status::InvalidArgument("unknown field '" + key + "'");
    }
  }
  if (!have_text) return Status::InvalidArgument("text is required");
  if (!have_ref) return Status::InvalidArgument("ref is required (it makes a repeated import idempotent)");
  Status s = validate_memory(m, limits);
  if (!s.ok()) return s;
  return m;
}

std::string memory_export_line(const MemoryView& v, bool with_ids) {
  JsonObject o;
  o.str("text", v.text).str("ref", v.ref.empty() ? v.id.to_string() : v.ref).str("kind", kind_name(v.kind));
  o.raw("tags", json_string_array(v.tags));
  if (v.valid_from_ms != kOpenPast) o.str("valid_from", format_time_ms(v.valid_from_ms));
  if (v.valid_to_ms != kOpenFuture) o.str("valid_to", format_time_ms(v.valid_to_ms));
  o.str("status", status_name(v.status)).str("epistemic", epistemic_name(v.epistemic));
  o.raw("confidence", float_text(v.confidence)).boolean("pinned", v.pinned);
  if (v.reviewed) o.str("review", v.review_decision == ReviewVerdict::approve ? "approved" : "rejected");
  if (!v.versions.empty()) {
    std::string list = "[";
    for (const MemoryVersion& e : v.versions) {
      JsonObject version;
      version.str("text", e.text);
      if (with_ids) version.str("recorded_at", format_time_ms(e.recorded_at_ms));
      list += (list.size() > 1 ? "," : "") + version.done();
    }
    o.raw("versions", list + "]");
  }
  if (v.deleted) o.boolean("deleted", true);
  if (with_ids) o.str("id", v.id.to_string()).str("recorded_at", format_time_ms(v.recorded_at_ms));
  return o.done();
}

}  // namespace vasana
