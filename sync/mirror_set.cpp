#include "sync/mirror_set.hpp"

#include <pthread.h>

#include <algorithm>
#include <optional>

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

MirrorSet::MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply, LogFn log)
    : dir_(std::move(dir)),
      space_(std::move(space)),
      own_(own),
      heads_(heads),
      apply_(std::move(apply)),
      log_(log ? std::move(log) : [](const std::string&) {}),
      syncer_([this] { sync_loop(); }) {}

MirrorSet::~MirrorSet() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  sync_wanted_.notify_all();
  syncer_.join();
}

void MirrorSet::sync_loop() {
  pthread_setname_np(pthread_self(), "vasana.mirsync");
  struct Work {
    InstanceId writer;
    std::optional<WriterMirror::SyncPoint> point;
    Status status = Status::Ok();
  };
  std::unique_lock<std::mutex> g(mutex_);
  for (;;) {
    // A copy being applied (between store() and apply()) waits: its head would take in ops
    // not applied yet. apply() marks it dirty again and wakes this thread.
    auto syncable = [&] {
      return std::any_of(dirty_.begin(), dirty_.end(), [&](InstanceId w) { return entries_[w].applying == 0; });
    };
    sync_wanted_.wait(g, [&] { return stopping_ || syncable(); });
    if (dirty_.empty()) return;  // stopping, and nothing left unsynced
    if (!syncable()) {  // stopping while a copy is being applied: its apply() comes soon
      sync_wanted_.wait_for(g, std::chrono::milliseconds(10));
      continue;
    }
    std::vector<Work> work;
    const uint64_t round = written_rounds_;  // every delivery so far is in this round
    std::vector<InstanceId> later;
    for (InstanceId w : dirty_) {
      Entry& e = entries_[w];
      if (e.applying != 0) {
        later.push_back(w);
        continue;
      }
      e.dirty = false;
      work.push_back(Work{w, e.mirror->sync_point()});
    }
    dirty_ = std::move(later);
    // The fdatasyncs, outside the mutex: deliveries (and their applying) go on meanwhile, and
    // whatever they write is synced in the next round.
    g.unlock();
    for (Work& wk : work)
      if (wk.point) wk.status = wk.point->file->sync();
    g.lock();
    for (const Work& wk : work) {
      Entry& e = entries_[wk.writer];
      if (!wk.status.ok()) {
        if (e.failed.empty()) log_("sync: cannot sync the copy of writer " + to_hex(wk.writer) + ": " +
                                   wk.status.to_string() + "; no longer fetching it");
        e.failed = wk.status.to_string();
        continue;
      }
      if (wk.point) e.mirror->synced(wk.point->head);
      if (!e.mirror->empty()) heads_->update(e.mirror->durable_head());
    }
    // Rounds count deliveries: with a copy left for later, this round is not wholly synced.
    if (dirty_.empty()) synced_rounds_ = round;
    synced_.notify_all();
  }
}

void MirrorSet::flush() {
  std::unique_lock<std::mutex> g(mutex_);
  const uint64_t want = written_rounds_;
  synced_.wait(g, [&] { return synced_rounds_ >= want; });
}

void MirrorSet::add(std::unique_ptr<WriterMirror> mirror) {
  std::lock_guard<std::mutex> g(mutex_);
  const InstanceId w = mirror->writer();
  if (!mirror->empty()) heads_->update(mirror->durable_head());
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
    if (e.applying != 0 && e.applying != session) continue;  // another session is applying it
    if (!e.failed.empty()) continue;
    auto shun = e.shunned_until.find(session);
    if (shun != e.shunned_until.end() && now < shun->second) continue;
    e.claimed_by = session;
    e.claimed_at = now;
    e.claimed = e.mirror->next_fetch(max_bytes);
    out.push_back(e.claimed);
  }
  return out;
}

Result<MirrorSet::Delivery> MirrorSet::deliver(uint64_t session, const PeerChunk& chunk, bool mid_write) {
  auto stored = store(session, chunk, mid_write);
  if (!stored.ok()) return stored.status();
  if (!stored->records.empty()) apply(session, chunk.writer, stored->records);
  return stored->delivery;
}

Result<MirrorSet::Stored> MirrorSet::store(uint64_t session, const PeerChunk& chunk, bool mid_write) {
  std::lock_guard<std::mutex> g(mutex_);
  Stored out;
  Delivery& d = out.delivery;
  if (chunk.writer == own_) return out;
  Entry& e = entry(chunk.writer);
  // The answer to the session's fetch releases its claim. A chunk the peer pushed unasked (the
  // live tail) is taken like any other; it releases the claim only when it is for the very
  // position the fetch asked for (then the fetch's own answer will be stale). Otherwise a fetch
  // still in flight keeps the claim until its answer comes, so pushes never let fetches pile up:
  // at most one claim per writer, and at most one more answer on the way.
  if (e.claimed_by == session && chunk.segment == e.claimed.segment && chunk.offset == e.claimed.offset)
    e.claimed_by = 0;
  if (e.applying != 0 && e.applying != session) return out;  // stale: another session applies first
  if (!e.failed.empty()) return Status::IoError("the copy of writer " + to_hex(chunk.writer) + " failed: " + e.failed);
  auto accepted = e.mirror->accept(chunk, mid_write);
  if (!accepted.ok()) {
    if (accepted.status().code() == Code::io_error) {
      e.failed = accepted.status().to_string();
      return accepted.status();
    }
    d.refused = true;
    d.problem = accepted.status().message();
    e.shunned_until[session] = Clock::now() + kShunAfterRefusal;
    return out;
  }
  d.bytes = accepted->bytes;
  d.records = accepted->records.size();
  if (d.bytes == 0 && (chunk.missing || chunk.bytes.empty()))
    e.shunned_until[session] = Clock::now() + kPauseAfterEmpty;
  if (d.bytes > 0) {
    ++written_rounds_;
    if (!e.dirty) {
      e.dirty = true;
      dirty_.push_back(chunk.writer);
    }
  }
  if (!accepted->records.empty()) {
    e.applying = session;  // held until apply(); the syncer waits for it
    out.records = std::move(accepted->records);
  } else if (d.bytes > 0) {
    sync_wanted_.notify_one();
  }
  return out;
}

void MirrorSet::apply(uint64_t session, InstanceId writer, const std::vector<MirroredRecord>& records) {
  // Outside the mutex: other writers' chunks are stored meanwhile. This writer's are not (it is
  // held for session), so its records are applied in its order.
  apply_(writer, records);
  std::lock_guard<std::mutex> g(mutex_);
  Entry& e = entry(writer);
  if (e.applying == session) e.applying = 0;
  sync_wanted_.notify_one();
}

void MirrorSet::release(uint64_t session) {
  std::lock_guard<std::mutex> g(mutex_);
  for (auto& [w, e] : entries_)
    if (e.claimed_by == session) e.claimed_by = 0;
}

}  // namespace vasana
