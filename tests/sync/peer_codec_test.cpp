// The peer protocol's codec (protocol/peer_codec.hpp): every message kind round-trips with every
// field; untrusted bytes (truncated, garbage, a hash of the wrong size, an unknown kind) decode to
// a Corruption status, never a crash or an exception.
#include <catch2/catch.hpp>

#include <capnp/message.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "protocol/capnp_bytes.hpp"
#include "protocol/peer.capnp.h"
#include "protocol/peer_codec.hpp"

using namespace vasana;

namespace {

Hash256 hash_of(uint8_t seed) {
  Hash256 h{};
  for (size_t i = 0; i < h.size(); ++i) h[i] = uint8_t(seed * 31 + i * 7 + 1);
  return h;
}

StreamHead head_of(uint64_t n) {
  StreamHead h;
  h.writer = InstanceId(0x1000000000000000ull + n);
  h.last_seqno = Seqno(n * 1000 + 7);
  h.last_hash = hash_of(uint8_t(n));
  h.last_ts = Hlc::make(1'700'000'000'000ull + n, 3);
  h.segment = SegmentIndex(n + 2);
  h.segment_bytes = 123456789ull * (n + 1);
  return h;
}

void require_same(const StreamHead& a, const StreamHead& b) {
  CHECK(a.writer == b.writer);
  CHECK(a.last_seqno == b.last_seqno);
  CHECK(a.last_hash == b.last_hash);
  CHECK(a.last_ts == b.last_ts);
  CHECK(a.segment == b.segment);
  CHECK(a.segment_bytes == b.segment_bytes);
}

void require_same_heads(const std::vector<StreamHead>& a, const std::vector<StreamHead>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) require_same(a[i], b[i]);
}

PeerMessage round_trip(const PeerMessage& m) {
  const std::string bytes = encode_peer_message(m);
  auto d = decode_peer_message(bytes);
  INFO(d.status().to_string());
  REQUIRE(d.ok());
  REQUIRE(d->kind == m.kind);
  return d.value();
}

// One message of every kind, with every field set to something other than its default.
std::vector<PeerMessage> samples() {
  std::string bytes;
  for (int i = 0; i < 300; ++i) bytes.push_back(char(i * 37));  // NULs and high bytes included
  return {
      peer_hello(PeerHello{"prod-eu", InstanceId(0xfedcba9876543210ull), 7, "vasana-hash-v1/384/1", false}),
      peer_refused("cluster id", "this node is in cluster a, the peer in cluster b"),
      peer_advert(PeerAdvert{{head_of(1), head_of(2), head_of(3)},
                             1'700'000'123'456ull,
                             {PeerReach{std::string(40, 'k'), InstanceId(9), true, 250}, PeerReach{"z", InstanceId(0), false, -1}}}),
      peer_fetch(PeerFetch{InstanceId(42), SegmentIndex(9), 0x1'0000'0001ull, 4u << 20}),
      peer_chunk(PeerChunk{InstanceId(43), SegmentIndex(10), 77, bytes, true, false}),
      peer_chunk(PeerChunk{InstanceId(44), SegmentIndex(11), 78, "", false, true}),
      peer_ack(PeerAck{{head_of(4), head_of(5)}}),
  };
}

// A message whose first head's lastHash has n bytes.
std::string advert_with_hash_bytes(size_t n, bool ack = false) {
  capnp::MallocMessageBuilder mb;
  auto root = mb.initRoot<schema::PeerMessage>();
  auto heads = ack ? root.initAck().initHeads(1) : root.initAdvert().initHeads(1);
  heads[0].setWriter(5);
  heads[0].setLastSeqno(9);
  std::vector<uint8_t> hash(n, 0xab);
  heads[0].setLastHash(capnp::Data::Reader(hash.data(), hash.size()));
  return message_bytes(mb);
}

}  // namespace

