#include "frontends/jsonl_relations.hpp"

#include <nlohmann/json.hpp>

#include "frontends/bounded_json.hpp"
#include "frontends/jsonl_memory.hpp"
#include "protocol/json_text.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

using nlohmann::json;

bool is_relation_line(const std::string& line) {
  auto parsed = parse_bounded_json(line);
  return parsed.ok() && parsed->is_object() && parsed->contains("type");
}

namespace {

Status text_field(const json& v, const std::string& key, std::string& out) {
  if (!v.is_string()) return Status::InvalidArgument(key + " must be a string");
  out = v.get<std::string>();
  return Status::Ok();
}

}  // namespace

Result<RelationLine> relation_from_json_line(const std::string& line) {
  auto parsed = parse_bounded_json(line);
  if (!parsed.ok()) return parsed.status();
  const json& obj = *parsed;
  if (!obj.is_object() || !obj.contains("type") || !obj["type"].is_string())
    return Status::InvalidArgument("a relation line needs \"type\": supersede, fact or correction");
  RelationLine r;
  const std::string type = obj["type"].get<std::string>();
  if (type == "supersede")
    r.type = RelationLine::Type::supersede;
  else if (type == "fact")
    r.type = RelationLine::Type::fact;
  else if (type == "correction")
    r.type = RelationLine::Type::correction;
  else
    return Status::InvalidArgument("unknown type '" + type + "' (supersede, fact or correction)");
  r.fact.is_correction = r.type == RelationLine::Type::correction;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    Status s;
    if (key == "type") continue;
    if (r.type == RelationLine::Type::supersede && key == "ref")
      s = text_field(v, key, r.ref);
    else if (r.type == RelationLine::Type::supersede && key == "replaced_by")
      s = text_field(v, key, r.replaced_by);
    else if (r.type == RelationLine::Type::supersede && key == "reason")
      s = text_field(v, key, r.reason);
    else if (r.type == RelationLine::Type::fact && key == "subject")
      s = text_field(v, key, r.fact.subject);
    else if (r.type == RelationLine::Type::fact && key == "predicate")
      s = text_field(v, key, r.fact.predicate);
    else if (r.type == RelationLine::Type::fact && key == "object")
      s = text_field(v, key, r.fact.object);
    else if (r.type == RelationLine::Type::fact && (key == "valid_from" || key == "valid_to")) {
      auto t = time_from_json(v, key);
      if (!t.ok()) return t.status();
      (key == "valid_from" ? r.fact.valid_from_ms : r.fact.valid_to_ms) = *t;
    } else if (r.type == RelationLine::Type::correction && key == "wrong")
      s = text_field(v, key, r.fact.wrong);
    else if (r.type == RelationLine::Type::correction && key == "right")
      s = text_field(v, key, r.fact.right);
    else if (r.type == RelationLine::Type::correction && key == "note")
      s = text_field(v, key, r.fact.note);
    else if (r.type != RelationLine::Type::supersede && key == "source_ref")
      s = text_field(v, key, r.source_ref);
    else
      return Status::InvalidArgument("unknown field '" + key + "' for type " + type);
    if (!s.ok()) return s;
  }
  auto need = [&](const std::string& value, const char* name) -> Status {
    return value.empty() ? Status::InvalidArgument(type + " line: " + name + " is required") : Status::Ok();
  };
  Status s;
  if (r.type == RelationLine::Type::supersede) {
    s = need(r.ref, "ref");
    if (s.ok()) s = need(r.replaced_by, "replaced_by");
  } else if (r.type == RelationLine::Type::fact) {
    s = need(r.fact.subject, "subject");
    if (s.ok()) s = need(r.fact.predicate, "predicate");
    if (s.ok()) s = need(r.fact.object, "object");
  } else {
    s = need(r.fact.wrong, "wrong");
    if (s.ok()) s = need(r.fact.right, "right");
  }
  if (!s.ok()) return s;
  return r;
}

std::string relation_export_line(const RelationLine& r) {
  JsonObject o;
  switch (r.type) {
    case RelationLine::Type::supersede:
      o.str("type", "supersede").str("ref", r.ref).str("replaced_by", r.replaced_by);
      if (!r.reason.empty()) o.str("reason", r.reason);
      break;
    case RelationLine::Type::fact:
      o.str("type", "fact").str("subject", r.fact.subject).str("predicate", r.fact.predicate).str("object", r.fact.object);
      if (r.fact.valid_from_ms != kOpenPast) o.str("valid_from", format_time_ms(r.fact.valid_from_ms));
      if (r.fact.valid_to_ms != kOpenFuture) o.str("valid_to", format_time_ms(r.fact.valid_to_ms));
      if (!r.source_ref.empty()) o.str("source_ref", r.source_ref);
      break;
    case RelationLine::Type::correction:
      o.str("type", "correction").str("wrong", r.fact.wrong).str("right", r.fact.right);
      if (!r.fact.note.empty()) o.str("note", r.fact.note);
      if (!r.source_ref.empty()) o.str("source_ref", r.source_ref);
      break;
  }
  return o.done();
}

}  // namespace vasana
