#include "sync/mirror_set.hpp"

namespace vasana {

namespace {
using Clock = std::chrono::steady_clock;
// A claim whose chunk never came (the peer went away mid-fetch) is given up after this.
constexpr auto kClaimTimeout = std::chrono::seconds(10);
// After bad bytes from a peer, fetch that writer from other peers for this long.
constexpr auto kShunAfterRefusal = std::chrono::seconds(10);
// After a peer answered a fetch with nothing although its advert promised more (the segment is
// missing there, or its advert was stale), ask it again only after this: no busy loop.
constexpr auto kPauseAfterEmpty = std::chrono::seconds(1);
}  // namespace

MirrorSet::MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply)
    : dir_(std::move(dir)), space_(std::move(space)), own_(own), heads_(heads), apply_(std::move(apply)) {}

void MirrorSet::add(std::unique_ptr<WriterMirror> mirror) {
  std::lock_guard<std::mutex> g(mutex_);
  const InstanceId w = mirror->writer();
  if (!mirror->empty()) heads_->update(mirror->head());
  entries_[w].mirror = std::move(mirror);
}

MirrorSet::Entry& MirrorSet::entry(InstanceId writer) {
  Entry& e = entries_[writer];
  if (!e.mirror) {
    WriterScan none;
    none.instance = writer;
    std::vector<std::string> ignored;
    e.mirror = std::move(WriterMirror::open(dir_, writer, space_, none, &ignored).value());  // empty: cannot fail
  }
  return e;
}

std::vector<PeerFetch> MirrorSet::claim(uint64_t session, const std::vector<StreamHead>& advertised,
                                        uint32_t max_bytes) {
  std::lock_guard<std::mutex> g(mutex_);
  const auto now = Clock::now();
  std::vector<PeerFetch> out;
  for (const StreamHead& h : advertised) {
    if (h.writer == own_ || h.writer.value == 0) continue;
    Entry& e = entry(h.writer);
    if (!e.mirror->behind(h)) continue;
    if (e.claimed_by != 0 && e.claimed_by != session && now - e.claimed_at < kClaimTimeout) continue;
    if (e.claimed_by == session && now - e.claimed_at < kClaimTimeout) continue;  // its fetch is in flight
    auto shun = e.shunned_until.find(session);
    if (shun != e.shunned_until.end() && now < shun->second) continue;
    e.claimed_by = session;
    e.claimed_at = now;
    out.push_back(e.mirror->next_fetch(max_bytes));
  }
  return out;
}

Result<MirrorSet::Delivery> MirrorSet::deliver(uint64_t session, const PeerChunk& chunk, bool mid_write) {
  std::lock_guard<std::mutex> g(mutex_);
  Delivery d;
  if (chunk.writer == own_) return d;
  Entry& e = entry(chunk.writer);
  if (e.claimed_by == session) e.claimed_by = 0;
  auto accepted = e.mirror->accept(chunk, mid_write);
  if (!accepted.ok()) {
    if (accepted.status().code() == Code::io_error) return accepted.status();
    d.refused = true;
    d.problem = accepted.status().message();
    e.shunned_until[session] = Clock::now() + kShunAfterRefusal;
    return d;
  }
  d.bytes = accepted->bytes;
  d.records = accepted->records.size();
  if (d.bytes == 0 && (chunk.missing || chunk.bytes.empty()))
    e.shunned_until[session] = Clock::now() + kPauseAfterEmpty;
  if (!accepted->records.empty()) apply_(chunk.writer, accepted->records);
  if (d.bytes > 0) heads_->update(e.mirror->head());
  return d;
}

void MirrorSet::release(uint64_t session) {
  std::lock_guard<std::mutex> g(mutex_);
  for (auto& [w, e] : entries_)
    if (e.claimed_by == session) e.claimed_by = 0;
}

}  // namespace vasana