TEST_CASE("peer codec: every message kind round-trips with every field", "[sync][codec]") {
  for (const PeerMessage& m : samples()) {
    INFO("kind " << int(m.kind));
    const PeerMessage d = round_trip(m);
    switch (m.kind) {
      case PeerMessage::Kind::hello:
        CHECK(d.hello.cluster == m.hello.cluster);
        CHECK(d.hello.instance == m.hello.instance);
        CHECK(d.hello.protocol_version == m.hello.protocol_version);
        CHECK(d.hello.vector_space == m.hello.vector_space);
        CHECK(d.hello.acks_wanted == m.hello.acks_wanted);
        break;
      case PeerMessage::Kind::refused:
        CHECK(d.refused.reason == m.refused.reason);
        CHECK(d.refused.message == m.refused.message);
        break;
      case PeerMessage::Kind::advert:
        require_same_heads(d.advert.heads, m.advert.heads);
        CHECK(d.advert.sent_ms == m.advert.sent_ms);
        REQUIRE(d.advert.reach.size() == m.advert.reach.size());
        for (size_t k = 0; k < d.advert.reach.size(); ++k) {
          CHECK(d.advert.reach[k].public_key == m.advert.reach[k].public_key);
          CHECK(d.advert.reach[k].instance == m.advert.reach[k].instance);
          CHECK(d.advert.reach[k].up == m.advert.reach[k].up);
          CHECK(d.advert.reach[k].last_heard_ms == m.advert.reach[k].last_heard_ms);
        }
        break;
      case PeerMessage::Kind::fetch:
        CHECK(d.fetch.writer == m.fetch.writer);
        CHECK(d.fetch.segment == m.fetch.segment);
        CHECK(d.fetch.offset == m.fetch.offset);
        CHECK(d.fetch.max_bytes == m.fetch.max_bytes);
        break;
      case PeerMessage::Kind::chunk:
        CHECK(d.chunk.writer == m.chunk.writer);
        CHECK(d.chunk.segment == m.chunk.segment);
        CHECK(d.chunk.offset == m.chunk.offset);
        CHECK(d.chunk.bytes == m.chunk.bytes);
        CHECK(d.chunk.sealed == m.chunk.sealed);
        CHECK(d.chunk.missing == m.chunk.missing);
        break;
      case PeerMessage::Kind::ack:
        require_same_heads(d.ack.heads, m.ack.heads);
        break;
    }
  }
  // Empty lists and default values round-trip too.
  CHECK(round_trip(peer_advert(PeerAdvert{})).advert.heads.empty());
  CHECK(round_trip(peer_ack(PeerAck{})).ack.heads.empty());
  CHECK(round_trip(peer_hello(PeerHello{})).hello.protocol_version == kPeerProtocolVersion);
  // Negative control: kinds are not confused with one another.
  CHECK(round_trip(peer_fetch(PeerFetch{})).kind == PeerMessage::Kind::fetch);
  CHECK(round_trip(peer_chunk(PeerChunk{})).kind == PeerMessage::Kind::chunk);
}

TEST_CASE("peer codec: truncated or garbage bytes are a Corruption status, not a crash", "[sync][codec]") {
  // Positive control: the whole messages decode.
  for (const PeerMessage& m : samples()) REQUIRE(decode_peer_message(encode_peer_message(m)).ok());

  SECTION("every truncation of every kind") {
    for (const PeerMessage& m : samples()) {
      const std::string bytes = encode_peer_message(m);
      for (size_t n = 0; n < bytes.size(); ++n) {
        INFO("kind " << int(m.kind) << ", first " << n << " of " << bytes.size() << " bytes");
        auto d = decode_peer_message(std::string_view(bytes).substr(0, n));
        REQUIRE_FALSE(d.ok());
        CHECK(d.status().code() == Code::corruption);
      }
    }
  }

  SECTION("fixed garbage") {
    const std::vector<std::string> garbage = {
        "",
        "x",
        "not a capnp message",
        std::string(8, '\0'),
        std::string(64, '\xff'),
        std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8) + std::string(64, '\x01'),  // 2^32 segments
        std::string("\x00\x00\x00\x00\xff\xff\xff\x7f", 8) + std::string(16, '\x00'),  // a huge segment
    };
    for (const std::string& g : garbage) {
      INFO("garbage of " << g.size() << " bytes");
      auto d = decode_peer_message(g);
      REQUIRE_FALSE(d.ok());
      CHECK(d.status().code() == Code::corruption);
    }
  }

  SECTION("random bytes, and messages with random bytes overwritten") {
    std::mt19937_64 rng(20240917);
    const auto msgs = samples();
    for (int round = 0; round < 5000; ++round) {
      std::string bytes;
      if (round % 2 == 0) {
        bytes.resize(8 * (1 + rng() % 40));
        for (char& c : bytes) c = char(rng());
      } else {
        bytes = encode_peer_message(msgs[rng() % msgs.size()]);
        for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = char(rng());
      }
      INFO("round " << round);
      auto d = decode_peer_message(bytes);  // must not throw or crash
      if (!d.ok()) CHECK(d.status().code() == Code::corruption);
    }
  }
}

