// A lane's index as bytes, for checkpoints (actors/checkpoint_task.hpp): Lane::save writes one
// with a SnapshotWriter, Lane::load reads it back with a SnapshotReader, so that a start loads
// the lanes instead of rebuilding them from the state.
//
// Encoding: fixed-width little-endian integers and IEEE floats, strings and arrays a u64 count
// and then their bytes. The bytes are cut into chunks of chunk_bytes (the last one shorter), which
// the checkpoint store keeps as separate values; a read may span chunks.
//
// A reader never reads past the end nor trusts a count: once a read fails (the bytes end early,
// or a count asks for more items than bytes remain) every later read returns zeros and status()
// says Corruption, so a lane's load() reads on and checks status() once before it keeps what it
// read. Counts used to size allocations go through count(), which refuses one that the remaining
// bytes cannot hold.
//
// Threading: none; one writer or reader per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "replica/order_key.hpp"

namespace vasana {

// One saved lane: its name (Lane::name), the format it was saved in, and the bytes.
struct LaneSnapshot {
  std::string name;
  uint32_t format = 0;
  std::vector<std::string> chunks;
};

// The recall engine's lane backlog, saved beside the lanes under this name.
inline constexpr const char* kBacklogSnapshot = "(backlog)";

class SnapshotWriter {
 public:
  explicit SnapshotWriter(size_t chunk_bytes = size_t{4} << 20);

  void raw(const void* data, size_t n);
  void u8(uint8_t v) { raw(&v, 1); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void f64(double v) { raw(&v, 8); }
  void str(std::string_view s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void id(const MemoryId& m) {
    u64(m.instance.value);
    u64(m.seqno.value);
  }
  void key(const OrderKey& k) {
    u64(k.ts.value);
    u64(k.instance.value);
    u64(k.seqno.value);
  }
  // A count and then n trivially copyable items as they are in memory.
  template <class T>
  void array(const T* items, size_t n) {
    static_assert(std::is_trivially_copyable<T>::value, "array() copies bytes");
    u64(n);
    raw(items, n * sizeof(T));
  }
  template <class T>
  void array(const std::vector<T>& v) {
    array(v.data(), v.size());
  }

  // Appends everything other wrote, after what this writer holds (other is empty afterwards):
  // parts written separately, for example one before and one after a lock was released, read
  // back as one stream. Chunks may be shorter than chunk_bytes from then on.
  void append(SnapshotWriter&& other);

  uint64_t bytes() const { return bytes_; }
  // The chunks written so far; the writer is empty afterwards.
  std::vector<std::string> take_chunks();

 private:
  size_t chunk_bytes_;
  std::vector<std::string> chunks_;
  uint64_t bytes_ = 0;
};

class SnapshotReader {
 public:
  // Reads the concatenation of chunks, which must outlive the reader.
  explicit SnapshotReader(const std::vector<std::string>& chunks);

  // Copies n bytes to out; zeros (and a failed reader) when fewer remain.
  void raw(void* out, size_t n);
  uint8_t u8() { return get<uint8_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int64_t i64() { return get<int64_t>(); }
  double f64() { return get<double>(); }
  std::string str();
  MemoryId id() {
    MemoryId m;
    m.instance.value = u64();
    m.seqno.value = u64();
    return m;
  }
  OrderKey key() {
    OrderKey k;
    k.ts.value = u64();
    k.instance.value = u64();
    k.seqno.value = u64();
    return k;
  }
  // A count of items of at least min_item_bytes each; 0 (and a failed reader) when the remaining
  // bytes cannot hold that many.
  uint64_t count(size_t min_item_bytes);
  template <class T>
  std::vector<T> array() {
    static_assert(std::is_trivially_copyable<T>::value, "array() copies bytes");
    std::vector<T> v(count(sizeof(T)));
    raw(v.data(), v.size() * sizeof(T));
    return v;
  }

  uint64_t remaining() const { return remaining_; }
  bool ok() const { return !failed_; }
  // Ok, or Corruption naming what ran out. A reader that has bytes left over also fails here:
  // call once everything was read.
  Status finish(std::string_view what) const;

 private:
  template <class T>
  T get() {
    T v{};
    raw(&v, sizeof v);
    return v;
  }

  const std::vector<std::string>& chunks_;
  size_t chunk_ = 0;   // current chunk
  size_t offset_ = 0;  // in it
  uint64_t remaining_ = 0;
  bool failed_ = false;
};

}  // namespace vasana
