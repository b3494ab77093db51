// A whole checkpoint's state item table and a delta's removed keys (replica/state_codec.hpp) as
// the chunks of checkpoint sections: little-endian 8-byte words, at most kItemWordsPerChunk a
// chunk. Pure C++: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "replica/state_codec.hpp"

namespace vasana {

// The section names (store/checkpoint_store.hpp sections, beside the lanes'), format 1 each.
inline constexpr const char* kStateItemsSection = "state-items";      // of a whole checkpoint
inline constexpr const char* kStateRemovedSection = "state-removed";  // of a delta
inline constexpr size_t kItemWordsPerChunk = 1 << 17;                 // 1 MiB

// Each item as its key, then its content hash.
std::vector<std::string> encode_item_table(const StateItemTable& table);
// False when the chunks are not a table (a word cut, keys not ascending).
bool decode_item_table(const std::vector<std::string>& chunks, StateItemTable* table);

std::vector<std::string> encode_removed_keys(const std::vector<uint64_t>& keys);
bool decode_removed_keys(const std::vector<std::string>& chunks, std::vector<uint64_t>* keys);

}  // namespace vasana
