# Client protocol: what the CLI and the MCP server (`vasana mcp`) send to their local node over the
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
    get @7 :Ops.MemoryId;       # one memory with every field (`vasana get`)
    update @8 :UpdateRequest;   # a new version of a memory's text, tags or valid time
    forget @9 :ForgetRequest;   # a tombstone: the memory leaves recall on every node
    setStatus @10 :StatusRequest;  # archive, restore, verify, ...
    pin @11 :PinRequest;
    fact @12 :FactRequest;      # a triplet (subject, predicate, object) for the graph lane
    correct @13 :CorrectRequest;   # a correction: a wrong phrase and the right one
    retract @14 :Ops.MemoryId;  # withdraws a triplet (by the id of the op that added it)
    list @15 :ListRequest;      # a realm's memories, paged and filtered (`vasana list`, export)
    review @16 :ReviewRequest;  # a reviewer's approval or rejection of a proposed memory
    history @17 :Ops.MemoryId;  # every op that touched a memory
    contradictions @18 :ContradictionsRequest;  # open contradictions of functional predicates
    analogy @20 :AnalogyRequest;  # a : b :: c : ? from triplets only (replica/analogy.hpp)
    conflicts @22 :ContradictionsRequest;  # updates that lost to an op whose writer had not seen them
    member @23 :Ops.SetMember;  # admits or removes a cluster member (the owner only; `vasana cluster`)
    facts @24 :FactsRequest;    # a realm's live triplets and corrections, paged (`vasana export`)
    realms @25 :Void;           # the realms the caller may read that hold memories (`vasana realms`)
    erase @26 :ForgetRequest;   # erasure: the content leaves every node's state and segments (docs/erasure.md)
  }
  rememberOptions @6 :RememberOptions;   # with remember only
  # The client identity whose grants the request runs under (protocol/client_grants.hpp). Only a
  # trusted transport may name one (the owner's IPC socket, the node's own HTTP server): there
  # an empty name means the owner, who may do everything. On the TCP client endpoint the
  # identity is the CurveZMQ client key's, and a request naming another one is refused.
  actingAs @19 :Text;
  # The front end a request came through on the owner's IPC socket: "http" (the node's HTTP
  # server) or "mcp" (`vasana mcp`); counted under that transport in the metrics. Ignored on
  # other transports and for any other value.
  via @21 :Text;
}

# What remember does beyond storing the memory.
struct RememberOptions {
  onExistingRef @0 :RefPolicy;   # the realm already holds a memory with this ref
  supersedes @1 :Ops.MemoryId;   # seqno 0 = none: that memory is marked superseded by the new one
  facts @2 :List(Fact);          # triplets whose source is the new memory
  noCandidates @3 :Bool;         # answer without conflict candidates (bulk loads)
}

enum RefPolicy {
  refuse @0;    # same content: the existing id comes back (nothing written); other content: refused
  update @1;    # other content: written as an update of the existing memory
}

struct Fact {
  subject @0 :Text;
  predicate @1 :Text;
  object @2 :Text;
  validFromMs @3 :Int64 = -9223372036854775808;
  validToMs @4 :Int64 = 9223372036854775807;
}

struct UpdateRequest {
  memory @0 :Ops.MemoryId;
  hasText @1 :Bool;            # false: the text stays
  text @2 :Text;
  replaceTags @3 :Bool;        # false: the tags stay
  tags @4 :List(Text);
  hasValidTime @5 :Bool;       # false: the valid time stays
  validFromMs @6 :Int64 = -9223372036854775808;
  validToMs @7 :Int64 = 9223372036854775807;
  facts @8 :List(Fact);        # triplets drawn from the new text (the memory is their source)
}

struct ForgetRequest {
  memory @0 :Ops.MemoryId;
  reason @1 :Text;
}

struct StatusRequest {
  memory @0 :Ops.MemoryId;
  status @1 :Ops.Status;
  reason @2 :Text;
  replacedBy @3 :Ops.MemoryId;  # seqno 0 = none; with status superseded: the memory that replaces it
}

struct PinRequest {
  memory @0 :Ops.MemoryId;
  pinned @1 :Bool;
}

struct FactRequest {
  realm @0 :Text;
  fact @1 :Fact;
  sourceMemory @2 :Ops.MemoryId;   # seqno 0 = none
}

struct CorrectRequest {
  realm @0 :Text;
  wrong @1 :Text;
  right @2 :Text;
  note @3 :Text;
  sourceMemory @4 :Ops.MemoryId;   # seqno 0 = none
  keepSourceText @5 :Bool;         # with a source: store the correction only, no corrected version
}

# A realm's live triplets and its corrections together, in op id order after `after`.
struct FactsRequest {
  realm @0 :Text;
  after @1 :Ops.MemoryId;          # seqno 0 = from the start
  limit @2 :UInt32 = 1000;         # 1..10000
}

