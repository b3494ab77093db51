#include "protocol/op_codec.hpp"

#include <cstring>
#include <optional>

#include "protocol/capnp_fields.hpp"
#include "protocol/ids.hpp"
#include "protocol/json_text.hpp"
#include "protocol/op_type.hpp"
#include "protocol/op_values.hpp"
#include "protocol/ops.capnp.h"
#include "protocol/put_memory_fields.hpp"
#include "protocol/redaction.hpp"

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

const char* shown_status_name(MemoryStatus s, std::optional<ReviewVerdict> review, bool deleted, bool erased) {
  if (erased) return "erased";
  if (deleted) return "deleted";
  if (review == ReviewVerdict::reject) return "rejected";
  if (review == ReviewVerdict::approve && s == MemoryStatus::proposed) return "approved";
  return status_name(s);
}

const char* epistemic_name(Epistemic e) {
  static const char* names[] = {"user_stated", "tool_derived", "model_inferred", "autonomous_synthesis"};
  auto i = static_cast<size_t>(e);
  return i < 4 ? names[i] : "unknown";
}

const char* decision_name(ReviewVerdict d) {
  static const char* names[] = {"approve", "reject", "reopen"};
  auto i = static_cast<size_t>(d);
  return i < 3 ? names[i] : "unknown";
}

bool parse_decision_name(std::string_view name, ReviewVerdict& out) {
  for (ReviewVerdict d : {ReviewVerdict::approve, ReviewVerdict::reject, ReviewVerdict::reopen})
    if (name == decision_name(d)) {
      out = d;
      return true;
    }
  return false;
}

namespace {

using schema::Op;

// The plain enums mirror the schema's, value for value.
static_assert(static_cast<int>(schema::Kind::EPISODE) == static_cast<int>(MemoryKind::episode));
static_assert(static_cast<int>(schema::Status::ARCHIVED) == static_cast<int>(MemoryStatus::archived));
static_assert(static_cast<int>(schema::Epistemic::AUTONOMOUS_SYNTHESIS) ==
              static_cast<int>(Epistemic::autonomous_synthesis));
static_assert(static_cast<int>(schema::Decision::REOPEN) == static_cast<int>(ReviewVerdict::reopen));
static_assert(std::variant_size_v<OpValue> == kMaxOpType);  // every op type but the retired access, and redacted

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
static_assert(static_cast<uint16_t>(Op::ACCESS) + 1 == static_cast<uint16_t>(OpType::access));
static_assert(static_cast<uint16_t>(Op::SET_PINNED) + 1 == static_cast<uint16_t>(OpType::set_pinned));
static_assert(static_cast<uint16_t>(Op::SET_MEMBER) + 1 == static_cast<uint16_t>(OpType::set_member));
static_assert(static_cast<uint16_t>(Op::ERASE_MEMORY) + 1 == kMaxOpType);

const char* kind_name(schema::Kind k) { return vasana::kind_name(static_cast<MemoryKind>(k)); }
const char* status_name(schema::Status s) { return vasana::status_name(static_cast<MemoryStatus>(s)); }
const char* epistemic_name(schema::Epistemic e) { return vasana::epistemic_name(static_cast<Epistemic>(e)); }

schema::Kind kind_from_name(const std::string& k) {
  const auto& ks = memory_kinds();
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i] == k) return static_cast<schema::Kind>(i);
  return schema::Kind::INSIGHT;  // unreachable after validate_memory
}

schema::Status status_from_name(const std::string& s) {
  const auto& ss = memory_statuses();
  for (size_t i = 0; i < ss.size(); ++i)
    if (ss[i] == s) return static_cast<schema::Status>(i);
  return schema::Status::ACTIVE;  // unreachable after validate_memory
}

