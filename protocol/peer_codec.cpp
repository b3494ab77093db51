#include "protocol/peer_codec.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/capnp_bytes.hpp"
#include "protocol/peer.capnp.h"

namespace vasana {

namespace {

void fill_heads(capnp::List<schema::StreamHead>::Builder list, const std::vector<StreamHead>& heads) {
  for (unsigned i = 0; i < list.size(); ++i) {
    const StreamHead& h = heads[i];
    auto b = list[i];
    b.setWriter(h.writer.value);
    b.setLastSeqno(h.last_seqno.value);
    b.setLastHash(capnp::Data::Reader(h.last_hash.data(), h.last_hash.size()));
    b.setLastTs(h.last_ts.value);
    b.setSegment(h.segment.value);
    b.setSegmentBytes(h.segment_bytes);
  }
}

Status too_large(bool* oversized, std::string what) {
  if (oversized) *oversized = true;
  return Status::Corruption("peer message too large: " + what);
}

Status read_heads(capnp::List<schema::StreamHead>::Reader list, std::vector<StreamHead>* out, bool* oversized) {
  if (list.size() > kMaxAdvertHeads)
    return too_large(oversized, std::to_string(list.size()) + " stream heads, at most " +
                                    std::to_string(kMaxAdvertHeads));
  out->reserve(list.size());
  for (auto r : list) {
    StreamHead h;
    h.writer = InstanceId(r.getWriter());
    h.last_seqno = Seqno(r.getLastSeqno());
    auto hash = r.getLastHash();
    if (hash.size() != 32 && hash.size() != 0)
      return Status::Corruption("stream head hash has " + std::to_string(hash.size()) + " bytes, not 32");
    if (hash.size() == 32) std::memcpy(h.last_hash.data(), hash.begin(), 32);
    h.last_ts = Hlc(r.getLastTs());
    h.segment = SegmentIndex(r.getSegment());
    h.segment_bytes = r.getSegmentBytes();
    out->push_back(h);
  }
  return Status::Ok();
}

// The longest text a refusal may carry, as received: at most kMaxRefusalTextBytes.
Status read_text(capnp::Text::Reader t, const char* field, std::string* out, bool* oversized) {
  if (t.size() > kMaxRefusalTextBytes)
    return too_large(oversized, std::string(field) + " of " + std::to_string(t.size()) + " bytes, at most " +
                                    std::to_string(kMaxRefusalTextBytes));
  out->assign(t.cStr(), t.size());
  return Status::Ok();
}

}  // namespace

std::string encode_peer_message(const PeerMessage& m) {
  capnp::MallocMessageBuilder mb;
  auto root = mb.initRoot<schema::PeerMessage>();
  switch (m.kind) {
    case PeerMessage::Kind::hello: {
      auto h = root.initHello();
      h.setCluster(text_of(m.hello.cluster));
      h.setInstance(m.hello.instance.value);
      h.setProtocolVersion(m.hello.protocol_version);
      h.setVectorSpace(text_of(m.hello.vector_space));
      h.setAcksWanted(m.hello.acks_wanted);
      break;
    }
    case PeerMessage::Kind::refused: {
      auto r = root.initRefused();
      r.setReason(m.refused.reason);
      r.setMessage(m.refused.message);
      break;
    }
    case PeerMessage::Kind::advert: {
      auto a = root.initAdvert();
      fill_heads(a.initHeads(unsigned(m.advert.heads.size())), m.advert.heads);
      a.setSentMs(m.advert.sent_ms);
      auto reach = a.initReach(unsigned(std::min(m.advert.reach.size(), kMaxAdvertReach)));
      for (unsigned i = 0; i < reach.size(); ++i) {
        const PeerReach& r = m.advert.reach[i];
        reach[i].setPublicKey(capnp::Text::Reader(r.public_key.data(), r.public_key.size()));
        reach[i].setInstance(r.instance.value);
        reach[i].setUp(r.up);
        reach[i].setLastHeardMs(r.last_heard_ms);
      }
      break;
    }
    case PeerMessage::Kind::fetch: {
      auto f = root.initFetch();
      f.setWriter(m.fetch.writer.value);
      f.setSegment(m.fetch.segment.value);
      f.setOffset(m.fetch.offset);
      f.setMaxBytes(m.fetch.max_bytes);
      break;
    }
    case PeerMessage::Kind::chunk: {
      auto c = root.initChunk();
      c.setWriter(m.chunk.writer.value);
      c.setSegment(m.chunk.segment.value);
      c.setOffset(m.chunk.offset);
      c.setBytes(capnp::Data::Reader(reinterpret_cast<const uint8_t*>(m.chunk.bytes.data()), m.chunk.bytes.size()));
      c.setSealed(m.chunk.sealed);
      c.setMissing(m.chunk.missing);
      break;
    }
    case PeerMessage::Kind::ack:
      fill_heads(root.initAck().initHeads(unsigned(m.ack.heads.size())), m.ack.heads);
      break;
  }
  return message_bytes(mb);
}

Result<PeerMessage> decode_peer_message(std::string_view bytes, bool* oversized) {
  if (oversized) *oversized = false;
  PeerMessage m;
  // A well-formed message is read once: the reader visits about as many words as it holds.
  capnp::ReaderOptions bounds = default_reader_options();
  bounds.traversalLimitInWords = 2 * (bytes.size() / sizeof(capnp::word)) + 64;
  Status s = read_message<schema::PeerMessage>(bytes, [&](schema::PeerMessage::Reader root) -> Status {
    switch (root.which()) {
      case schema::PeerMessage::HELLO: {
        if (bytes.size() > kMaxHelloBytes)
          return too_large(oversized, "hello of " + std::to_string(bytes.size()) + " bytes, at most " +
                                          std::to_string(kMaxHelloBytes));
        auto h = root.getHello();
        m.kind = PeerMessage::Kind::hello;
        // By length, as every text: a NUL inside does not cut the cluster id to one that matches.
        m.hello.cluster = string_of(h.getCluster());
        m.hello.instance = InstanceId(h.getInstance());
        m.hello.protocol_version = h.getProtocolVersion();
        m.hello.vector_space = string_of(h.getVectorSpace());
        m.hello.acks_wanted = h.getAcksWanted();
        return Status::Ok();
      }
      case schema::PeerMessage::REFUSED: {
        auto r = root.getRefused();
        m.kind = PeerMessage::Kind::refused;
        Status t = read_text(r.getReason(), "refusal reason", &m.refused.reason, oversized);
        if (!t.ok()) return t;
        return read_text(r.getMessage(), "refusal message", &m.refused.message, oversized);
      }
      case schema::PeerMessage::ADVERT: {
        auto a = root.getAdvert();
        m.kind = PeerMessage::Kind::advert;
        m.advert.sent_ms = a.getSentMs();
        auto reach = a.getReach();
        if (reach.size() > kMaxAdvertReach)
          return too_large(oversized, std::to_string(reach.size()) + " peer links, at most " +
                                          std::to_string(kMaxAdvertReach));
        for (auto r : reach) {
          PeerReach x;
          Status t = read_text(r.getPublicKey(), "peer key", &x.public_key, oversized);
          if (!t.ok()) return t;
          x.instance = InstanceId(r.getInstance());
          x.up = r.getUp();
          x.last_heard_ms = r.getLastHeardMs();
          m.advert.reach.push_back(std::move(x));
        }
        return read_heads(a.getHeads(), &m.advert.heads, oversized);
      }
      case schema::PeerMessage::FETCH: {
        auto f = root.getFetch();
        m.kind = PeerMessage::Kind::fetch;
        m.fetch.writer = InstanceId(f.getWriter());
        m.fetch.segment = SegmentIndex(f.getSegment());
        m.fetch.offset = f.getOffset();
        m.fetch.max_bytes = f.getMaxBytes();
        return Status::Ok();
      }
      case schema::PeerMessage::CHUNK: {
        auto c = root.getChunk();
        m.kind = PeerMessage::Kind::chunk;
        m.chunk.writer = InstanceId(c.getWriter());
        m.chunk.segment = SegmentIndex(c.getSegment());
        m.chunk.offset = c.getOffset();
        auto b = c.getBytes();
        if (b.size() > kMaxPeerChunkBytes)
          return too_large(oversized, "chunk of " + std::to_string(b.size()) + " bytes, at most " +
                                          std::to_string(kMaxPeerChunkBytes));
        m.chunk.bytes.assign(reinterpret_cast<const char*>(b.begin()), b.size());
        m.chunk.sealed = c.getSealed();
        m.chunk.missing = c.getMissing();
        return Status::Ok();
      }
      case schema::PeerMessage::ACK:
        m.kind = PeerMessage::Kind::ack;
        return read_heads(root.getAck().getHeads(), &m.ack.heads, oversized);
    }
    return Status::Corruption("peer message of an unknown kind (a newer protocol?)");
  }, bounds);
  if (!s.ok()) return s;
  return m;
}

PeerMessage peer_hello(PeerHello h) {
  PeerMessage m;
  m.kind = PeerMessage::Kind::hello;
  m.hello = std::move(h);
  return m;
}
PeerMessage peer_refused(std::string reason, std::string message) {
  for (std::string* t : {&reason, &message}) {
    if (t->size() <= kMaxRefusalTextBytes) continue;
    size_t n = kMaxRefusalTextBytes;
    while (n > 0 && (static_cast<unsigned char>((*t)[n]) & 0xC0) == 0x80) --n;  // not inside a character
    t->resize(n);
  }
  PeerMessage m;
  m.kind = PeerMessage::Kind::refused;
  m.refused = PeerRefused{std::move(reason), std::move(message)};
  return m;
}
PeerMessage peer_advert(PeerAdvert a) {
  PeerMessage m;
  m.kind = PeerMessage::Kind::advert;
  m.advert = std::move(a);
  return m;
}
PeerMessage peer_fetch(PeerFetch f) {
  PeerMessage m;
  m.kind = PeerMessage::Kind::fetch;
  m.fetch = f;
  return m;
}
PeerMessage peer_chunk(PeerChunk c) {
  PeerMessage m;
  m.kind = PeerMessage::Kind::chunk;
  m.chunk = std::move(c);
  return m;
}
PeerMessage peer_ack(PeerAck a) {
  PeerMessage m;
  m.kind = PeerMessage::Kind::ack;
  m.ack = std::move(a);
  return m;
}

}  // namespace vasana
