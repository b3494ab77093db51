// The whole replicated state (replica/replica_state.hpp) as bytes, and back: what a checkpoint
// (store/checkpoint_store.hpp) holds so that a start loads the state instead of replaying every
// op. Pure C++: no I/O.
//
// Format (version kStateFormatVersion). Integers are LEB128 varints (signed ones zigzagged),
// floats their 4 IEEE bytes, strings a varint length and the bytes, vectors and maps a varint
// count and the items, optionals and out-of-line values a 0/1 flag and the value.
//   meta  := version ops_applied created_count conflict_count applied:(instance seqno)* chunk_count
//   chunk := section:u8 item_count item*
// Sections come in the order memories, triplets, retractions, corrections, refs, claim groups,
// history keys (per memory, the ops after its put), early retractions, members; each is cut
// into chunks of at most items_per_chunk items (a section may have none). Each item's fields are
// listed once, in replica/state_fields.hpp's describe() for its type, and the state's own fields once, in
// meta_fields() and sections() below: each list both writes and reads, so a field added to a
// record or to the state needs one line there (and the version raised when old checkpoints
// cannot be read any more: a checkpoint of another version is refused, and the start replays
// instead). The recall engine's bookkeeping (MemoryRecord::lanes_behind) is not saved.
//
// The content histories' texts and the clients' vectors are not in the encoding (their hashes are):
// a decoded state keeps the value archive of the state it replaces (ReplicaState::set_value_archive).
//
// The loaded state has the same digest() as the saved one; tests/replica/state_codec_test.cpp
// checks that on states with every op type applied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/status.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

inline constexpr uint32_t kStateFormatVersion = 12;
inline constexpr size_t kStateItemsPerChunk = 4096;

struct EncodedState {
  std::string meta;
  std::vector<std::string> chunks;  // in order
};

// One item of the encoded state (a memory record, a triplet, one map entry of another section):
// key = its section number in the top byte and 56 bits of a hash of its key's bytes, content =
// a 64-bit hash of its bytes. Not cryptographic: a collision can only make a delta miss a change,
// which the state digest a start checks then refuses (it replays instead).
struct StateItemHash {
  uint64_t key = 0;
  uint64_t content = 0;
  friend bool operator<(const StateItemHash& a, const StateItemHash& b) { return a.key < b.key; }
};

// The items of a whole encoded state, sorted by key, no key twice (a state whose item keys
// collide gets an empty table: no delta can be made against it).
using StateItemTable = std::vector<StateItemHash>;

// The state as the changes to a whole encoded state (its base): the meta record (as a whole
// state's, its chunk count counting the chunks here), the items whose bytes differ from the
// base's or that the base lacks, in the whole format's sections and chunks, and the keys of the
// base's items the state no longer holds. Memory records are never removed.
struct EncodedStateDelta {
  std::string meta;
  std::vector<std::string> chunks;
  std::vector<uint64_t> removed;  // StateItemHash::key, ascending
  uint64_t items = 0;             // items in chunks
};

class StateCodec {
 public:
  // The state as bytes. O(state); the caller keeps the state from changing meanwhile (the
  // engine's read lock).
  static EncodedState encode(const ReplicaState& state, size_t items_per_chunk = kStateItemsPerChunk);
  // The same, and the table of its items (*items, replaced).
  static EncodedState encode(const ReplicaState& state, StateItemTable* items,
                             size_t items_per_chunk = kStateItemsPerChunk);
  // The state as a delta against the whole encoding whose item table is base. nullopt when more
  // than max_items items would be in it, when a memory record of the base is not in the state
  // (which does not happen to a state that grew from the base's), or when an erased memory's
  // record changed since the base (the base may still hold what the erasure removed): the caller
  // encodes the whole state instead.
  static std::optional<EncodedStateDelta> encode_delta(const ReplicaState& state, const StateItemTable& base,
                                                       size_t max_items,
                                                       size_t items_per_chunk = kStateItemsPerChunk);
  // Replaces *out with the state encoded. Corruption for bytes that do not parse (truncated,
  // trailing bytes, sections out of order, a count that disagrees); Incompatible for another
  // format version. On an error *out is left as it was.
  static Status decode(const EncodedState& encoded, ReplicaState* out);
  // The whole encoding base with delta applied: the state delta was made from. *changed (when
  // given) gets the ids of the memory records in the delta, the ones that differ from base's.
  static Status decode(const EncodedState& base, const EncodedStateDelta& delta, ReplicaState* out,
                       std::vector<MemoryId>* changed = nullptr);
  // The format version meta was written with (Corruption when unreadable).
  static Result<uint32_t> format_version(const std::string& meta);

 private:
  // The lists of the state's fields (state_codec.cpp), in format order, each called once with an
  // encoder (State is const ReplicaState) and once with a decoder (State is ReplicaState):
  // the meta record's fields between its version and its chunk count, and the sections.
  template <class State, class IO>
  static void meta_fields(State& state, IO& io);
  template <class State, class Sections>
  static void sections(State& state, Sections& v);
  static std::string encode_meta(const ReplicaState& state, size_t chunks);
  // Decoding's steps: the meta record's fields into s (Corruption unless it counts chunks
  // chunks), the chunks' items into s (with changed, as a delta's: each replaces the item of its
  // key and the memory ids are added to *changed), and the checks and indexes of a state read.
  static Status read_meta(const std::string& bytes, size_t chunks, const std::string& what, ReplicaState& s);
  static Status read_chunks(const std::vector<std::string>& chunks, const std::string& what, ReplicaState& s,
                            std::vector<MemoryId>* changed);
  static Status finish_decode(ReplicaState& s, ReplicaState* out);
};

}  // namespace vasana