schema::Epistemic epistemic_from_name(const std::string& e) {
  const auto& es = epistemic_names();
  for (size_t i = 0; i < es.size(); ++i)
    if (es[i] == e) return static_cast<schema::Epistemic>(i);
  return schema::Epistemic::USER_STATED;  // unreachable after validate_memory
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
      if (u.getHasValidTime()) valid_time_json(o, u.getValidFromMs(), u.getValidToMs());
      if (u.hasBasedOn()) o.str("based_on", id_text(u.getBasedOn().getOp()));
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
      if (d.hasBasedOn()) o.str("based_on", id_text(d.getBasedOn().getOp()));
      break;
    }
    case Op::ADD_TRIPLET: {
      auto t = op.getAddTriplet();
      o.str("realm", sv(t.getRealm())).str("subject", sv(t.getSubject())).str("predicate", sv(t.getPredicate()));
      o.str("object", sv(t.getObject()));
      valid_time_json(o, t.getValidFromMs(), t.getValidToMs());
      o.str("source_memory", id_text(t.getSourceMemory())).boolean("functional", t.getFunctional());
      if (t.getFunctional())
        o.str("on_conflict", t.getOnConflict() == schema::ConflictPolicy::SUPERSEDE ? "supersede" : "contradict");
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
      o.str("decision", decision_name(static_cast<ReviewVerdict>(r.getDecision())));
      o.str("reviewer", sv(r.getReviewer())).str("note", sv(r.getNote()));
      break;
    }
    case Op::ACCESS:
      break;  // retired: validate_op refuses it before anything is rendered
    case Op::SET_PINNED: {
      auto p = op.getSetPinned();
      o.str("memory", id_text(p.getMemory())).boolean("pinned", p.getPinned());
      break;
    }
    case Op::SET_MEMBER: {
      auto m = op.getSetMember();
      o.str("public_key", sv(m.getPublicKey())).str("address", sv(m.getAddress()));
      o.boolean("admitted", m.getAdmitted()).str("name", sv(m.getName()));
      break;
    }
    case Op::ERASE_MEMORY: {
      auto e = op.getEraseMemory();
      o.str("memory", id_text(e.getMemory())).str("realm", sv(e.getRealm()));
      o.str("by", sv(e.getBy())).str("reason", sv(e.getReason()));
      break;
    }
  }
  return o.done();
}

}  // namespace

std::optional<std::string_view> op_type_name(uint16_t code) {
  static const char* names[] = {"put_memory",   "update_content",  "set_status",     "set_vector",
                                "delete_memory", "add_triplet",    "retract_triplet", "add_correction",
                                "review_decision", "access",         "set_pinned",     "set_member",
                                "erase_memory"};
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
  put.setStatus(status_from_name(m.status));
  put.setEpistemic(epistemic_from_name(m.epistemic));
  put.setConfidence(m.confidence);
  put.setPinned(m.pinned);
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
  m.status = status_name(p.getStatus());
  m.epistemic = epistemic_name(p.getEpistemic());
  m.confidence = p.getConfidence();
  m.pinned = p.getPinned();
  return m;
}

uint16_t op_type_of(const OpValue& op) {
  if (const auto* r = std::get_if<RedactedOp>(&op)) return static_cast<uint16_t>(r->op_type | kRedactedBit);
  // OpValue's alternatives are the op types in order, the retired access (10) left out.
  constexpr uint16_t kAccess = static_cast<uint16_t>(OpType::access);
  const auto code = static_cast<uint16_t>(op.index() + 1);
  return code < kAccess ? code : code + 1;
}

namespace {

void set_floats(capnp::List<float>::Builder list, const std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) list.set(static_cast<unsigned>(i), v[i]);
}

void set_revision(schema::Revision::Builder b, const Revision& r) {
  b.setEffectiveTs(r.ts.value);
  set_memory_id(b.initOp(), r.op);
}

template <class... Fs>
struct Visitors : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Visitors(Fs...) -> Visitors<Fs...>;

}  // namespace

