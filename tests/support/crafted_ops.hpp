// Op payloads for the tests of payload validation (protocol/op_codec.hpp validate_op): a sound
// op of every op type, and crafted payloads that are not ops this build can apply (bad
// pointers, truncated messages, fields of the wrong kind, text without its NUL or not UTF-8,
// enum values past the schema's, required fields missing, too long vectors, a union member past
// the schema's, many pointers to the same bytes). Every crafted payload is a whole number of
// words, so that it reaches Cap'n Proto (or the field checks) rather than the size check.
#pragma once

#include <catch2/catch.hpp>

#include <capnp/any.h>
#include <capnp/message.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "protocol/capnp_bytes.hpp"
#include "protocol/op_type.hpp"
#include "protocol/ops.capnp.h"
#include "protocol/status.hpp"

namespace vasana::test {

struct CraftedOp {
  std::string name;
  uint16_t op_type = 0;
  std::string payload;
  Code refused_as = Code::corruption;  // for the malformed ones
};

// The struct b builds, as a struct of any type: to write its sections by hand.
template <class StructBuilder>
capnp::AnyStruct::Builder any_struct(StructBuilder b) {
  return capnp::AnyStruct::Builder(std::move(b));
}

inline uint16_t type_code(OpType t) { return static_cast<uint16_t>(t); }

inline void set_id(schema::MemoryId::Builder b, uint64_t instance, uint64_t seqno) {
  b.setInstance(instance);
  b.setSeqno(seqno);
}

// One sound op of every op type a writer writes (all but the retired access), in op type order.
// Ids point at the put (instance 7, seqno 1).
inline std::vector<CraftedOp> sound_ops_of_every_type() {
  std::vector<CraftedOp> out;
  auto add = [&](const char* name, OpType t, auto fill) {
    capnp::MallocMessageBuilder mb;
    fill(mb.initRoot<schema::Op>());
    out.push_back(CraftedOp{name, type_code(t), message_bytes(mb)});
  };
  add("put_memory", OpType::put_memory, [](schema::Op::Builder op) {
    auto p = op.initPutMemory();
    p.setRealm("work");
    p.setKind(schema::Kind::EPISODE);
    p.setText("the deploy uses blue green, see \xc3\xa9t\xc3\xa9 notes");
    auto tags = p.initTags(2);
    tags.set(0, "ops");
    tags.set(1, "deploy");
    p.setRef("ref-1");
    p.setValidFromMs(1000);
    p.setValidToMs(2000);
    p.initSource().setSession("s-1");
    p.getSource().setTool("cli");
    auto v = p.initVector(4);
    for (unsigned i = 0; i < 4; ++i) v.set(i, 0.5f * float(i + 1));
    p.setStatus(schema::Status::OBSERVED);
    p.setEpistemic(schema::Epistemic::TOOL_DERIVED);
    p.setConfidence(0.75f);
    p.setPinned(true);
  });
  add("update_content", OpType::update_content, [](schema::Op::Builder op) {
    auto u = op.initUpdateContent();
    set_id(u.initMemory(), 7, 1);
    u.setText("the deploy uses canaries now");
    u.setReplaceTags(true);
    u.initTags(1).set(0, "canary");
  });
  add("set_status", OpType::set_status, [](schema::Op::Builder op) {
    auto s = op.initSetStatus();
    set_id(s.initMemory(), 7, 1);
    s.setStatus(schema::Status::SUPERSEDED);
    s.setReason("replaced");
    set_id(s.initReplacedBy(), 7, 2);
  });
  add("set_vector", OpType::set_vector, [](schema::Op::Builder op) {
    auto s = op.initSetVector();
    set_id(s.initMemory(), 7, 1);
    auto v = s.initVector(4);
    for (unsigned i = 0; i < 4; ++i) v.set(i, 1.0f - 0.25f * float(i));
    s.setVectorSpace("hash/4/1");
  });
  add("delete_memory", OpType::delete_memory, [](schema::Op::Builder op) {
    auto d = op.initDeleteMemory();
    set_id(d.initMemory(), 7, 1);
    d.setReason("wrong");
  });
  add("add_triplet", OpType::add_triplet, [](schema::Op::Builder op) {
    auto t = op.initAddTriplet();
    t.setRealm("work");
    t.setSubject("deploy");
    t.setPredicate("uses");
    t.setObject("canaries");
    set_id(t.initSourceMemory(), 7, 1);
  });
  add("retract_triplet", OpType::retract_triplet, [](schema::Op::Builder op) {
    auto r = op.initRetractTriplet();
    set_id(r.initTriplet(), 7, 6);
    r.setReason("outdated");
  });
  add("add_correction", OpType::add_correction, [](schema::Op::Builder op) {
    auto c = op.initAddCorrection();
    c.setRealm("work");
    c.setWrong("the build uses make");
    c.setRight("the build uses ninja");
    c.setNote("seen in CI");
  });
  add("review_decision", OpType::review_decision, [](schema::Op::Builder op) {
    auto r = op.initReviewDecision();
    set_id(r.initMemory(), 7, 1);
    r.setDecision(schema::Decision::REJECT);
    r.setReviewer("ana");
    r.setNote("not true");
  });
  add("set_pinned", OpType::set_pinned, [](schema::Op::Builder op) {
    auto p = op.initSetPinned();
    set_id(p.initMemory(), 7, 1);
    p.setPinned(true);
  });
  add("set_member", OpType::set_member, [](schema::Op::Builder op) {
    auto m = op.initSetMember();
    m.setPublicKey("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
    m.setAddress("tcp://10.0.0.4:7102");
    m.setAdmitted(true);
    m.setName("d");
  });
  add("erase_memory", OpType::erase_memory, [](schema::Op::Builder op) {
    auto e = op.initEraseMemory();
    set_id(e.initMemory(), 7, 1);
    e.setRealm("work");
    e.setCreatedTs(Hlc::make(1000, 0).value);  // the put's, as the replica tests apply it
    e.setBy("ana");
    e.setReason("holds a password");
  });
  return out;
}

// A sound put_memory built by fill on top of realm "r", text "some text".
template <class Fill>
std::string put_with(Fill fill) {
  capnp::MallocMessageBuilder mb;
  auto p = mb.initRoot<schema::Op>().initPutMemory();
  p.setRealm("r");
  p.setText("some text");
  fill(p);
  return message_bytes(mb);
}

// Word i of a payload, and setting it (little-endian hosts, as the format is).
inline uint64_t word_at(const std::string& s, size_t i) {
  uint64_t w;
  std::memcpy(&w, s.data() + 8 * i, 8);
  return w;
}
inline void set_word(std::string& s, size_t i, uint64_t w) { std::memcpy(s.data() + 8 * i, &w, 8); }

// A list pointer at word `at` to `count` bytes at word `target` (both counted from the start of
// the payload, whose word 0 is the segment table).
inline uint64_t byte_list_pointer(size_t at, size_t target, uint32_t count) {
  const int64_t offset = int64_t(target) - int64_t(at + 1);
  return (uint64_t(uint32_t(offset << 2)) | 1u) | (uint64_t(2) << 32) | (uint64_t(count) << 35);
}

// A put whose 64 tags all point at the same 8 KiB text: 64 times the payload's size to read.
inline std::string put_with_aliased_tags() {
  const std::string big(8191, 'T');
  std::string s = put_with([&](schema::PutMemory::Builder p) {
    auto tags = p.initTags(64);
    for (unsigned i = 0; i < 64; ++i) tags.set(i, "a");
    p.setRef(big);
  });
  const size_t big_at = s.find(big);
  REQUIRE(big_at != std::string::npos);
  REQUIRE(big_at % 8 == 0);
  size_t pointed = 0;
  for (size_t i = 1; 8 * (i + 1) <= s.size(); ++i) {
    const uint64_t w = word_at(s, i);
    // A list pointer to two bytes ("a" and its NUL) whose target word holds "a".
    if ((w & 3) != 1 || ((w >> 32) & 7) != 2 || (w >> 35) != 2) continue;
    const int64_t offset = int64_t(int32_t(uint32_t(w)) >> 2);
    const size_t target = size_t(int64_t(i) + 1 + offset);
    if (8 * (target + 1) > s.size() || s.compare(8 * target, 2, std::string("a\0", 2)) != 0) continue;
    set_word(s, i, byte_list_pointer(i, big_at / 8, uint32_t(big.size() + 1)));
    ++pointed;
  }
  REQUIRE(pointed == 64);
  return s;
}

// Payloads no build of this schema can apply, each with the code validate_op refuses it with.
inline std::vector<CraftedOp> malformed_ops() {
  const uint16_t put = type_code(OpType::put_memory);
  const uint16_t del = type_code(OpType::delete_memory);
  std::vector<CraftedOp> out;
  auto add = [&](std::string name, uint16_t type, std::string payload, Code code = Code::corruption) {
    REQUIRE(payload.size() % 8 == 0);
    out.push_back(CraftedOp{std::move(name), type, std::move(payload), code});
  };
  const std::string sound = put_with([](schema::PutMemory::Builder) {});

  add("a message cut short (its segment table promises more words)", put, sound.substr(0, sound.size() - 8));
  {
    std::string s = sound;  // the root pointer points far past the message
    set_word(s, 1, (uint64_t(1000) << 2) | (uint64_t(1) << 32) | (uint64_t(1) << 48));
    add("a root pointer out of bounds", put, s);
  }
  {
    std::string s = sound;  // the root pointer is a list pointer, not a struct pointer
    set_word(s, 1, (word_at(s, 1) & ~uint64_t(3)) | 1);
    add("a root pointer of the wrong kind", put, s);
  }
  add("a realm that is a struct, not text", put, put_with([](schema::PutMemory::Builder p) {
        any_struct(p).getPointerSection()[0].initAs<schema::MemoryId>().setSeqno(3);
      }));
  add("tags that are a list of bytes, not of texts", put, put_with([](schema::PutMemory::Builder p) {
        any_struct(p).getPointerSection()[2].initAs<capnp::List<uint8_t>>(3);
      }));
  add("a vector that is a list of texts, not of floats", put, put_with([](schema::PutMemory::Builder p) {
        auto texts = any_struct(p).getPointerSection()[5].initAs<capnp::List<capnp::Text>>(2);
        texts.set(0, "x");
        texts.set(1, "y");
      }));
  {
    std::string s = put_with([](schema::PutMemory::Builder p) { p.setText("tttttttt"); });
    const size_t at = s.find("tttttttt");
    REQUIRE(at != std::string::npos);
    s[at + 8] = 'x';  // the NUL that ends the text
    add("text without its NUL", put, s);
  }
  add("text that is not UTF-8", put, put_with([](schema::PutMemory::Builder p) {
        const char bad[] = "caf\xc3 au lait \xff";
        p.setText(capnp::Text::Reader(bad, sizeof(bad) - 1));
      }));
  add("text not UTF-8 after a long ASCII run", put, put_with([](schema::PutMemory::Builder p) {
        const char bad[] = "twenty-four ascii bytes \xe2\x82 and then a cut euro sign";
        p.setText(capnp::Text::Reader(bad, sizeof(bad) - 1));
      }));
  add("a tag that is not UTF-8", put, put_with([](schema::PutMemory::Builder p) {
        const char bad[] = "\xed\xa0\x80";  // a surrogate
        p.initTags(1).set(0, capnp::Text::Reader(bad, sizeof(bad) - 1));
      }));
  add("an empty realm", put, put_with([](schema::PutMemory::Builder p) { p.setRealm(""); }));
  add("no text", put, put_with([](schema::PutMemory::Builder p) { p.disownText(); }));
  add("a kind past the schema's", put, put_with([](schema::PutMemory::Builder p) { p.setKind(static_cast<schema::Kind>(42)); }),
      Code::incompatible);
  add("a status past the schema's", put,
      put_with([](schema::PutMemory::Builder p) { p.setStatus(static_cast<schema::Status>(7)); }), Code::incompatible);
  add("an epistemic past the schema's", put,
      put_with([](schema::PutMemory::Builder p) { p.setEpistemic(static_cast<schema::Epistemic>(9)); }),
      Code::incompatible);
  add("a vector of 5000 values", put, put_with([](schema::PutMemory::Builder p) { p.initVector(5000); }));
  add("many tags pointing at the same 8 KiB", put, put_with_aliased_tags());
  {
    capnp::MallocMessageBuilder mb;
    mb.initRoot<schema::Op>().initDeleteMemory().setReason("no memory named");
    add("a delete of no memory", del, message_bytes(mb));
  }
  for (float weight : {2.0f, std::nanf(""), 1e30f}) {
    // The retired access op: well-formed or not, no writer writes it.
    capnp::MallocMessageBuilder mb;
    auto a = mb.initRoot<schema::Op>().initAccess();
    set_id(a.initMemory(), 7, 1);
    a.setKind(schema::AccessKind::REINFORCED);
    a.setWeight(weight);
    add("an access op (retired), weight " + std::to_string(weight), type_code(OpType::access), message_bytes(mb));
  }
  {
    capnp::MallocMessageBuilder mb;
    auto op = mb.initRoot<schema::Op>();
    set_id(op.initDeleteMemory().initMemory(), 7, 1);
    auto data = any_struct(op).getDataSection();
    data[0] = 77;  // the union's discriminant: no member 77
    data[1] = 0;
    add("a union member past the schema's", del, message_bytes(mb));
  }
  add("a put whose record says delete_memory", del, sound);
  return out;
}

}  // namespace vasana::test