struct FactEntry {
  id @0 :Ops.MemoryId;             # the op that added it
  isCorrection @1 :Bool;           # false: a triplet
  subject @2 :Text;                # triplet
  predicate @3 :Text;
  object @4 :Text;
  validFromMs @5 :Int64;
  validToMs @6 :Int64;
  wrong @7 :Text;                  # correction
  right @8 :Text;
  note @9 :Text;
  sourceMemory @10 :Ops.MemoryId;  # seqno 0 = none
}

struct FactsPage {
  entries @0 :List(FactEntry);
  next @1 :Ops.MemoryId;           # seqno 0 = no more
}

struct ListRequest {
  realm @0 :Text;
  kinds @1 :List(Ops.Kind);        # empty: every kind
  tags @2 :List(Text);             # a memory must carry every one of them
  statuses @3 :List(Ops.Status);   # empty: every status
  includeDeleted @4 :Bool;
  unreviewed @5 :Bool;             # only proposed memories no reviewer decided (the review queue)
  after @6 :Ops.MemoryId;          # the page starts after this id (seqno 0 = from the start)
  limit @7 :UInt32 = 100;          # 1..10000
  versions @8 :Bool;               # each memory's earlier texts too (MemoryView.versions)
}

struct ReviewRequest {
  memory @0 :Ops.MemoryId;
  decision @1 :Ops.Decision;
  reviewer @2 :Text;               # required: who decided
  note @3 :Text;
}

struct ContradictionsRequest {
  realms @0 :List(Text);
}

# a is to b as c is to what? Answered from the live triplets of the named realms valid at as_of.
struct AnalogyRequest {
  a @0 :Text;
  b @1 :Text;
  c @2 :Text;
  realms @3 :List(Text);       # required: at least one
  hasAsOf @4 :Bool;            # false: as of the node's now
  asOfMs @5 :Int64;
}

struct AnalogyTriplet {
  id @0 :Ops.MemoryId;         # the id of the op that added it
  realm @1 :Text;
  subject @2 :Text;
  predicate @3 :Text;
  object @4 :Text;
  validFromMs @5 :Int64;
  validToMs @6 :Int64;
  sourceMemory @7 :Ops.MemoryId;   # seqno 0 = none
}

struct AnalogyCandidate {
  d @0 :Text;                  # the answer, normalised
  predicates @1 :List(Text);   # the predicates that lead from c to d as from a to b
  support @2 :List(AnalogyTriplet);
}

struct AnalogyAnswer {
  candidates @0 :List(AnalogyCandidate);   # best supported first; empty when abstained
  abstained @1 :Bool;
  reason @2 :Text;             # why no answer: which step found nothing
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
  tags @11 :List(Text);        # a hit must carry every one of these tags
  hasKnownAt @12 :Bool;        # false: what the store believes now
  knownAtMs @13 :Int64;        # transaction time: statuses as the store held them then
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
  relevance @9 :Float64;       # the lanes' weighted evidence; then the multipliers of the explanation
  kindPrior @10 :Float64;
  statusWeight @11 :Float64;
  epistemicWeight @12 :Float64;
  strength @13 :Float64;
  phraseBoost @14 :Float64;
  tags @15 :List(Text);
  validFromMs @16 :Int64;
  validToMs @17 :Int64;
  future @18 :Bool;            # valid only from validFromMs, after the query's now (a query without as_of shows such memories)
}

# A stored correction that matches the query: shown ahead of the hits.
struct CorrectionHit {
  id @0 :Ops.MemoryId;
  realm @1 :Text;
  wrong @2 :Text;
  right @3 :Text;
  note @4 :Text;
}

struct RecallAnswer {
  hits @0 :List(RecallHit);
  topRelevance @1 :Float64;
  known @2 :Bool;
  lanes @3 :List(Text);        # the lanes that ran
  corrections @4 :List(CorrectionHit);
  notes @5 :List(Text);        # what the node could not do for this query (e.g. the semantic lane skipped, and why)
  unsure @6 :Bool;             # the verdict is UNSURE (known is then false): the evidence cannot tell
  keywordEvidence @7 :Float64;   # what topRelevance was computed from: the keyword lane's best share,
  semanticEvidence @8 :Float64;  # the semantic lane's best cosine (replica/verdict.hpp)
}

enum ErrorCode {
  badInput @0;          # the request is invalid; nothing was written
  unavailable @1;       # the node cannot write now (writer failed or read-only); nothing was written
  ioFailure @2;         # the write's outcome is unknown after an I/O error: the writer stopped
  protocolMismatch @3;  # wrong tag or version
  internal @4;
  conflict @5;          # refused by what the store holds (a ref with other content, a corrected phrase); nothing was written
  notFound @6;          # no memory (or triplet) with that id
  permissionDenied @7;  # outside the client's grants (realm read, realm write, review); nothing was written
  notReplicated @8;     # the write is durable on this node, but not synced by as many peers as sync.ack asks
                        # within ack_timeout_ms; it replicates when they return. Error.memory names it
}