std::string encode_op(const OpValue& value) {
  if (const auto* r = std::get_if<RedactedOp>(&value))
    return encode_redaction_marker(r->record_hash, r->memory, kRedactionMarkerBytes);
  capnp::MallocMessageBuilder mb;
  Op::Builder op = mb.initRoot<Op>();
  std::visit(
      Visitors{
          [&](const PutMemoryOp& o) {
            auto p = op.initPutMemory();
            p.setRealm(text_of(o.realm));
            p.setKind(static_cast<schema::Kind>(o.kind));
            p.setText(text_of(o.text));
            set_texts(p.initTags(static_cast<unsigned>(o.tags.size())), o.tags);
            p.setRef(text_of(o.ref));
            p.setValidFromMs(o.valid_from_ms);
            p.setValidToMs(o.valid_to_ms);
            auto src = p.initSource();
            src.setSession(text_of(o.source_session));
            src.setTool(text_of(o.source_tool));
            set_floats(p.initVector(static_cast<unsigned>(o.vector.size())), o.vector);
            p.setStatus(static_cast<schema::Status>(o.status));
            p.setEpistemic(static_cast<schema::Epistemic>(o.epistemic));
            p.setConfidence(o.confidence);
            p.setPinned(o.pinned);
          },
          [&](const UpdateContentOp& o) {
            auto u = op.initUpdateContent();
            set_memory_id(u.initMemory(), o.memory);
            u.setText(text_of(o.text));
            u.setReplaceTags(o.replace_tags);
            set_texts(u.initTags(static_cast<unsigned>(o.tags.size())), o.tags);
            u.setHasValidTime(o.has_valid_time);
            u.setValidFromMs(o.valid_from_ms);
            u.setValidToMs(o.valid_to_ms);
            if (o.based_on.known()) set_revision(u.initBasedOn(), o.based_on);
          },
          [&](const SetStatusOp& o) {
            auto s = op.initSetStatus();
            set_memory_id(s.initMemory(), o.memory);
            s.setStatus(static_cast<schema::Status>(o.status));
            s.setReason(text_of(o.reason));
            if (o.replaced_by.seqno.value != 0) set_memory_id(s.initReplacedBy(), o.replaced_by);
          },
          [&](const SetVectorOp& o) {
            auto s = op.initSetVector();
            set_memory_id(s.initMemory(), o.memory);
            set_floats(s.initVector(static_cast<unsigned>(o.vector.size())), o.vector);
            s.setVectorSpace(text_of(o.vector_space));
          },
          [&](const DeleteMemoryOp& o) {
            auto d = op.initDeleteMemory();
            set_memory_id(d.initMemory(), o.memory);
            d.setReason(text_of(o.reason));
            if (o.based_on.known()) set_revision(d.initBasedOn(), o.based_on);
          },
          [&](const AddTripletOp& o) {
            auto t = op.initAddTriplet();
            t.setRealm(text_of(o.realm));
            t.setSubject(text_of(o.subject));
            t.setPredicate(text_of(o.predicate));
            t.setObject(text_of(o.object));
            t.setValidFromMs(o.valid_from_ms);
            t.setValidToMs(o.valid_to_ms);
            if (o.source_memory.seqno.value != 0) set_memory_id(t.initSourceMemory(), o.source_memory);
            t.setFunctional(o.functional);
            t.setOnConflict(static_cast<schema::ConflictPolicy>(o.on_conflict));
          },
          [&](const RetractTripletOp& o) {
            auto r = op.initRetractTriplet();
            set_memory_id(r.initTriplet(), o.triplet);
            r.setReason(text_of(o.reason));
          },
          [&](const AddCorrectionOp& o) {
            auto c = op.initAddCorrection();
            c.setRealm(text_of(o.realm));
            c.setWrong(text_of(o.wrong));
            c.setRight(text_of(o.right));
            c.setNote(text_of(o.note));
            if (o.source_memory.seqno.value != 0) set_memory_id(c.initSourceMemory(), o.source_memory);
          },
          [&](const ReviewDecisionOp& o) {
            auto r = op.initReviewDecision();
            set_memory_id(r.initMemory(), o.memory);
            r.setDecision(static_cast<schema::Decision>(o.decision));
            r.setReviewer(text_of(o.reviewer));
            r.setNote(text_of(o.note));
          },
          [&](const SetPinnedOp& o) {
            auto p = op.initSetPinned();
            set_memory_id(p.initMemory(), o.memory);
            p.setPinned(o.pinned);
          },
          [&](const SetMemberOp& o) {
            auto p = op.initSetMember();
            p.setPublicKey(text_of(o.public_key));
            p.setAddress(text_of(o.address));
            p.setAdmitted(o.admitted);
            p.setName(text_of(o.name));
          },
          [&](const EraseMemoryOp& o) {
            auto e = op.initEraseMemory();
            set_memory_id(e.initMemory(), o.memory);
            e.setRealm(text_of(o.realm));
            e.setCreatedTs(o.created_ts.value);
            e.setBy(text_of(o.by));
            e.setReason(text_of(o.reason));
          },
          [&](const RedactedOp&) {},  // not a message: encode_op writes its marker
      },
      value);
  return message_bytes(mb);
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
// The first checks of every op payload: the type is known to this build, and the message holds it.
Status check_op_type(uint16_t op_type) {
  if (!op_type_name(op_type))
    return Status::Incompatible("op type " + std::to_string(op_type) + " is newer than this build; upgrade vasana");
  // No vasana ever wrote one: a record of it was not written by a writer of this format.
  if (is_retired_op_type(op_type))
    return Status::Corruption("op type " + std::to_string(op_type) + " (" + std::string(*op_type_name(op_type)) +
                              ") is retired: no writer writes it");
  return Status::Ok();
}
Status check_op_holds(uint16_t op_type, Op::Reader op) {
  if (static_cast<uint16_t>(op.which()) + 1 != op_type)
    return Status::Corruption("record says op type " + std::to_string(op_type) + " but its payload holds op " +
                              std::to_string(static_cast<uint16_t>(op.which()) + 1));
  return Status::Ok();
}
}  // namespace

