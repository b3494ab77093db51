// Ascending ids coded as varint differences (replica/ascending_ids.hpp): every list reads back as
// written, whatever its gaps, in as many bytes as its gaps need.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "replica/ascending_ids.hpp"

namespace vasana {

namespace {

std::vector<uint32_t> decoded(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> out;
  for_each_ascending_id(bytes.data(), bytes.data() + bytes.size(), [&](uint32_t id) { out.push_back(id); });
  return out;
}

}  // namespace

TEST_CASE("ascending ids read back as written, in the bytes their gaps need", "[ascending_ids]") {
  // Gaps at each varint length's edges: 1 byte below 2^7, 2 below 2^14, ... 5 up to 2^32 - 1.
  const std::vector<uint32_t> ids{0, 127, 128, 16511, 16512, 2113663, 2113664, 270549119, 270549120, 4294967295u};
  std::vector<uint8_t> bytes;
  append_ascending_ids(bytes, ids.data(), ids.size());
  CHECK(decoded(bytes) == ids);
  CHECK(count_ascending_ids(bytes.data(), bytes.data() + bytes.size()) == ids.size());
  // gaps: 0, 127 (1 byte each), 1, 16383 (1, 2), 1, 2097151 (1, 3), 1, 268435455 (1, 4), 1, 4024418175 (1, 5)
  CHECK(bytes.size() == 1 + 1 + 1 + 2 + 1 + 3 + 1 + 4 + 1 + 5);

  // Random lists, appended one after another as the keyword index does: each range reads back.
  std::mt19937 rng(5);
  std::vector<uint8_t> all;
  std::vector<std::vector<uint32_t>> lists;
  std::vector<size_t> begin{0};
  for (int l = 0; l < 200; ++l) {
    std::vector<uint32_t> list;
    uint32_t id = rng() % 50;
    for (int n = rng() % 40; n > 0; --n) {
      list.push_back(id);
      id += 1 + rng() % (l % 2 ? 100 : 1000000);
    }
    append_ascending_ids(all, list.data(), list.size());
    begin.push_back(all.size());
    lists.push_back(list);
  }
  size_t wrong = 0;
  for (size_t l = 0; l < lists.size(); ++l) {
    std::vector<uint32_t> got;
    for_each_ascending_id(all.data() + begin[l], all.data() + begin[l + 1], [&](uint32_t id) { got.push_back(id); });
    wrong += got != lists[l] || count_ascending_ids(all.data() + begin[l], all.data() + begin[l + 1]) != lists[l].size();
  }
  CHECK(wrong == 0);
  // Control: a range that ends before the last id's 5 bytes reads one id fewer.
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 5);
  CHECK(decoded(cut).size() == ids.size() - 1);
}

}  // namespace vasana
