#include "sync/mirror_set.hpp"

#include "store/hybrid_clock.hpp"

#include <pthread.h>

#include <iterator>
#include <optional>
#include <tuple>

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
// A copy that could not be written or synced is rewound and fetched into again this often.
constexpr auto kRetryFailedCopy = std::chrono::seconds(5);
}  // namespace

Hlc ClockBound::max_ts() const {
  const uint64_t now = wall_ms ? wall_ms() : system_wall_ms();
  return Hlc::make(now + static_cast<uint64_t>(max_skew.count()), 0xffff);
}

MirrorSet::MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply, LogFn log,
                     size_t apply_inline_at_most, ClockBound bound)
    : dir_(std::move(dir)),
      space_(std::move(space)),
      own_(own),
      heads_(heads),
      apply_(std::move(apply)),
      log_(log ? std::move(log) : [](const std::string&) {}),
      apply_inline_at_most_(apply_inline_at_most),
      bound_(std::move(bound)),
      applier_([this] { apply_loop(); }),
      syncer_([this] { sync_loop(); }) {}

MirrorSet::~MirrorSet() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    applier_stopping_ = true;
  }
  apply_wanted_.notify_all();
  applier_.join();  // after applying what is queued: those chunks are stored already
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  sync_wanted_.notify_all();
  syncer_.join();
}

namespace {
// The earlier of two heads of one writer's copy.
const StreamHead& earlier(const StreamHead& a, const StreamHead& b) {
  return std::make_tuple(a.segment, a.segment_bytes) <= std::make_tuple(b.segment, b.segment_bytes) ? a : b;
}
}  // namespace

void MirrorSet::mark_dirty(InstanceId writer, Entry& e) {
  if (!e.dirty) {
    e.dirty = true;
    dirty_.push_back(writer);
  }
  sync_wanted_.notify_one();
}

void MirrorSet::apply_one(std::unique_lock<std::mutex>& g, Queued& q) {
  applying_ = true;
  // Records applied before a rewind come again: each is applied once.
  const Seqno skip = entries_[q.writer].skip_through;
  size_t fresh = 0;
  while (fresh < q.records.size() && q.records[fresh].seqno <= skip) ++fresh;
  if (fresh > 0) q.records.erase(q.records.begin(), q.records.begin() + fresh);
  g.unlock();
  if (!q.records.empty()) apply_(q.writer, q.records);
  q.records = {};  // freed outside the mutex: the chunk's bytes, up to fetch_bytes
  g.lock();
  applying_ = false;
  Entry& e = entries_[q.writer];
  e.applied = q.head_after;
  if (--e.queued == 0) e.queued_by = 0;
  ++written_rounds_;
  mark_dirty(q.writer, e);
  applied_number_ = q.number;
  applied_.notify_all();
  // Chunks queued meanwhile wait for applying_ to clear. Only then: after an inline apply (a
  // live push) the applier has nothing to do, and waking it would cost a thread switch per op.
  if (!queue_.empty() || applier_stopping_) apply_wanted_.notify_one();
}

void MirrorSet::apply_loop() {
  pthread_setname_np(pthread_self(), "vasana.apply");
  std::unique_lock<std::mutex> g(mutex_);
  for (;;) {
    apply_wanted_.wait(g, [&] { return !applying_ && (applier_stopping_ || !queue_.empty()); });
    if (queue_.empty()) return;  // stopping, and nothing left to apply
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    apply_one(g, q);
  }
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
    sync_wanted_.wait(g, [&] { return stopping_ || !dirty_.empty(); });
    if (dirty_.empty()) return;  // stopping, and nothing left unsynced
    std::vector<Work> work;
    const uint64_t round = written_rounds_;  // every applied chunk so far is in this round
    for (InstanceId w : dirty_) {
      Entry& e = entries_[w];
      e.dirty = false;
      work.push_back(Work{w, e.mirror->sync_point()});
    }
    dirty_.clear();
    // The fdatasyncs, outside the mutex: deliveries (and their applying) go on meanwhile, and
    // whatever they write is synced in the next round.
    g.unlock();
    for (Work& wk : work)
      if (wk.point) wk.status = wk.point->file->sync();
    g.lock();
    for (const Work& wk : work) {
      Entry& e = entries_[wk.writer];
      if (!wk.status.ok()) {
        fail_copy(wk.writer, e, "sync", wk.status);
        continue;
      }
      if (wk.point) e.mirror->synced(*wk.point);
      // Advertised and acknowledged: what is both on disk and applied here.
      if (!e.mirror->empty()) heads_->update(earlier(e.mirror->durable_head(), e.applied));
    }
    synced_rounds_ = round;
    synced_.notify_all();
  }
}

