#include "protocol/op_codec.hpp"

#include <optional>

#include "protocol/capnp_bytes.hpp"
#include "protocol/ids.hpp"
#include "protocol/json_text.hpp"
#include "protocol/op_type.hpp"
#include "protocol/op_values.hpp"
#include "protocol/ops.capnp.h"
#include "protocol/put_memory_fields.hpp"

namespace vasana {

const char* kind_name(MemoryKind k) {
  static const char* names[] = {"correction", "preference", "wisdom", "insight", "operational", "episode"};
  auto i = static_cast<size_t>(k);
  return i < 6 ? names[i] : "unknown";
}

const char* status_name(MemoryStatus s) {
  static const char* names[] = {"active",     "verified",     "observed", "proposed",
                                "superseded", "contradicted", "archived"};
  auto i = static_cast<size_t>(s);
  return i < 7 ? names[i] : "unknown";
}

const char* epistemic_name(Epistemic e) {
  static const char* names[] = {"user_stated", "tool_derived", "model_inferred", "autonomous_synthesis"};
  auto i = static_cast<size_t>(e);
  return i < 4 ? names[i] : "unknown";
}

namespace {

using schema::Op;

// The plain enums mirror the schema's, value for value.
static_assert(static_cast<int>(schema::Kind::EPISODE) == static_cast<int>(MemoryKind::episode));
static_assert(static_cast<int>(schema::Status::ARCHIVED) == static_cast<int>(MemoryStatus::archived));
static_assert(static_cast<int>(schema::Epistemic::AUTONOMOUS_SYNTHESIS) ==
              static_cast<int>(Epistemic::autonomous_synthesis));
static_assert(std::variant_size_v<OpValue> == kMaxOpType);

// Op type code = union ordinal + 1: a reordering of the schema breaks the build here.
static_assert(static_cast<uint16_t>(Op::PUT_MEMORY) + 1 == static_cast<uint16_t>(OpType::put_memory));
static_assert(static_cast<uint16_t>(Op::UPDATE_CONTENT) + 1 == static_cast<uint16_t>(OpType::update_content));
static_assert(static_cast<uint16_t>(Op::SET_STATUS) + 1 == static_cast<uint16_t>(OpType::set_status));
static_assert(static_cast<uint16_t>(Op::SET_VECTOR) + 1 == static_cast<uint16_t>(OpType::set_vector));
static_assert(static_cast<uint16_t>(Op::DELETE_MEMORY) + 1 == static_cast<uint16_t>(OpType::delete_memory));
static_assert(static_cast<uint16_t>(Op::ADD_TRIPLET) + 1 == static_cast<uint16_t>(OpType::add_triplet));
static_assert(static_cast<uint16_t>(Op::RETRACT_TRIPLET) + 1 == static_cast<uint16_t>(OpType::retract_triplet));
static_assert(static_cast<uint16_t>(Op::ADD_CORRECTION) + 1 == static_cast<uint16_t>(OpType::add_correction));
static_assert(static_cast<uint16_t>(Op::REVIEW_DECISION) + 1 == static_cast<uint16_t>(OpType::review_decision));
static_assert(static_cast<uint16_t>(Op::ACCESS) + 1 == kMaxOpType);

const char* kind_name(schema::Kind k) { return vasana::kind_name(static_cast<MemoryKind>(k)); }
const char* status_name(schema::Status s) { return vasana::status_name(static_cast<MemoryStatus>(s)); }
const char* epistemic_name(schema::Epistemic e) { return vasana::epistemic_name(static_cast<Epistemic>(e)); }

schema::Kind kind_from_name(const std::string& k) {
  const auto& ks = memory_kinds();
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i] == k) return static_cast<schema::Kind>(i);
  return schema::Kind::INSIGHT;  // unreachable after validate_memory
}

std::string id_text(schema::MemoryId::Reader r) {
  if (r.getSeqno() == 0) return "";
  return MemoryId{InstanceId(r.getInstance()), Seqno(r.getSeqno())}.to_string();
}

