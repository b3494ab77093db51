#include "frontends/memory_view_text.hpp"

#include <cstdio>
#include <cstdlib>

#include "protocol/json_text.hpp"

namespace vasana {

namespace {

std::string id_or_empty(const MemoryId& id) { return id.seqno.value == 0 ? std::string() : id.to_string(); }

std::string shown_status(const MemoryView& v) {
  return shown_status_name(v.status, v.reviewed ? std::optional<ReviewVerdict>(v.review_decision) : std::nullopt,
                           v.deleted, v.erased);
}

std::string review_text(const MemoryView& v) {
  if (!v.reviewed) return "";
  return v.review_decision == ReviewVerdict::approve ? "approve" : "reject";
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string float_text(float f) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

std::string memory_view_json(const MemoryView& v) {
  return JsonObject()
      .str("id", v.id.to_string())
      .str("realm", v.realm)
      .str("kind", kind_name(v.kind))
      .str("text", v.text)
      .raw("tags", json_string_array(v.tags))
      .str("ref", v.ref)
      .str("status", shown_status(v))
      .str("status_reason", v.status_reason)
      .str("replaced_by", id_or_empty(v.replaced_by))
      .str("epistemic", epistemic_name(v.epistemic))
      .raw("confidence", float_text(v.confidence))
      .boolean("pinned", v.pinned)
      .str("valid_from", format_time_ms(v.valid_from_ms))
      .str("valid_to", format_time_ms(v.valid_to_ms))
      .str("recorded_at", format_time_ms(v.recorded_at_ms))
      .str("updated_at", format_time_ms(v.updated_at_ms))
      .boolean("deleted", v.deleted)
      .boolean("reviewed", v.reviewed)
      .str("review_decision", review_text(v))
      .str("source_session", v.source_session)
      .str("source_tool", v.source_tool)
      .str("claim_status", v.claim_status)
      .boolean("erased", v.erased)
      .str("erased_by", v.erased_by)
      .done();
}

std::string memory_view_text(const MemoryView& v) {
  std::string out;
  auto line = [&out](const char* name, const std::string& value) { out += std::string(name) + ": " + value + "\n"; };
  line("id", v.id.to_string());
  line("realm", v.realm);
  line("kind", kind_name(v.kind));
  line("text", one_line(v.text));
  line("tags", joined(v.tags));
  line("ref", v.ref);
  line("status", shown_status(v));
  line("status_reason", v.status_reason);
  line("replaced_by", id_or_empty(v.replaced_by));
  line("epistemic", epistemic_name(v.epistemic));
  line("confidence", float_text(v.confidence));
  line("pinned", v.pinned ? "true" : "false");
  line("valid_from", format_time_ms(v.valid_from_ms));
  line("valid_to", format_time_ms(v.valid_to_ms));
  line("recorded_at", format_time_ms(v.recorded_at_ms));
  line("updated_at", format_time_ms(v.updated_at_ms));
  line("deleted", v.deleted ? "true" : "false");
  line("reviewed", v.reviewed ? "true" : "false");
  line("review_decision", review_text(v));
  line("source_session", v.source_session);
  line("source_tool", v.source_tool);
  line("claim_status", v.claim_status);
  if (v.erased) line("erased_by", v.erased_by);
  return out;
}

std::string memory_list_line(const MemoryView& v) {
  std::string out = v.id.to_string() + "  " + kind_name(v.kind) + "  " + shown_status(v);
  if (v.pinned) out += " pinned";
  if (!v.ref.empty()) out += "  ref " + v.ref;
  if (!v.tags.empty()) out += "  tags " + joined(v.tags);
  return out + "  " + one_line(v.text);
}

}  // namespace vasana
