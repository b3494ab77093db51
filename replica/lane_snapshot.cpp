#include "replica/lane_snapshot.hpp"

#include <algorithm>

namespace vasana {

SnapshotWriter::SnapshotWriter(size_t chunk_bytes) : chunk_bytes_(std::max<size_t>(chunk_bytes, 1)) {}

void SnapshotWriter::raw(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  bytes_ += n;
  while (n > 0) {
    if (chunks_.empty() || chunks_.back().size() == chunk_bytes_) {
      chunks_.emplace_back();
      chunks_.back().reserve(chunk_bytes_);
    }
    std::string& c = chunks_.back();
    const size_t take = std::min(n, chunk_bytes_ - c.size());
    c.append(p, take);
    p += take;
    n -= take;
  }
}

void SnapshotWriter::append(SnapshotWriter&& other) {
  bytes_ += other.bytes_;
  for (auto& c : other.take_chunks())
    if (!c.empty()) chunks_.push_back(std::move(c));
}

std::vector<std::string> SnapshotWriter::take_chunks() {
  bytes_ = 0;
  return std::move(chunks_);
}

SnapshotReader::SnapshotReader(const std::vector<std::string>& chunks) : chunks_(chunks) {
  for (const auto& c : chunks_) remaining_ += c.size();
}

void SnapshotReader::raw(void* out, size_t n) {
  char* p = static_cast<char*>(out);
  if (failed_ || n > remaining_) {
    failed_ = true;
    if (n > 0) std::memset(p, 0, n);
    return;
  }
  remaining_ -= n;
  while (n > 0) {
    const std::string& c = chunks_[chunk_];
    const size_t take = std::min(n, c.size() - offset_);
    std::memcpy(p, c.data() + offset_, take);
    p += take;
    n -= take;
    offset_ += take;
    if (offset_ == c.size() && chunk_ + 1 < chunks_.size()) {
      ++chunk_;
      offset_ = 0;
    }
  }
}

std::string SnapshotReader::str() {
  std::string s(count(1), '\0');
  raw(s.data(), s.size());
  return s;
}

uint64_t SnapshotReader::count(size_t min_item_bytes) {
  const uint64_t n = u64();
  if (failed_) return 0;
  if (min_item_bytes > 0 && n > remaining_ / min_item_bytes) {
    failed_ = true;
    return 0;
  }
  return n;
}

Status SnapshotReader::finish(std::string_view what) const {
  if (failed_) return Status::Corruption(std::string(what) + ": the snapshot ends early or holds an impossible count");
  if (remaining_ != 0)
    return Status::Corruption(std::string(what) + ": " + std::to_string(remaining_) + " bytes left over after the snapshot");
  return Status::Ok();
}

}  // namespace vasana