Result<std::string> op_fields_json(uint16_t op_type, std::string_view payload) {
  Status s = validate_op(op_type, payload);
  if (!s.ok()) return s;
  if (is_redacted_op_type(op_type)) {
    const RedactedOp r = decode_redaction_marker(op_type, payload).value();
    return std::string("{\"redacted\":true,\"memory\":\"") + r.memory.to_string() + "\"}";
  }
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

// Reads an op's fields into a plain value and says what is wrong with the first field that is
// not as the schema and this build need it. Texts and lists are assigned into the value's
// existing strings and vectors, so that a value decoded into again and again (validate_op's)
// reuses their memory. A field Cap'n Proto cannot read at all (a pointer out of bounds or of
// another kind, text without its NUL) throws kj::Exception: read_message turns that into
// Corruption.
// is_valid_utf8, with runs of ASCII (most text) skipped eight bytes at a time: a cut before a
// byte below 0x80 is always a character boundary.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  for (uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ull) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i == s.size() || is_valid_utf8(s.substr(i));
}

class FieldDecoder {
 public:
  const Status& status() const { return status_; }

  void text(const char* field, capnp::Text::Reader t, std::string& out, bool required = false) {
    out.assign(t.cStr(), t.size());
    if (!status_.ok()) return;
    if (required && out.empty())
      corrupt(std::string(field) + " is required and empty");
    else if (!valid_utf8(out))
      corrupt(std::string(field) + " is not valid UTF-8");
  }

  void texts(const char* field, capnp::List<capnp::Text>::Reader list, std::vector<std::string>& out) {
    out.resize(list.size());
    for (unsigned i = 0; i < list.size(); ++i) text(field, list[i], out[i]);
  }

  void floats(const char* field, capnp::List<float>::Reader list, std::vector<float>& out) {
    if (list.size() > kMaxVectorDim) {
      out.clear();
      return corrupt(std::string(field) + " has " + std::to_string(list.size()) + " values; the limit is " +
                     std::to_string(kMaxVectorDim));
    }
    out.resize(list.size());
    for (unsigned i = 0; i < list.size(); ++i) out[i] = list[i];
  }

  // A revision is absent (unknown) or whole: a clock value and an op id.
  template <class Holder>
  void revision(const Holder& h, Revision& out) {
    if (!h.hasBasedOn()) return;
    auto r = h.getBasedOn();
    id("based_on", r.getOp(), out.op, /*required=*/true);
    out.ts = Hlc(r.getEffectiveTs());
    if (out.ts.value == 0) corrupt("based_on has no clock value");
  }

  // required: the op acts on that memory or triplet, so seqno 0 ("none") is not allowed.
  void id(const char* field, schema::MemoryId::Reader r, MemoryId& out, bool required) {
    out = MemoryId{InstanceId(r.getInstance()), Seqno(r.getSeqno())};
    if (required && out.seqno.value == 0) corrupt(std::string(field) + " is required and missing");
  }

  // An enum value past the last one this build knows: written by a newer build, as an op type
  // this build does not know is.
  template <class Plain, class Schema>
  void enumerated(const char* field, Schema raw, uint16_t known, Plain& out) {
    const auto v = static_cast<uint16_t>(raw);
    out = static_cast<Plain>(v < known ? v : 0);
    if (v >= known && status_.ok())
      status_ = Status::Incompatible(std::string(field) + " " + std::to_string(v) +
                                     " is newer than this build; upgrade vasana");
  }

 private:
  void corrupt(const std::string& why) {
    if (status_.ok()) status_ = Status::Corruption(why);
  }

  Status status_;
};

// The value of alternative T in v, made T (with default fields) when v holds another op.
template <class T>
T& holding(OpValue& v) {
  if (T* t = std::get_if<T>(&v)) return *t;
  return v.emplace<T>();
}