std::string texts_json(capnp::List<capnp::Text>::Reader list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out.push_back(',');
    append_json_string(out, std::string_view(list[i].cStr(), list[i].size()));
  }
  return out + "]";
}

std::string_view sv(capnp::Text::Reader t) { return std::string_view(t.cStr(), t.size()); }

void valid_time_json(JsonObject& o, int64_t from, int64_t to) {
  o.str("valid_from", format_time_ms(from)).str("valid_to", format_time_ms(to));
}

std::string render(Op::Reader op) {
  JsonObject o;
  switch (op.which()) {
    case Op::PUT_MEMORY: {
      auto m = op.getPutMemory();
      o.str("realm", sv(m.getRealm())).str("kind", kind_name(m.getKind())).str("text", sv(m.getText()));
      o.raw("tags", texts_json(m.getTags())).str("ref", sv(m.getRef()));
      valid_time_json(o, m.getValidFromMs(), m.getValidToMs());
      o.str("source_session", sv(m.getSource().getSession())).str("source_tool", sv(m.getSource().getTool()));
      o.unum("vector_dim", m.getVector().size()).str("status", status_name(m.getStatus()));
      o.str("epistemic", epistemic_name(m.getEpistemic())).real("confidence", m.getConfidence());
      o.boolean("pinned", m.getPinned());
      break;
    }
    case Op::UPDATE_CONTENT: {
      auto u = op.getUpdateContent();
      o.str("memory", id_text(u.getMemory())).str("text", sv(u.getText())).boolean("replace_tags", u.getReplaceTags());
      o.raw("tags", texts_json(u.getTags()));
      break;
    }
    case Op::SET_STATUS: {
      auto s = op.getSetStatus();
      o.str("memory", id_text(s.getMemory())).str("status", status_name(s.getStatus()));
      o.str("reason", sv(s.getReason())).str("replaced_by", id_text(s.getReplacedBy()));
      break;
    }
    case Op::SET_VECTOR: {
      auto s = op.getSetVector();
      o.str("memory", id_text(s.getMemory())).unum("vector_dim", s.getVector().size());
      o.str("vector_space", sv(s.getVectorSpace()));
      break;
    }
    case Op::DELETE_MEMORY: {
      auto d = op.getDeleteMemory();
      o.str("memory", id_text(d.getMemory())).str("reason", sv(d.getReason()));
      break;
    }
    case Op::ADD_TRIPLET: {
      auto t = op.getAddTriplet();
      o.str("realm", sv(t.getRealm())).str("subject", sv(t.getSubject())).str("predicate", sv(t.getPredicate()));
      o.str("object", sv(t.getObject()));
      valid_time_json(o, t.getValidFromMs(), t.getValidToMs());
      o.str("source_memory", id_text(t.getSourceMemory()));
      break;
    }
    case Op::RETRACT_TRIPLET: {
      auto r = op.getRetractTriplet();
      o.str("triplet", id_text(r.getTriplet())).str("reason", sv(r.getReason()));
      break;
    }
    case Op::ADD_CORRECTION: {
      auto c = op.getAddCorrection();
      o.str("realm", sv(c.getRealm())).str("wrong", sv(c.getWrong())).str("right", sv(c.getRight()));
      o.str("note", sv(c.getNote())).str("source_memory", id_text(c.getSourceMemory()));
      break;
    }
    case Op::REVIEW_DECISION: {
      auto r = op.getReviewDecision();
      o.str("memory", id_text(r.getMemory()));
      o.str("decision", r.getDecision() == schema::Decision::APPROVE ? "approve" : "reject");
      o.str("reviewer", sv(r.getReviewer())).str("note", sv(r.getNote()));
      break;
    }
    case Op::ACCESS: {
      auto a = op.getAccess();
      o.str("memory", id_text(a.getMemory()));
      o.str("access", a.getKind() == schema::AccessKind::RECALLED ? "recalled" : "reinforced");
      o.real("weight", a.getWeight());
      break;
    }
  }
  return o.done();
}

}  // namespace