TEST_CASE("peer codec: a stream head hash of 31 or 33 bytes is refused", "[sync][codec]") {
  for (bool ack : {false, true}) {
    INFO((ack ? "in an ack" : "in an advert"));
    // Positive controls: 32 bytes decode (and so does an absent hash: zeros).
    auto ok32 = decode_peer_message(advert_with_hash_bytes(32, ack));
    REQUIRE(ok32.ok());
    const auto& heads = ack ? ok32->ack.heads : ok32->advert.heads;
    REQUIRE(heads.size() == 1);
    CHECK(heads[0].last_hash == Hash256{0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
                                        0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
                                        0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab});
    CHECK(heads[0].last_seqno == Seqno(9));
    REQUIRE(decode_peer_message(advert_with_hash_bytes(0, ack)).ok());
    for (size_t n : {1u, 31u, 33u, 64u}) {
      INFO(n << " bytes");
      auto d = decode_peer_message(advert_with_hash_bytes(n, ack));
      REQUIRE_FALSE(d.ok());
      CHECK(d.status().code() == Code::corruption);
      CHECK(d.status().message().find(std::to_string(n)) != std::string::npos);
    }
  }
}

TEST_CASE("peer codec: a message kind from a newer protocol is a Corruption status", "[sync][codec]") {
  std::string bytes = encode_peer_message(peer_chunk(PeerChunk{}));
  // Flat array: segment table (8 bytes), root pointer (8 bytes), then PeerMessage's data
  // section, whose first 16 bits are the union's discriminant (chunk = 4).
  REQUIRE(bytes.size() >= 18);
  REQUIRE(uint8_t(bytes[16]) == 4);
  REQUIRE(bytes[17] == 0);
  REQUIRE(decode_peer_message(bytes).ok());  // positive control
  bytes[16] = char(99);
  auto d = decode_peer_message(bytes);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().code() == Code::corruption);
  CHECK(d.status().message().find("unknown kind") != std::string::npos);
}

TEST_CASE("peer codec: a hello from a node that predates acksWanted reads as wanting acks", "[sync][codec]") {
  // Such a node never counts on an answer without acks: it is sent them, as before the field.
  capnp::MallocMessageBuilder mb;
  auto hello = mb.initRoot<schema::PeerMessage>().initHello();
  hello.setCluster("old");
  hello.setProtocolVersion(kPeerProtocolVersion);
  auto d = decode_peer_message(message_bytes(mb));
  REQUIRE(d.ok());
  CHECK(d->hello.cluster == "old");
  CHECK(d->hello.acks_wanted);
  // Negative control: a node that says it wants none is read so.
  hello.setAcksWanted(false);
  auto n = decode_peer_message(message_bytes(mb));
  REQUIRE(n.ok());
  CHECK_FALSE(n->hello.acks_wanted);
}

// Limits: what one message may hold (protocol/peer_codec.hpp). Past them decoding refuses, and
// says the message was oversized (not merely malformed).

TEST_CASE("an advert or an ack of at most 4096 heads decodes, and one of more is refused as oversized") {
  PeerAdvert a;
  for (uint64_t n = 0; n < kMaxAdvertHeads; ++n) a.heads.push_back(head_of(n));
  bool oversized = true;
  auto ok = decode_peer_message(encode_peer_message(peer_advert(a)), &oversized);
  REQUIRE(ok.ok());  // positive control: the limit itself passes
  CHECK_FALSE(oversized);
  CHECK(ok->advert.heads.size() == kMaxAdvertHeads);

  a.heads.push_back(head_of(kMaxAdvertHeads));
  auto big = decode_peer_message(encode_peer_message(peer_advert(a)), &oversized);
  REQUIRE_FALSE(big.ok());
  CHECK(big.status().code() == Code::corruption);
  CHECK(oversized);
  CHECK_THAT(big.status().message(), Catch::Contains("4097 stream heads"));

  PeerAck ack;
  ack.heads = a.heads;
  auto big_ack = decode_peer_message(encode_peer_message(peer_ack(ack)), &oversized);
  CHECK_FALSE(big_ack.ok());
  CHECK(oversized);
}

TEST_CASE("an advert names at most 256 peer links: more are cut when sent and refused as oversized when received") {
  PeerAdvert a;
  for (size_t n = 0; n < kMaxAdvertReach + 10; ++n) a.reach.push_back(PeerReach{std::to_string(n), InstanceId(n), true, 1});
  auto sent = decode_peer_message(encode_peer_message(peer_advert(a)));
  REQUIRE(sent.ok());  // positive control: the sender names its first 256
  CHECK(sent->advert.reach.size() == kMaxAdvertReach);
  CHECK(sent->advert.reach.back().public_key == std::to_string(kMaxAdvertReach - 1));

  capnp::MallocMessageBuilder mb;
  auto reach = mb.initRoot<schema::PeerMessage>().initAdvert().initReach(unsigned(kMaxAdvertReach + 1));
  for (auto r : reach) r.setPublicKey("k");
  bool oversized = false;
  auto big = decode_peer_message(message_bytes(mb), &oversized);
  REQUIRE_FALSE(big.ok());
  CHECK(oversized);
  CHECK_THAT(big.status().message(), Catch::Contains("257 peer links"));
}