// How many values each schema enum has (its last value + 1).
constexpr uint16_t kKinds = 6, kStatuses = 7, kEpistemics = 4, kDecisions = 3, kPolicies = 2;
static_assert(static_cast<uint16_t>(schema::Kind::EPISODE) + 1 == kKinds);
static_assert(static_cast<uint16_t>(schema::Status::ARCHIVED) + 1 == kStatuses);
static_assert(static_cast<uint16_t>(schema::Epistemic::AUTONOMOUS_SYNTHESIS) + 1 == kEpistemics);
static_assert(static_cast<uint16_t>(schema::Decision::REOPEN) + 1 == kDecisions);
static_assert(static_cast<uint16_t>(schema::ConflictPolicy::CONTRADICT) + 1 == kPolicies);

// Every field of op into out; which() is known to be a member this build has (check_op_holds).
Status decode_into(Op::Reader op, OpValue& out) {
  FieldDecoder d;
  switch (op.which()) {
    case Op::PUT_MEMORY: {
      auto p = op.getPutMemory();
      auto& v = holding<PutMemoryOp>(out);
      d.text("realm", p.getRealm(), v.realm, /*required=*/true);
      d.enumerated("kind", p.getKind(), kKinds, v.kind);
      d.text("text", p.getText(), v.text, /*required=*/true);
      d.texts("tag", p.getTags(), v.tags);
      d.text("ref", p.getRef(), v.ref);
      v.valid_from_ms = p.getValidFromMs();
      v.valid_to_ms = p.getValidToMs();
      auto source = p.getSource();
      d.text("source session", source.getSession(), v.source_session);
      d.text("source tool", source.getTool(), v.source_tool);
      d.floats("vector", p.getVector(), v.vector);
      d.enumerated("status", p.getStatus(), kStatuses, v.status);
      d.enumerated("epistemic", p.getEpistemic(), kEpistemics, v.epistemic);
      v.confidence = p.getConfidence();
      v.pinned = p.getPinned();
      break;
    }
    case Op::UPDATE_CONTENT: {
      auto u = op.getUpdateContent();
      auto& v = holding<UpdateContentOp>(out);
      d.id("memory", u.getMemory(), v.memory, /*required=*/true);
      d.text("text", u.getText(), v.text);
      v.replace_tags = u.getReplaceTags();
      d.texts("tag", u.getTags(), v.tags);
      v.has_valid_time = u.getHasValidTime();
      v.valid_from_ms = u.getValidFromMs();
      v.valid_to_ms = u.getValidToMs();
      d.revision(u, v.based_on);
      break;
    }
    case Op::SET_STATUS: {
      auto s = op.getSetStatus();
      auto& v = holding<SetStatusOp>(out);
      d.id("memory", s.getMemory(), v.memory, /*required=*/true);
      d.enumerated("status", s.getStatus(), kStatuses, v.status);
      d.text("reason", s.getReason(), v.reason);
      d.id("replaced_by", s.getReplacedBy(), v.replaced_by, /*required=*/false);
      break;
    }
    case Op::SET_VECTOR: {
      auto s = op.getSetVector();
      auto& v = holding<SetVectorOp>(out);
      d.id("memory", s.getMemory(), v.memory, /*required=*/true);
      d.floats("vector", s.getVector(), v.vector);
      d.text("vector_space", s.getVectorSpace(), v.vector_space);
      break;
    }
    case Op::DELETE_MEMORY: {
      auto del = op.getDeleteMemory();
      auto& v = holding<DeleteMemoryOp>(out);
      d.id("memory", del.getMemory(), v.memory, /*required=*/true);
      d.text("reason", del.getReason(), v.reason);
      d.revision(del, v.based_on);
      break;
    }
    case Op::ADD_TRIPLET: {
      auto t = op.getAddTriplet();
      auto& v = holding<AddTripletOp>(out);
      d.text("realm", t.getRealm(), v.realm);
      d.text("subject", t.getSubject(), v.subject);
      d.text("predicate", t.getPredicate(), v.predicate);
      d.text("object", t.getObject(), v.object);
      v.valid_from_ms = t.getValidFromMs();
      v.valid_to_ms = t.getValidToMs();
      d.id("source_memory", t.getSourceMemory(), v.source_memory, /*required=*/false);
      v.functional = t.getFunctional();
      d.enumerated("on_conflict", t.getOnConflict(), kPolicies, v.on_conflict);
      break;
    }
    case Op::RETRACT_TRIPLET: {
      auto r = op.getRetractTriplet();
      auto& v = holding<RetractTripletOp>(out);
      d.id("triplet", r.getTriplet(), v.triplet, /*required=*/true);
      d.text("reason", r.getReason(), v.reason);
      break;
    }
    case Op::ADD_CORRECTION: {
      auto c = op.getAddCorrection();
      auto& v = holding<AddCorrectionOp>(out);
      d.text("realm", c.getRealm(), v.realm);
      d.text("wrong", c.getWrong(), v.wrong);
      d.text("right", c.getRight(), v.right);
      d.text("note", c.getNote(), v.note);
      d.id("source_memory", c.getSourceMemory(), v.source_memory, /*required=*/false);
      break;
    }
    case Op::REVIEW_DECISION: {
      auto r = op.getReviewDecision();
      auto& v = holding<ReviewDecisionOp>(out);
      d.id("memory", r.getMemory(), v.memory, /*required=*/true);
      d.enumerated("decision", r.getDecision(), kDecisions, v.decision);
      d.text("reviewer", r.getReviewer(), v.reviewer);
      d.text("note", r.getNote(), v.note);
      break;
    }
    case Op::ACCESS:
      return Status::Corruption("access is retired");  // check_op_type refuses it first
    case Op::SET_PINNED: {
      auto p = op.getSetPinned();
      auto& v = holding<SetPinnedOp>(out);
      d.id("memory", p.getMemory(), v.memory, /*required=*/true);
      v.pinned = p.getPinned();
      break;
    }
    case Op::SET_MEMBER: {
      auto m = op.getSetMember();
      auto& v = holding<SetMemberOp>(out);
      d.text("public_key", m.getPublicKey(), v.public_key, /*required=*/true);
      d.text("address", m.getAddress(), v.address);
      v.admitted = m.getAdmitted();
      d.text("name", m.getName(), v.name);
      break;
    }
    case Op::ERASE_MEMORY: {
      auto e = op.getEraseMemory();
      auto& v = holding<EraseMemoryOp>(out);
      d.id("memory", e.getMemory(), v.memory, /*required=*/true);
      d.text("realm", e.getRealm(), v.realm, /*required=*/true);
      v.created_ts = Hlc(e.getCreatedTs());
      d.text("by", e.getBy(), v.by);
      d.text("reason", e.getReason(), v.reason);
      break;
    }
  }
  return d.status();
}