std::optional<std::string_view> op_type_name(uint16_t code) {
  static const char* names[] = {"put_memory",   "update_content",  "set_status",     "set_vector",
                                "delete_memory", "add_triplet",    "retract_triplet", "add_correction",
                                "review_decision", "access"};
  if (code == 0 || code > kMaxOpType) return std::nullopt;
  return names[code - 1];
}

void fill_put_memory(schema::PutMemory::Builder put, const MemoryInput& m) {
  put.setRealm(text_of(m.realm));
  put.setKind(kind_from_name(m.kind));
  put.setText(text_of(m.text));
  auto tags = put.initTags(static_cast<unsigned>(m.tags.size()));
  for (size_t i = 0; i < m.tags.size(); ++i) tags.set(static_cast<unsigned>(i), text_of(m.tags[i]));
  put.setRef(text_of(m.ref));
  put.setValidFromMs(m.valid_from_ms);
  put.setValidToMs(m.valid_to_ms);
  auto src = put.initSource();
  src.setSession(text_of(m.source_session));
  src.setTool(text_of(m.source_tool));
  auto vec = put.initVector(static_cast<unsigned>(m.vector.size()));
  for (size_t i = 0; i < m.vector.size(); ++i) vec.set(static_cast<unsigned>(i), m.vector[i]);
}

MemoryInput memory_from_reader(schema::PutMemory::Reader p) {
  MemoryInput m;
  m.realm = string_of(p.getRealm());
  m.kind = kind_name(p.getKind());
  m.text = string_of(p.getText());
  for (auto t : p.getTags()) m.tags.push_back(string_of(t));
  m.ref = string_of(p.getRef());
  m.valid_from_ms = p.getValidFromMs();
  m.valid_to_ms = p.getValidToMs();
  m.source_session = string_of(p.getSource().getSession());
  m.source_tool = string_of(p.getSource().getTool());
  for (float f : p.getVector()) m.vector.push_back(f);
  return m;
}

std::string encode_put_memory(const MemoryInput& m) {
  capnp::MallocMessageBuilder mb;
  fill_put_memory(mb.initRoot<Op>().initPutMemory(), m);
  return message_bytes(mb);
}