TEST_CASE("a hello longer than 512 bytes is refused as oversized") {
  PeerHello h;
  h.cluster = "c";
  h.instance = InstanceId(0x1234);
  h.vector_space = "hash-embed/256/1";
  bool oversized = true;
  REQUIRE(decode_peer_message(encode_peer_message(peer_hello(h)), &oversized).ok());
  CHECK_FALSE(oversized);
  h.cluster = std::string(600, 'x');
  const std::string bytes = encode_peer_message(peer_hello(h));
  REQUIRE(bytes.size() > kMaxHelloBytes);
  auto r = decode_peer_message(bytes, &oversized);
  REQUIRE_FALSE(r.ok());
  CHECK(oversized);
  CHECK_THAT(r.status().message(), Catch::Contains("hello"));
}

TEST_CASE("refusal texts are cut to 256 bytes when made, and longer ones are refused when received") {
  auto m = peer_refused(std::string(300, 'r'), std::string(1000, 'm'));
  CHECK(m.refused.reason.size() == kMaxRefusalTextBytes);
  CHECK(m.refused.message.size() == kMaxRefusalTextBytes);
  auto back = decode_peer_message(encode_peer_message(m));
  REQUIRE(back.ok());
  CHECK(back->refused.message == std::string(kMaxRefusalTextBytes, 'm'));
  // Cut at a character boundary: a 2-byte character straddling the limit goes whole.
  auto utf = peer_refused("x", std::string(255, 'a') + "\xc3\xa9");
  CHECK(utf.refused.message == std::string(255, 'a'));

  // A sender that does not cut (hand-made message) is refused.
  PeerMessage raw;
  raw.kind = PeerMessage::Kind::refused;
  raw.refused.reason = "cluster id";
  raw.refused.message = std::string(kMaxRefusalTextBytes + 1, 'm');
  bool oversized = false;
  auto r = decode_peer_message(encode_peer_message(raw), &oversized);
  CHECK_FALSE(r.ok());
  CHECK(oversized);
}

TEST_CASE("a chunk of more than 32 MiB is refused as oversized, and garbage as malformed, not oversized") {
  PeerChunk c;
  c.writer = InstanceId(7);
  c.bytes.assign(kMaxPeerChunkBytes + 1, 'b');
  bool oversized = false;
  auto r = decode_peer_message(encode_peer_message(peer_chunk(c)), &oversized);
  CHECK_FALSE(r.ok());
  CHECK(oversized);
  c.bytes.resize(1000);
  CHECK(decode_peer_message(encode_peer_message(peer_chunk(c)), &oversized).ok());

  auto junk = decode_peer_message(std::string(64, '\x7f'), &oversized);
  CHECK_FALSE(junk.ok());
  CHECK_FALSE(oversized);
}

TEST_CASE("a hello whose cluster id or vector space holds a NUL keeps the whole text so that it matches no id cut at the NUL") {
  // Found by tests/fuzz/peer_message_fuzz.cpp: the texts were read up to their first NUL, so a
  // hello naming cluster "prod\0other" was taken for one from cluster "prod".
  const std::string cluster("prod\0other", 10);
  const std::string space("vasana-hash-v1/384/1\0x", 22);
  capnp::MallocMessageBuilder mb;
  auto hello = mb.initRoot<schema::PeerMessage>().initHello();
  hello.setCluster(text_of(cluster));
  hello.setVectorSpace(text_of(space));
  hello.setProtocolVersion(kPeerProtocolVersion);
  auto d = decode_peer_message(message_bytes(mb));
  REQUIRE(d.ok());
  CHECK(d->hello.cluster == cluster);
  CHECK(d->hello.cluster != "prod");
  CHECK(d->hello.vector_space == space);
  // And it goes back on the wire whole.
  auto again = decode_peer_message(encode_peer_message(*d));
  REQUIRE(again.ok());
  CHECK(again->hello.cluster == cluster);
  CHECK(again->hello.vector_space == space);

  // Positive control: an id without a NUL reads as it was sent.
  hello.setCluster("prod");
  auto plain = decode_peer_message(message_bytes(mb));
  REQUIRE(plain.ok());
  CHECK(plain->hello.cluster == "prod");
}