void MirrorSet::flush() {
  std::unique_lock<std::mutex> g(mutex_);
  const uint64_t last = queued_number_;
  applied_.wait(g, [&] { return applied_number_ >= last; });
  const uint64_t want = written_rounds_;
  synced_.wait(g, [&] { return synced_rounds_ >= want; });
}

void MirrorSet::add(std::unique_ptr<WriterMirror> mirror) {
  std::lock_guard<std::mutex> g(mutex_);
  const InstanceId w = mirror->writer();
  if (!mirror->empty()) heads_->update(mirror->durable_head());
  Entry& e = entries_[w];
  e.applied = mirror->head();  // replayed into the state at start-up
  e.mirror = std::move(mirror);
}

void MirrorSet::start_repair(std::unique_ptr<WriterMirror> own_prefix) {
  add(std::move(own_prefix));
  std::lock_guard<std::mutex> g(mutex_);
  repairing_ = true;
}

bool MirrorSet::repairing() const {
  std::lock_guard<std::mutex> g(mutex_);
  return repairing_;
}

StreamHead MirrorSet::finish_repair() {
  {
    std::unique_lock<std::mutex> g(mutex_);
    repairing_ = false;
    auto found = entries_.find(own_);
    if (found == entries_.end()) return StreamHead{};
    Entry& e = found->second;
    applied_.wait(g, [&] { return e.queued == 0; });
  }
  flush();
  std::lock_guard<std::mutex> g(mutex_);
  return entries_.at(own_).mirror->durable_head();
}

namespace {
// A copy of writer holding nothing: what a first chunk of it is checked against.
std::unique_ptr<WriterMirror> empty_copy(const DataDir& dir, InstanceId writer, const VectorSpace& space) {
  WriterScan none;
  none.instance = writer;
  std::vector<std::string> ignored;
  return std::move(WriterMirror::open(dir, writer, space, none, &ignored).value());  // empty: cannot fail
}
}  // namespace

MirrorSet::Entry& MirrorSet::new_entry(InstanceId writer) {
  Entry& e = entries_[writer];
  if (!e.mirror) {
    e.mirror = empty_copy(dir_, writer, space_);
    e.applied = e.mirror->head();
    // A session paused for new writers (it sent bad bytes or nothing) stays passed over for
    // this one until then.
    const auto now = Clock::now();
    for (auto it = new_paused_.begin(); it != new_paused_.end();) {
      if (now < it->second) {
        e.shunned_until[it->first] = it->second;
        ++it;
      } else {
        it = new_paused_.erase(it);
      }
    }
  }
  return e;
}

void MirrorSet::fail_copy(InstanceId writer, Entry& e, const char* what, const Status& why) {
  if (!e.failure_logged)
    log_(std::string("sync: cannot ") + what + " the copy of writer " + to_hex(writer) + ": " + why.to_string() +
         "; not fetched into until it can be written again (tried every " +
         std::to_string(std::chrono::seconds(kRetryFailedCopy).count()) + " s)");
  e.failure_logged = true;
  e.failed = why.to_string();
  e.failed_at = Clock::now();
  ++copy_failures_;
}

bool MirrorSet::retry_copy(InstanceId writer, Entry& e, std::chrono::steady_clock::time_point now) {
  if (e.queued > 0 || now - e.failed_at < kRetryFailedCopy) return false;
  e.failed_at = now;
  Status s = e.mirror->rewind();
  if (!s.ok()) return false;
  // The records written after the durable head were applied: when they come again they are
  // skipped, and the heads advertised stay at the durable head (earlier of the two).
  if (e.skip_through < e.applied.last_seqno) e.skip_through = e.applied.last_seqno;
  e.applied = e.mirror->head();
  e.failed.clear();  // logged again only once a write succeeds, or fails after having succeeded
  return true;
}

void MirrorSet::note_hold(InstanceId writer, Entry& e, const std::optional<WriterMirror::HeldRecord>& held) {
  if (held && !e.held) {
    ++clock_holds_;
    e.held_since = Clock::now();
    const uint64_t now = bound_.wall_ms ? bound_.wall_ms() : system_wall_ms();
    const uint64_t at = held->ts.physical_ms();
    log_("sync: writer " + to_hex(writer) + " op " + std::to_string(held->seqno.value) + " is stamped " +
         std::to_string(at > now ? (at - now) / 1000 : 0) + " s ahead of this node's clock, more than " +
         "sync.max_clock_skew_ms (" + std::to_string(bound_.max_skew.count()) + "): that writer's ops are held " +
         "from there until this node's clock is within the bound");
  }
  if (held) {
    e.held = held;
  } else if (e.held && e.mirror->head().last_seqno >= e.held->seqno) {
    log_("sync: writer " + to_hex(writer) + ": the clock bound no longer holds op " +
         std::to_string(e.held->seqno.value) + "; taken");
    e.held.reset();
  }
}