struct Error {
  code @0 :ErrorCode;
  message @1 :Text;
  memory @2 :Ops.MemoryId;  # notReplicated: the memory the write made or changed; conflict on a
                            # ref: the memory that holds it (seqno 0 otherwise)
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
  existed @2 :Bool;         # the realm already held a memory with this ref and this content: nothing was written
  updated @3 :Bool;         # the ref was held with other content and the request asked for an update
  status @4 :Ops.Status;    # what the memory was stored as (proposed when held for review)
  flaggedBy @5 :Ops.MemoryId;   # the correction whose wrong phrase the text repeats (seqno 0 = none)
  candidates @6 :List(ConflictCandidate);  # existing memories of the realm it may repeat or contradict
  candidatesSkipped @7 :Bool;   # the candidates by text were not searched: the node took in more at once than it searches
}

# An existing memory that most likely says the same thing as a remembered one, or its opposite.
struct ConflictCandidate {
  id @0 :Ops.MemoryId;
  text @1 :Text;     # its current text
  reason @2 :Text;   # why it is a candidate
}

# Every field of one memory, as the node holds it now.
struct MemoryView {
  id @0 :Ops.MemoryId;
  realm @1 :Text;
  kind @2 :Ops.Kind;
  text @3 :Text;
  tags @4 :List(Text);
  ref @5 :Text;
  status @6 :Ops.Status;
  statusReason @7 :Text;
  replacedBy @8 :Ops.MemoryId;
  epistemic @9 :Ops.Epistemic;
  confidence @10 :Float32;
  pinned @11 :Bool;
  validFromMs @12 :Int64;
  validToMs @13 :Int64;
  recordedAtMs @14 :Int64;
  updatedAtMs @15 :Int64;       # transaction time of the newest op that changed it
  deleted @16 :Bool;
  reviewed @17 :Bool;
  reviewDecision @18 :Ops.Decision;
  sourceSession @19 :Text;
  sourceTool @20 :Text;
  claimStatus @21 :Text;        # "" or what a conflicting claim made it (superseded, contradicted)
  erased @22 :Bool;             # erased: only id, realm and recorded time are left; statusReason is why
  erasedBy @23 :Text;           # who erased it
  versions @24 :List(MemoryVersion);  # asked for (ListRequest.versions): earlier texts, oldest first
}

# A text a memory held before its current one, and when it was written.
struct MemoryVersion {
  text @0 :Text;
  recordedAtMs @1 :Int64;
}

struct MemoryPage {
  memories @0 :List(MemoryView);
  next @1 :Ops.MemoryId;        # give as `after` for the next page; seqno 0 = no more
}

# An op written for a request that changes the store.
struct Written {
  id @0 :Ops.MemoryId;          # the op's id (a triplet's or a correction's id)
  effectiveTs @1 :UInt64;
}

struct HistoryEntry {
  op @0 :Text;                  # op type name
  writer @1 :UInt64;
  seqno @2 :UInt64;
  effectiveTs @3 :UInt64;       # hybrid logical clock
  recordedAtMs @4 :Int64;       # its physical part: the transaction time
  chainVerified @5 :Bool;       # the writer's hash chain verifies up to this record
  fields @6 :Text;              # the op's fields as JSON
  lostTo @7 :Ops.MemoryId;      # an update (or review decision) that lost: the op it lost to (seqno 0 = it did not lose)
  lostToForget @8 :Bool;        # that op is a forget
  lostToReview @9 :Bool;        # a review decision that lost to the decision that held
}

# An update that lost to an op whose writer had not seen it (replica/conflict_record.hpp).
struct Conflict {
  memory @0 :Ops.MemoryId;
  realm @1 :Text;
  lost @2 :Ops.MemoryId;        # the update_content op that lost
  lostTs @3 :UInt64;            # its hybrid logical clock value
  to @4 :Ops.MemoryId;          # the op it lost to
  toTs @5 :UInt64;
  toForget @6 :Bool;            # that op is a forget (delete_memory), else an update
  review @7 :Bool;              # lost and to are review decisions: lost did not hold against to
}

struct Claim {
  triplet @0 :Ops.MemoryId;
  object @1 :Text;
  sourceMemory @2 :Ops.MemoryId;
  validFromMs @3 :Int64;
  validToMs @4 :Int64;
}

struct Contradiction {
  realm @0 :Text;
  subject @1 :Text;
  predicate @2 :Text;
  claims @3 :List(Claim);
}

struct ClientResponse {
  requestId @0 :UInt64;
  union {
    error @1 :Error;
    pong @2 :NodeInfo;
    remembered @3 :Remembered;
    recalled @4 :RecallAnswer;
    status @5 :Text;           # sync/replication_status.hpp NodeStatus as JSON (sync/status_json.hpp)
    memory @6 :MemoryView;     # get
    written @7 :Written;       # update, forget, setStatus, pin, fact, correct, retract, review
    listed @8 :MemoryPage;
    history @9 :List(HistoryEntry);
    contradictions @10 :List(Contradiction);
    analogy @11 :AnalogyAnswer;
    conflicts @12 :List(Conflict);
    facts @13 :FactsPage;
    realms @14 :List(RealmInfo);
  }
}

struct RealmInfo {
  name @0 :Text;
  memories @1 :UInt64;             # not forgotten, of every status
}
