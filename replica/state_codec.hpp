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
// listed once, in state_codec.cpp's describe() for its type, and the state's own fields once, in
// meta_fields() and sections() below: each list both writes and reads, so a field added to a
// record or to the state needs one line there (and the version raised when old checkpoints
// cannot be read any more: a checkpoint of another version is refused, and the start replays
// instead). The recall engine's bookkeeping (MemoryRecord::lanes_behind) is not saved.
//
// The loaded state has the same digest() as the saved one; tests/replica/state_codec_test.cpp
// checks that on states with every op type applied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/status.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

inline constexpr uint32_t kStateFormatVersion = 10;
inline constexpr size_t kStateItemsPerChunk = 4096;

struct EncodedState {
  std::string meta;
  std::vector<std::string> chunks;  // in order
};

class StateCodec {
 public:
  // The state as bytes. O(state); the caller keeps the state from changing meanwhile (the
  // engine's read lock).
  static EncodedState encode(const ReplicaState& state, size_t items_per_chunk = kStateItemsPerChunk);
  // Replaces *out with the state encoded. Corruption for bytes that do not parse (truncated,
  // trailing bytes, sections out of order, a count that disagrees); Incompatible for another
  // format version. On an error *out is left as it was.
  static Status decode(const EncodedState& encoded, ReplicaState* out);
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
};

}  // namespace vasana