std::vector<MirrorSet::CopyProblem> MirrorSet::problems() const {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<CopyProblem> out;
  for (const auto& [w, e] : entries_)
    if (!e.failed.empty() || e.held) out.push_back(CopyProblem{w, e.failed, e.held});
  return out;
}

uint64_t MirrorSet::copy_failures() const {
  std::lock_guard<std::mutex> g(mutex_);
  return copy_failures_;
}

uint64_t MirrorSet::clock_holds() const {
  std::lock_guard<std::mutex> g(mutex_);
  return clock_holds_;
}

std::optional<double> MirrorSet::held_seconds(InstanceId writer) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto found = entries_.find(writer);
  if (found == entries_.end() || !found->second.held) return std::nullopt;
  return std::chrono::duration<double>(Clock::now() - found->second.held_since).count();
}

size_t MirrorSet::copies() const {
  std::lock_guard<std::mutex> g(mutex_);
  return entries_.size();
}

std::vector<PeerFetch> MirrorSet::claim(uint64_t session, const std::vector<StreamHead>& advertised,
                                        uint32_t max_bytes) {
  std::lock_guard<std::mutex> g(mutex_);
  const auto now = Clock::now();
  const Hlc max_ts = bound_.max_ts();
  std::vector<PeerFetch> out;
  for (const StreamHead& h : advertised) {
    if ((h.writer == own_ && !repairing_) || h.writer.value == 0) continue;
    auto found = entries_.find(h.writer);
    if (found == entries_.end()) {
      // Nothing of this writer is held here: its first fetch is claimed without creating
      // anything, and only a few such fetches are in flight at a time.
      if (h.segment.value == 0 && h.segment_bytes == 0) continue;  // an empty stream
      auto paused = new_paused_.find(session);
      if (paused != new_paused_.end() && now < paused->second) continue;
      auto nc = new_claims_.find(h.writer);
      if (nc != new_claims_.end() && now - nc->second.claimed_at < kClaimTimeout) continue;
      if (nc == new_claims_.end() && new_claims_.size() >= kMaxNewWriterClaims) {
        for (auto it = new_claims_.begin(); it != new_claims_.end();)
          it = now - it->second.claimed_at >= kClaimTimeout ? new_claims_.erase(it) : std::next(it);
        if (new_claims_.size() >= kMaxNewWriterClaims) continue;
      }
      PeerFetch f;
      f.writer = h.writer;
      f.max_bytes = max_bytes;  // segment 0 from 0
      new_claims_[h.writer] = NewClaim{session, now, f};
      out.push_back(f);
      continue;
    }
    Entry& e = found->second;
    if (!e.failed.empty() && !retry_copy(h.writer, e, now)) continue;
    if (!e.mirror->behind(h)) continue;
    if (e.held && e.held->ts > max_ts) continue;  // not due yet
    if (e.claimed_by != 0 && e.claimed_by != session && now - e.claimed_at < kClaimTimeout) continue;
    if (e.claimed_by == session && now - e.claimed_at < kClaimTimeout) continue;  // its fetch is in flight
    if (e.queued > 0 && e.queued_by != session) continue;  // another session's chunks wait to be applied
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
  auto d = accept(session, chunk, mid_write);
  if (!d.ok()) return d;
  std::unique_lock<std::mutex> g(mutex_);
  const uint64_t last = queued_number_;  // this chunk's, or one queued later
  applied_.wait(g, [&] { return applied_number_ >= last; });
  return d;
}

Result<MirrorSet::Delivery> MirrorSet::accept(uint64_t session, const PeerChunk& chunk, bool mid_write) {
  std::unique_lock<std::mutex> g(mutex_);
  Delivery d;
  if (chunk.writer == own_ && !repairing_) return d;
  // Room in the queue first: a session that stores faster than the applier applies waits here.
  applied_.wait(g, [&] { return queue_.size() < kMaxQueuedChunks; });
  auto found = entries_.find(chunk.writer);
  Entry* e = found == entries_.end() ? nullptr : &found->second;  // entries are never erased
  auto failed_copy = [&] { return Status::IoError("the copy of writer " + to_hex(chunk.writer) + " failed: " + e->failed); };
  WriterMirror::Expectation expect;
  if (!e) {
    // A writer nothing of which is held here: checked against an empty copy, and given an entry
    // only once it verifies and there is something to store.
    auto nc = new_claims_.find(chunk.writer);
    if (nc != new_claims_.end() && nc->second.session == session && chunk.segment == nc->second.claimed.segment &&
        chunk.offset == nc->second.claimed.offset)
      new_claims_.erase(nc);
    if (chunk.missing || chunk.bytes.empty()) {
      if (chunk.segment.value == 0 && chunk.offset == 0) new_paused_[session] = Clock::now() + kPauseAfterEmpty;
      return d;
    }
    expect = empty_copy(dir_, chunk.writer, space_)->expectation();
  } else {
    // The answer to the session's fetch releases its claim. A chunk the peer pushed unasked (the
    // live tail) is taken like any other; it releases the claim only when it is for the very
    // position the fetch asked for (then the fetch's own answer will be stale). Otherwise a fetch
    // still in flight keeps the claim until its answer comes, so pushes never let fetches pile
    // up: at most one claim per writer, and at most one more answer on the way.
    if (e->claimed_by == session && chunk.segment == e->claimed.segment && chunk.offset == e->claimed.offset)
      e->claimed_by = 0;
    if (e->queued > 0 && e->queued_by != session) return d;  // stale: another session's chunks go first
    if (!e->failed.empty()) return failed_copy();
    expect = e->mirror->expectation();
  }
  expect.max_ts = bound_.max_ts();
  // Verified outside the mutex (10-12 ms for a 4 MiB chunk here), so that the applier's
  // bookkeeping between chunks and other sessions do not wait for it. Should the copy move
  // meanwhile (another session stored the same bytes), store() finds the chunk stale.
  g.unlock();
  auto checked = WriterMirror::check(expect, chunk, mid_write);
  g.lock();
  applied_.wait(g, [&] { return queue_.size() < kMaxQueuedChunks; });
  if (chunk.writer == own_ && !repairing_) return d;  // the repair finished meanwhile
  if (!e) {
    if (!checked.ok()) {  // bad bytes for a writer not held here: nothing is kept of it
      d.refused = true;
      d.problem = checked.status().message();
      new_paused_[session] = Clock::now() + kShunAfterRefusal;
      return d;
    }
    if (checked->stale || checked->scan.verified_bytes == 0) return d;
    // Or the entry another session made meanwhile: store() finds the chunk stale if it moved.
    e = &new_entry(chunk.writer);
  }
  if (!e->failed.empty()) return failed_copy();
  auto accepted = checked.ok() ? e->mirror->store(chunk, std::move(checked.value()))
                               : Result<WriterMirror::Accepted>(checked.status());
  if (!accepted.ok()) {
    if (accepted.status().code() == Code::io_error) {
      fail_copy(chunk.writer, *e, "write", accepted.status());
      return accepted.status();
    }
    d.refused = true;
    d.problem = accepted.status().message();
    e->shunned_until[session] = Clock::now() + kShunAfterRefusal;
    return d;
  }
  if (!accepted->stale) note_hold(chunk.writer, *e, accepted->held);
  d.bytes = accepted->bytes;
  d.records = accepted->records.size();
  d.head = e->mirror->head();
  if (d.bytes == 0 && (chunk.missing || chunk.bytes.empty()))
    e->shunned_until[session] = Clock::now() + kPauseAfterEmpty;
  if (d.bytes > 0 && e->failure_logged) {
    e->failure_logged = false;
    log_("sync: the copy of writer " + to_hex(chunk.writer) + " is written again (up to seqno " +
         std::to_string(d.head.last_seqno.value) + ")");
  }
  if (d.bytes > 0) {
    // Queued even without records (a segment's header or trailer alone): heads move in order.
    ++e->queued;
    e->queued_by = session;
    Queued q{chunk.writer, std::move(accepted->records), e->mirror->head(), ++queued_number_};
    if (queue_.empty() && !applying_ && !applier_stopping_ && q.records.size() <= apply_inline_at_most_) {
      apply_one(g, q);  // e (a map node) stays valid meanwhile: entries are never erased
      d.applied = true;
    } else {
      queue_.push_back(std::move(q));
      apply_wanted_.notify_one();
    }
  }
  return d;
}

void MirrorSet::release(uint64_t session) {
  std::lock_guard<std::mutex> g(mutex_);
  for (auto& [w, e] : entries_)
    if (e.claimed_by == session) e.claimed_by = 0;
  for (auto it = new_claims_.begin(); it != new_claims_.end();)
    it = it->second.session == session ? new_claims_.erase(it) : std::next(it);
}

}  // namespace vasana
