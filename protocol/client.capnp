# Client protocol: what the CLI (and later the MCP server) sends to its local node over the
# ZeroMQ client endpoint. A client message is two frames: the tag "vasana.client.1" and one
# ClientRequest (unpacked Cap'n Proto); the reply is the same tag and one ClientResponse.
# The tag matters: Cap'n Proto checks structure, not type, so bytes of another schema would
# otherwise parse as garbage fields.
@0xe7fc6e4abd28998d;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("vasana::schema");

using Ops = import "ops.capnp";

const clientProtocolVersion :UInt16 = 1;

struct ClientRequest {
  requestId @0 :UInt64;        # echoed in the response
  protocolVersion @1 :UInt16;
  union {
    ping @2 :Void;
    remember @3 :Ops.PutMemory;
    recall @4 :RecallQuery;
    status @5 :Void;           # replication and replica state (`vasana status`)
  }
}

struct RecallQuery {
  text @0 :Text;
  realms @1 :List(Text);       # required: at least one; nothing reads every realm
  limit @2 :UInt32 = 10;
  hasAsOf @3 :Bool;            # false: as of the node's now
  asOfMs @4 :Int64;
  lanes @5 :List(Text);        # empty: every lane
  vector @6 :List(Float32);    # the query's embedding, when the client has one
  includeStaged @7 :Bool;      # also proposed memories not yet reviewed
  hasWindow @8 :Bool;          # a time window for the temporal lane (recorded or valid time)
  windowFromMs @9 :Int64 = -9223372036854775808;
  windowToMs @10 :Int64 = 9223372036854775807;
}

struct LaneRank {
  lane @0 :Text;
  rank @1 :UInt32;             # 1-based among the lane's admitted candidates
  score @2 :Float64;           # the lane's own score
}

struct RecallHit {
  id @0 :Ops.MemoryId;
  score @1 :Float64;           # fused score
  realm @2 :Text;
  kind @3 :Text;
  status @4 :Text;
  text @5 :Text;
  ref @6 :Text;
  recordedAtMs @7 :Int64;
  lanes @8 :List(LaneRank);
  rrf @9 :Float64;             # the multipliers of the explanation
  kindPrior @10 :Float64;
  statusWeight @11 :Float64;
  epistemicWeight @12 :Float64;
  strength @13 :Float64;
  phraseBoost @14 :Float64;
}

struct RecallAnswer {
  hits @0 :List(RecallHit);
  topRelevance @1 :Float64;
  known @2 :Bool;
  lanes @3 :List(Text);        # the lanes that ran
}

enum ErrorCode {
  badInput @0;          # the request is invalid; nothing was written
  unavailable @1;       # the node cannot write now (writer failed or read-only); nothing was written
  ioFailure @2;         # the write's outcome is unknown after an I/O error: the writer stopped
  protocolMismatch @3;  # wrong tag or version
  internal @4;
}

struct Error {
  code @0 :ErrorCode;
  message @1 :Text;
}

struct NodeInfo {
  instance @0 :UInt64;
  vectorSpace @1 :Text;
  lastSeqno @2 :UInt64;
  writable @3 :Bool;
  readOnlyReason @4 :Text;
  flushes @5 :UInt64;          # group commits (one fdatasync each) since the node started
  flushedRecords @6 :UInt64;   # records those group commits made durable
}

struct Remembered {
  id @0 :Ops.MemoryId;
  effectiveTs @1 :UInt64;   # hybrid logical clock: 48 bits of ms, 16 bits of counter
  existed @2 :Bool;         # the realm already held a memory with this ref: nothing was written
}

struct ClientResponse {
  requestId @0 :UInt64;
  union {
    error @1 :Error;
    pong @2 :NodeInfo;
    remembered @3 :Remembered;
    recalled @4 :RecallAnswer;
    status @5 :Text;           # sync/replication_status.hpp NodeStatus as JSON (sync/status_json.hpp)
  }
}
