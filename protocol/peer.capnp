# Peer protocol: what nodes send each other to replicate writers' segments (docs/replication.md).
# Transport: ZeroMQ, CurveZMQ on every link. A node's serving side is a ROUTER; each of its peer
# sessions is a DEALER connected to that peer's ROUTER. Every message is two frames: the tag
# "vasana.peer.1" and one PeerMessage (unpacked Cap'n Proto).
#
# Conversation (the DEALER side starts it):
#   DEALER -> ROUTER  hello          who I am; the ROUTER answers hello (accepted) or refused
#   ROUTER -> DEALER  advert         the server's version vector: at once after hello, when it
#                                    changed in a way the DEALER has not been told (a chunk
#                                    that reached the head tells it too), and every second
#                                    (anti-entropy)
#   DEALER -> ROUTER  fetch          bytes of one writer's segment from an offset
#   ROUTER -> DEALER  chunk          those bytes: whole records (and the header at offset 0, the
#                                    trailer when sealed), never more than the server verified;
#                                    also unasked, the new bytes of the server's own writer to a
#                                    DEALER level with it (the live tail)
#   DEALER -> ROUTER  ack            what the DEALER's node has made durable of the ROUTER node's
#                                    own writer, only when the ROUTER's hello asked for acks
# Segments are byte-identical on every node, so any node can serve any writer's segments and an
# offset means the same thing everywhere. The receiver verifies every byte before it stores or
# applies anything.
#
# Evolution: add fields at the end and union members only; a breaking change bumps
# peerProtocolVersion, and a node refuses a peer with another version at hello.
@0xf4142b64806684ff;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("vasana::schema");

const peerProtocolVersion :UInt16 = 1;

struct PeerHello {
  cluster @0 :Text;             # both nodes must name the same cluster
  instance @1 :UInt64;          # the sender's own writer instance
  protocolVersion @2 :UInt16;
  vectorSpace @3 :Text;         # VectorSpace::id(); both nodes must use the same
  acksWanted @4 :Bool = true;   # in the ROUTER's answer: whether its node counts acks (it
                                # acknowledges writes replicated:N); false: send it none
}

# One writer's stream as the sender holds it, verified.
struct StreamHead {
  writer @0 :UInt64;            # instance id
  lastSeqno @1 :UInt64;
  lastHash @2 :Data;            # 32 bytes: chain hash of lastSeqno
  lastTs @3 :UInt64;            # effective timestamp (HLC) of lastSeqno
  segment @4 :UInt64;           # index of the newest segment the sender holds
  segmentBytes @5 :UInt64;      # verified bytes of that segment (the whole file when sealed)
}

# How the sender reaches one of its own peers (`vasana cluster` shows what each peer reported).
struct PeerReach {
  publicKey @0 :Text;           # the peer's CurveZMQ key (Z85)
  instance @1 :UInt64;          # its instance once it said hello, else 0
  up @2 :Bool;                  # the sender's session with it is established
  lastHeardMs @3 :Int64 = -1;   # milliseconds since the sender last heard from it; -1: never
}

struct Advert {
  heads @0 :List(StreamHead);
  sentMs @1 :UInt64;            # sender's wall clock, for diagnostics only
  reach @2 :List(PeerReach);    # the sender's links to its peers (at most kMaxAdvertReach)
}

struct Fetch {
  writer @0 :UInt64;
  segment @1 :UInt64;
  offset @2 :UInt64;            # bytes the asker already holds of that segment
  maxBytes @3 :UInt32;
}

struct Chunk {
  writer @0 :UInt64;
  segment @1 :UInt64;
  offset @2 :UInt64;
  bytes @3 :Data;               # empty: nothing new there (yet)
  sealed @4 :Bool;              # the segment is sealed: bytes end with its trailer
  missing @5 :Bool;             # the sender does not hold this segment (or not from offset)
}

struct Ack {
  heads @0 :List(StreamHead);   # per writer: what the sender has made durable (only writer
                                # and lastSeqno are meaningful)
}

struct Refused {
  reason @0 :Text;              # "cluster id", "vector space", "protocol version", ...
  message @1 :Text;
}

struct PeerMessage {
  union {
    hello @0 :PeerHello;
    refused @1 :Refused;
    advert @2 :Advert;
    fetch @3 :Fetch;
    chunk @4 :Chunk;
    ack @5 :Ack;
  }
}