// The bounds an op payload is read under: an op reads each of its words about once, so twice
// its size (and a little for tiny ones) is never reached by a sound op and caps what a crafted
// one (many pointers to the same bytes) makes a reader copy. Ops nest four levels at most.
capnp::ReaderOptions op_reader_options(size_t payload_bytes) {
  capnp::ReaderOptions opts;
  opts.traversalLimitInWords = 2 * (payload_bytes / sizeof(capnp::word)) + 64;
  opts.nestingLimit = 8;
  return opts;
}

// The one decode of an op payload, for validate_op and decode_op alike. Its errors name the op
// type the record claims ("put_memory: text is not valid UTF-8").
Status decode_payload(uint16_t op_type, std::string_view payload, OpValue& out) {
  if (is_redacted_op_type(op_type)) {
    Status known = check_op_type(static_cast<uint16_t>(op_type & ~kRedactedBit));
    if (!known.ok()) return known;
    auto r = decode_redaction_marker(op_type, payload);
    if (!r.ok()) return r.status();
    out = std::move(r.value());
    return Status::Ok();
  }
  Status s = check_op_type(op_type);
  if (!s.ok()) return s;
  s = read_message<Op>(
      payload,
      [&](Op::Reader op) {
        Status holds = check_op_holds(op_type, op);
        return holds.ok() ? decode_into(op, out) : holds;
      },
      op_reader_options(payload.size()));
  if (s.ok()) return s;
  std::string why = std::string(*op_type_name(op_type)) + ": " + s.message();
  return s.code() == Code::incompatible ? Status::Incompatible(std::move(why)) : Status::Corruption(std::move(why));
}

// Above this, validate_op's value is dropped after use, so that a thread does not keep the
// strings of one large op.
constexpr size_t kKeepValueBytes = 64 * 1024;

}  // namespace

Status validate_op(uint16_t op_type, std::string_view payload) {
  thread_local OpValue value;
  Status s = decode_payload(op_type, payload, value);
  if (payload.size() > kKeepValueBytes) value = OpValue{};
  return s;
}

Result<OpValue> decode_op(uint16_t op_type, std::string_view payload) {
  OpValue out;
  Status s = decode_payload(op_type, payload, out);
  if (!s.ok()) return s;
  return out;
}

}  // namespace vasana