Result<MemoryInput> decode_put_memory(std::string_view payload) {
  MemoryInput m;
  Status s = read_message<Op>(payload, [&](Op::Reader op) {
    if (op.which() != Op::PUT_MEMORY) return Status::Corruption("op is not put_memory");
    m = memory_from_reader(op.getPutMemory());
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return m;
}

namespace {
// The checks of check_op_payload: the type is known to this build, and the message holds it.
Status check_op_type(uint16_t op_type) {
  if (!op_type_name(op_type))
    return Status::Incompatible("op type " + std::to_string(op_type) + " is newer than this build; upgrade vasana");
  return Status::Ok();
}
Status check_op_holds(uint16_t op_type, Op::Reader op) {
  if (static_cast<uint16_t>(op.which()) + 1 != op_type)
    return Status::Corruption("record says op type " + std::to_string(op_type) + " but its payload holds op " +
                              std::to_string(static_cast<uint16_t>(op.which()) + 1));
  return Status::Ok();
}
}  // namespace

Status check_op_payload(uint16_t op_type, std::string_view payload) {
  Status s = check_op_type(op_type);
  if (!s.ok()) return s;
  return read_message<Op>(payload, [&](Op::Reader op) { return check_op_holds(op_type, op); });
}

Result<std::string> op_fields_json(uint16_t op_type, std::string_view payload) {
  Status s = check_op_payload(op_type, payload);
  if (!s.ok()) return s;
  std::string out;
  s = read_message<Op>(payload, [&](Op::Reader op) {
    out = render(op);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace vasana

namespace vasana {

namespace {

MemoryId memory_id(schema::MemoryId::Reader r) { return MemoryId{InstanceId(r.getInstance()), Seqno(r.getSeqno())}; }

std::vector<std::string> texts(capnp::List<capnp::Text>::Reader list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (auto t : list) out.emplace_back(t.cStr(), t.size());
  return out;
}

std::vector<float> floats(capnp::List<float>::Reader list) {
  std::vector<float> out;
  out.reserve(list.size());
  for (float f : list) out.push_back(f);
  return out;
}

OpValue decode(Op::Reader op) {
  switch (op.which()) {
    case Op::PUT_MEMORY: {
      auto p = op.getPutMemory();
      PutMemoryOp v;
      v.realm = p.getRealm();
      v.kind = static_cast<MemoryKind>(p.getKind());
      v.text = p.getText();
      v.tags = texts(p.getTags());
      v.ref = p.getRef();
      v.valid_from_ms = p.getValidFromMs();
      v.valid_to_ms = p.getValidToMs();
      v.source_session = p.getSource().getSession();
      v.source_tool = p.getSource().getTool();
      v.vector = floats(p.getVector());
      v.status = static_cast<MemoryStatus>(p.getStatus());
      v.epistemic = static_cast<Epistemic>(p.getEpistemic());
      v.confidence = p.getConfidence();
      v.pinned = p.getPinned();
      return v;
    }
    case Op::UPDATE_CONTENT: {
      auto u = op.getUpdateContent();
      return UpdateContentOp{memory_id(u.getMemory()), u.getText(), u.getReplaceTags(), texts(u.getTags())};
    }
    case Op::SET_STATUS: {
      auto s = op.getSetStatus();
      return SetStatusOp{memory_id(s.getMemory()), static_cast<MemoryStatus>(s.getStatus()), s.getReason(),
                         memory_id(s.getReplacedBy())};
    }
    case Op::SET_VECTOR: {
      auto s = op.getSetVector();
      return SetVectorOp{memory_id(s.getMemory()), floats(s.getVector()), s.getVectorSpace()};
    }
    case Op::DELETE_MEMORY: {
      auto d = op.getDeleteMemory();
      return DeleteMemoryOp{memory_id(d.getMemory()), d.getReason()};
    }
    case Op::ADD_TRIPLET: {
      auto t = op.getAddTriplet();
      return AddTripletOp{t.getRealm(),       t.getSubject(),   t.getPredicate(),
                          t.getObject(),      t.getValidFromMs(), t.getValidToMs(),
                          memory_id(t.getSourceMemory())};
    }
    case Op::RETRACT_TRIPLET: {
      auto r = op.getRetractTriplet();
      return RetractTripletOp{memory_id(r.getTriplet()), r.getReason()};
    }
    case Op::ADD_CORRECTION: {
      auto c = op.getAddCorrection();
      return AddCorrectionOp{c.getRealm(), c.getWrong(), c.getRight(), c.getNote(), memory_id(c.getSourceMemory())};
    }
    case Op::REVIEW_DECISION: {
      auto r = op.getReviewDecision();
      return ReviewDecisionOp{memory_id(r.getMemory()), static_cast<ReviewVerdict>(r.getDecision()), r.getReviewer(),
                              r.getNote()};
    }
    case Op::ACCESS: {
      auto a = op.getAccess();
      return AccessOp{memory_id(a.getMemory()), static_cast<AccessKind>(a.getKind()), a.getWeight()};
    }
  }
  return PutMemoryOp{};  // unreachable: check_op_holds ran first
}

}  // namespace

Result<OpValue> decode_op(uint16_t op_type, std::string_view payload) {
  Status s = check_op_type(op_type);
  if (!s.ok()) return s;
  std::optional<OpValue> out;
  s = read_message<Op>(payload, [&](Op::Reader op) {
    Status holds = check_op_holds(op_type, op);
    if (holds.ok()) out = decode(op);
    return holds;
  });
  if (!s.ok()) return s;
  return std::move(*out);
}

}  // namespace vasana
