# Op records: the payload of every record in a segment (see docs/segment-format.md).
#
# Evolution rules (format version 1):
# - Never renumber, retype or remove a field; never reorder enum values. Add fields only with
#   the next ordinal; a reader that does not know a field sees its default.
# - A new kind of op is a new member of Op's union, appended. Its op type code in the record
#   header is the union ordinal + 1 (protocol/op_codec.cpp asserts the mapping). A node that reads
#   an op type it does not know stops applying that writer's stream with an "upgrade needed"
#   error: it never skips an op, because skipping would make replicas diverge.
# - An op may be retired: it stays in the union (its ordinal stays taken), no writer writes it,
#   and a reader refuses a record of it as corrupt. access (op type 10) is retired.
# - Defaults are part of the format: changing a default changes the meaning of old records.
# - Times are milliseconds since the Unix epoch (UTC). Open bounds use the Int64 extremes.
@0xb459490827150e32;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("vasana::schema");

const opsFormatVersion :UInt16 = 1;

# A memory's id is the order key of the op that created it: unique without coordination.
struct MemoryId {
  instance @0 :UInt64;
  seqno @1 :UInt64;
}

enum Kind {
  correction @0;
  preference @1;
  wisdom @2;
  insight @3;
  operational @4;
  episode @5;
}

# Superseded, contradicted and archived exclude a memory from recall; deletion is its own op.
enum Status {
  active @0;
  verified @1;
  observed @2;
  proposed @3;
  superseded @4;
  contradicted @5;
  archived @6;
}

# Where a memory's claim comes from. Only weights recall, never excludes.
enum Epistemic {
  userStated @0;
  toolDerived @1;
  modelInferred @2;
  autonomousSynthesis @3;
}

struct Source {
  session @0 :Text;   # agent session that wrote it; empty = unknown
  tool @1 :Text;      # tool or client that wrote it (for example "cli")
}

struct PutMemory {
  realm @0 :Text;                                    # required, never empty
  kind @1 :Kind = insight;
  text @2 :Text;                                     # UTF-8, never empty
  tags @3 :List(Text);
  ref @4 :Text;                                      # client reference, unique per realm; empty = none
  validFromMs @5 :Int64 = -9223372036854775808;      # world time the memory starts to hold; min = open
  validToMs @6 :Int64 = 9223372036854775807;         # world time it stops holding; max = open
  source @7 :Source;
  vector @8 :List(Float32);                          # empty = the node embeds the text
  status @9 :Status = active;
  epistemic @10 :Epistemic = userStated;
  confidence @11 :Float32 = 1.0;                     # 0..1
  pinned @12 :Bool;
}

# A memory's revision as the writer of an op held it: the order key of the latest of its put and
# its update_content ops applied there (replica/conflict_record.hpp). Absent in ops written before
# the field existed: their writer's view is unknown.
struct Revision {
  effectiveTs @0 :UInt64;  # the op's hybrid logical clock value
  op @1 :MemoryId;         # the op's writer and seqno
}

struct UpdateContent {
  memory @0 :MemoryId;
  text @1 :Text;             # empty: the text is left as it is
  replaceTags @2 :Bool;      # false: tags are left as they are
  tags @3 :List(Text);
  hasValidTime @4 :Bool;     # false: the valid time is left as it is
  validFromMs @5 :Int64 = -9223372036854775808;
  validToMs @6 :Int64 = 9223372036854775807;
  basedOn @7 :Revision;      # the memory's revision its writer held; absent = unknown
}

struct SetStatus {
  memory @0 :MemoryId;
  status @1 :Status;
  reason @2 :Text;
  replacedBy @3 :MemoryId;   # for superseded: the memory that replaces it (seqno 0 = none)
}

struct SetVector {
  memory @0 :MemoryId;
  vector @1 :List(Float32);
  vectorSpace @2 :Text;      # the vector-space id the vector belongs to
}

struct DeleteMemory {
  memory @0 :MemoryId;
  reason @1 :Text;
  basedOn @2 :Revision;      # the memory's revision its writer held; absent = unknown
}

# A triplet's id is the id of the op that added it.
struct AddTriplet {
  realm @0 :Text;
  subject @1 :Text;
  predicate @2 :Text;
  object @3 :Text;
  validFromMs @4 :Int64 = -9223372036854775808;
  validToMs @5 :Int64 = 9223372036854775807;
  sourceMemory @6 :MemoryId;  # seqno 0 = none
  functional @7 :Bool;        # the writer's configuration declared the predicate functional
  onConflict @8 :ConflictPolicy;  # what a conflicting claim does (only when functional)
}

# A functional predicate holds one object per subject at a time; two claims with other objects
# and overlapping valid times conflict (replica/claims.hpp resolves them, the same on every node).
enum ConflictPolicy {
  supersede @0;     # the claim that orders later wins: the earlier one's source memory is superseded
  contradict @1;    # both source memories are marked contradicted until someone resolves it
}

struct RetractTriplet {
  triplet @0 :MemoryId;
  reason @1 :Text;
}

struct AddCorrection {
  realm @0 :Text;
  wrong @1 :Text;             # the phrase that must not be believed again
  right @2 :Text;             # what is true instead
  note @3 :Text;
  sourceMemory @4 :MemoryId;  # seqno 0 = none
}

enum Decision {
  approve @0;
  reject @1;
  reopen @2;  # undecided again: the next approve or reject decides
}

struct ReviewDecision {
  memory @0 :MemoryId;
  decision @1 :Decision;
  reviewer @2 :Text;
  note @3 :Text;
}

# Retired, with the op that uses them (Op.access): kept so that no other op takes the ordinal.
enum AccessKind {
  recalled @0;
  reinforced @1;
}

struct Access {
  memory @0 :MemoryId;
  kind @1 :AccessKind;
  weight @2 :Float32 = 1.0;
}

struct SetPinned {
  memory @0 :MemoryId;
  pinned @1 :Bool;
}

# A change of the cluster's membership (docs/replication.md "Membership"): the node holding the
# CurveZMQ public key is admitted (peers connect to it at address and let it connect) or removed
# (refused everywhere). Per key, the change that orders last wins.
struct SetMember {
  publicKey @0 :Text;  # Z85, 40 characters
  address @1 :Text;    # its peer listen endpoint, "tcp://10.0.0.4:7102"; empty when removed
  admitted @2 :Bool;   # false: removed
  name @3 :Text;       # for operators, may be empty
}

# Erasure (docs/erasure.md): the memory's text, tags, vector and the facts drawn from it leave
# the state on every node, and each node replaces the payloads of the records that carried them
# by redaction markers (docs/segment-format.md "Redacted records"). Final: no later op brings any
# of it back. The realm and the put's clock value are here because the put may already be
# redacted where this op is read. Of several erases of one memory, the one that orders first is
# shown.
struct EraseMemory {
  memory @0 :MemoryId;
  realm @1 :Text;        # the memory's realm
  createdTs @2 :UInt64;  # the hybrid logical clock value of the memory's put_memory
  by @3 :Text;           # who erased it: the client's principal ("local" for the node's own socket)
  reason @4 :Text;
}

struct Op {
  union {
    putMemory @0 :PutMemory;
    updateContent @1 :UpdateContent;
    setStatus @2 :SetStatus;
    setVector @3 :SetVector;
    deleteMemory @4 :DeleteMemory;
    addTriplet @5 :AddTriplet;
    retractTriplet @6 :RetractTriplet;
    addCorrection @7 :AddCorrection;
    reviewDecision @8 :ReviewDecision;
    access @9 :Access;  # retired: no writer writes it, a reader refuses it as corrupt (docs/segment-format.md)
    setPinned @10 :SetPinned;
    setMember @11 :SetMember;
    eraseMemory @12 :EraseMemory;
  }
}
