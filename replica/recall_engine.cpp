#include "replica/recall_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "replica/correction_check.hpp"
#include "replica/correction_lane.hpp"
#include "replica/keyword_lane.hpp"
#include "replica/query_intent.hpp"
#include "replica/verdict.hpp"

namespace vasana {

size_t default_lane_helpers() {
  const size_t cores = std::thread::hardware_concurrency();
  return std::min<size_t>(cores > 1 ? cores - 1 : 0, 3);
}

RecallEngine::RecallEngine(std::vector<std::unique_ptr<Lane>> lanes, ScoringWeights weights, size_t lane_helpers)
    : lanes_(std::move(lanes)), weights_(weights), spread_(std::make_unique<TaskSpread>(lane_helpers)) {}

RecallEngine::~RecallEngine() = default;

Status RecallEngine::apply(const OrderKey& key, const OpValue& op) {
  {
    auto lock = lock_.write();
    StateChange change;
    Status s = state_.apply(key, op, &change);
    note_applied(key);
    if (!s.ok()) return s;
    for (auto& lane : lanes_) lane->update(change, state_);
    for (const MemoryId& id : change.other_memories) {
      StateChange one;
      one.memory = id;
      for (auto& lane : lanes_) lane->update(one, state_);
    }
  }
  { std::lock_guard<std::mutex> g(applied_mutex_); }
  applied_cv_.notify_all();
  return Status::Ok();
}

Status RecallEngine::apply_batch(const std::vector<std::pair<OrderKey, OpValue>>& ops, const OpErrorFn& on_error) {
  Status first = Status::Ok();
  auto failed = [&](size_t i, const Status& s) {
    if (first.ok()) first = s;
    if (on_error) on_error(i, s);
  };
  if (ops.size() < kBatchDeferLanesFrom) {
    for (size_t i = 0; i < ops.size(); ++i) {
      Status s = apply(ops[i].first, ops[i].second);
      if (!s.ok()) failed(i, s);
    }
    return first;
  }
  BatchActivity::Scope batch(batches_);
  std::vector<std::pair<size_t, Status>> failures;
  for (size_t begin = 0; begin < ops.size(); begin += kBatchOpsPerHold) {
    const size_t end = std::min(ops.size(), begin + kBatchOpsPerHold);
    {
      auto lock = lock_.write();
      for (size_t i = begin; i < end; ++i) {
        StateChange change;
        Status s = state_.apply(ops[i].first, ops[i].second, &change);
        note_applied(ops[i].first);
        if (s.ok())
          backlog_.add(change, state_);
        else
          failures.emplace_back(i, std::move(s));
      }
      backlog_size_.store(backlog_.size(), std::memory_order_relaxed);
    }
    { std::lock_guard<std::mutex> g(applied_mutex_); }
    applied_cv_.notify_all();
    for (const auto& [i, s] : failures) failed(i, s);
    failures.clear();
  }
  return first;
}

size_t RecallEngine::index_lane_backlog(size_t max_ids) {
  if (lanes_backlog() == 0) return 0;
  batches_.wait_quiet(kBatchQuietGap, kBacklogYieldAtMost);
  auto lock = lock_.write();
  std::vector<MemoryId> ids;
  bool triplets = false, corrections = false;
  backlog_.take(max_ids, state_, &ids, &triplets, &corrections);
  // The lanes one after another on the calling thread (the node's niced indexer), not spread
  // over the helpers: they run at normal priority and would take the cores from catch-up
  // applying, fetching and queries (measured: a catch-up's state rate fell from 94k to 62k ops/s
  // with the spread, and every lane was level later, not sooner).
  for (auto& lane_ptr : lanes_) {
    Lane& lane = *lane_ptr;
    StateChange change;
    for (const MemoryId& id : ids) {
      change.memory = id;
      lane.update(change, state_);
    }
    if (triplets || corrections) {
      change = StateChange{};
      change.triplets = triplets;
      change.corrections = corrections;
      lane.update(change, state_);
    }
  }
  backlog_size_.store(backlog_.size(), std::memory_order_relaxed);
  return ids.size() + triplets + corrections;
}

bool RecallEngine::wait_applied(InstanceId writer, Seqno seqno, std::chrono::milliseconds timeout) const {
  auto done = [&] {
    auto lock = lock_.read();
    auto it = state_.applied().find(writer);
    return seqno.value == 0 || (it != state_.applied().end() && it->second >= seqno);
  };
  if (done()) return true;
  std::unique_lock<std::mutex> g(applied_mutex_);
  return applied_cv_.wait_for(g, timeout, done);
}

Status RecallEngine::apply_to_state(const OrderKey& key, const OpValue& op) {
  auto lock = lock_.write();
  Status s = state_.apply(key, op, nullptr);
  note_applied(key);
  return s;
}

void RecallEngine::set_value_archive(std::shared_ptr<ValueArchive> archive) {
  auto lock = lock_.write();
  state_.set_value_archive(std::move(archive));
}

std::shared_ptr<ValueArchive> RecallEngine::value_archive() const {
  auto lock = lock_.read();
  return state_.value_archive();
}

void RecallEngine::load_state(ReplicaState state) {
  auto lock = lock_.write();
  state_ = std::move(state);
  corrections_held_.store(state_.correction_count(), std::memory_order_release);
  std::atomic_store(&corrections_copy_, std::shared_ptr<const CorrectionsCopy>());  // another state: copied again
  auto it = state_.applied().find(tracked_);
  tracked_applied_.store(it == state_.applied().end() ? 0 : it->second.value, std::memory_order_release);
}

namespace {

// Brings each of lanes up to date with the whole state, spread over up to `threads` threads (each
// lane is touched by one thread; the state is only read), then warms it. The caller holds the
// engine's write lock.
void rebuild(const std::vector<Lane*>& lanes, const ReplicaState& state, size_t threads) {
  std::vector<MemoryId> ids;
  ids.reserve(state.memory_count());
  state.for_each_memory([&](const MemoryRecord& m) { ids.push_back(m.id); });
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < lanes.size(); i = next++) {
      Lane& lane = *lanes[i];
      StateChange change;
      for (const MemoryId& id : ids) {
        change.memory = id;
        lane.update(change, state);
      }
      change = StateChange{};
      change.triplets = change.corrections = true;
      lane.update(change, state);
      lane.warm(state);
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(std::max<size_t>(1, threads), lanes.size()); ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
}

}  // namespace

void RecallEngine::rebuild_lanes(size_t threads) {
  auto lock = lock_.write();
  std::vector<Lane*> all;
  for (auto& lane : lanes_) all.push_back(lane.get());
  rebuild(all, state_, threads);
  backlog_.clear(state_);
  backlog_size_.store(0, std::memory_order_relaxed);
  { std::lock_guard<std::mutex> g(applied_mutex_); }
  applied_cv_.notify_all();
}

std::vector<LaneSnapshot> RecallEngine::snapshot_lanes(const std::function<void(const ReplicaState&)>& fn,
                                                       double* locked_ms) const {
  std::vector<LaneSnapshot> out;
  std::vector<SnapshotWriter> writers;
  std::vector<Lane::SaveRest> rests;
  {
    auto lock = lock_.read();
    const auto t0 = std::chrono::steady_clock::now();
    fn(state_);
    for (const auto& lane : lanes_) {
      if (lane->snapshot_format() == 0) continue;
      out.push_back(LaneSnapshot{lane->name(), lane->snapshot_format(), {}});
      writers.emplace_back();
      rests.push_back(lane->save_locked(writers.back()));
    }
    out.push_back(backlog_snapshot());
    if (locked_ms)
      *locked_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  // The parts no op changes (Lane::save_locked), written after the lock is released.
  for (size_t i = 0; i < writers.size(); ++i) {
    if (rests[i]) rests[i](writers[i]);
    rests[i] = nullptr;
    out[i].chunks = writers[i].take_chunks();
  }
  return out;
}

LaneSnapshot RecallEngine::backlog_snapshot() const {
  SnapshotWriter w;
  w.u64(backlog_.ids().size());
  for (const MemoryId& id : backlog_.ids()) w.id(id);
  w.u8(backlog_.triplets());
  w.u8(backlog_.corrections());
  return LaneSnapshot{kBacklogSnapshot, 1, w.take_chunks()};
}

void RecallEngine::hold_still(const std::function<void()>& fn, double* locked_ms) const {
  auto lock = lock_.read();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Lane::Release> held;
  for (const auto& lane : lanes_)
    if (lane->snapshot_format() != 0) held.push_back(lane->hold_still());
  fn();
  for (auto it = held.rbegin(); it != held.rend(); ++it)
    if (*it) (*it)();
  if (locked_ms) *locked_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<LaneSnapshot> RecallEngine::snapshot_held(const std::function<void(const ReplicaState&)>& fn) const {
  std::vector<LaneSnapshot> out;
  fn(state_);
  for (const auto& lane : lanes_) {
    if (lane->snapshot_format() == 0) continue;
    SnapshotWriter w;
    lane->save_held(w);
    out.push_back(LaneSnapshot{lane->name(), lane->snapshot_format(), w.take_chunks()});
  }
  out.push_back(backlog_snapshot());
  return out;
}

std::vector<std::string> RecallEngine::load_lanes(std::vector<LaneSnapshot> snapshots, size_t threads) {
  auto lock = lock_.write();
  auto find = [&](const std::string& name) -> LaneSnapshot* {
    for (auto& s : snapshots)
      if (s.name == name) return &s;
    return nullptr;
  };
  // Each lane alone on a thread, like a rebuild. A lane whose snapshot fails to load is left
  // empty by its load() and rebuilt by finish_lanes().
  std::vector<std::string> lines(lanes_.size());
  lanes_loaded_.assign(lanes_.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < lanes_.size(); i = next++) {
      Lane& lane = *lanes_[i];
      const LaneSnapshot* snap = find(lane.name());
      const std::string name = lane.name();
      if (lane.snapshot_format() == 0) {
        lines[i] = name + " rebuilt (not saved)";
      } else if (!snap) {
        lines[i] = name + " rebuilt (the checkpoint holds no snapshot of it)";
      } else if (snap->format != lane.snapshot_format()) {
        lines[i] = name + " rebuilt (its snapshot has format " + std::to_string(snap->format) + ", this build reads " +
                   std::to_string(lane.snapshot_format()) + ")";
      } else {
        auto t0 = std::chrono::steady_clock::now();
        SnapshotReader r(snap->chunks);
        Status st = lane.load(r);
        if (st.ok()) st = r.finish(name);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (st.ok()) {
          lanes_loaded_[i] = 1;
          lines[i] = name + " loaded in " + std::to_string(int(ms)) + " ms";
        } else {
          lines[i] = name + " rebuilt (its snapshot did not load: " + st.message() + ")";
        }
      }
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(std::max<size_t>(1, threads), lanes_.size()); ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  saved_backlog_.reset();
  if (LaneSnapshot* b = find(kBacklogSnapshot)) saved_backlog_ = std::move(*b);
  return lines;
}

std::vector<std::string> RecallEngine::finish_lanes(size_t threads, const std::vector<MemoryId>* changed) {
  auto lock = lock_.write();
  std::vector<std::string> lines;
  lanes_loaded_.resize(lanes_.size(), 0);
  std::vector<Lane*> rebuilt;
  for (size_t i = 0; i < lanes_.size(); ++i)
    if (!lanes_loaded_[i]) rebuilt.push_back(lanes_[i].get());
  auto t0 = std::chrono::steady_clock::now();
  rebuild(rebuilt, state_, threads);
  if (!rebuilt.empty()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    lines.push_back(std::to_string(rebuilt.size()) + " lane(s) rebuilt in " + std::to_string(int(ms)) + " ms");
  }
  // The backlog saved with the lanes: memories the saved lanes had not indexed yet. Re-indexing
  // an id is harmless (lane updates are idempotent from the state), so a rebuilt lane does not
  // mind. Without it a loaded lane could miss those memories, so every lane is brought up to date
  // with every memory instead (a lane skips what it already indexed at the state's version).
  backlog_.clear(state_);
  if (rebuilt.size() < lanes_.size()) {
    Status st = Status::Corruption("the checkpoint holds no lane backlog");
    std::vector<MemoryId> ids;
    StateChange flags;
    if (saved_backlog_) {
      SnapshotReader r(saved_backlog_->chunks);
      ids.resize(r.count(16));
      for (auto& id : ids) id = r.id();
      flags.triplets = r.u8() != 0;
      flags.corrections = r.u8() != 0;
      st = r.finish(kBacklogSnapshot);
      if (st.ok() && saved_backlog_->format != 1)
        st = Status::Incompatible("lane backlog format " + std::to_string(saved_backlog_->format));
    }
    if (st.ok()) {
      for (const MemoryId& id : ids) {
        StateChange one;
        one.memory = id;
        backlog_.add(one, state_);
      }
      backlog_.add(flags, state_);
      if (changed) {
        for (const MemoryId& id : *changed) {
          StateChange one;
          one.memory = id;
          backlog_.add(one, state_);
        }
        StateChange all;
        all.triplets = all.corrections = true;
        backlog_.add(all, state_);
      }
    } else {
      lines.push_back("the saved lane backlog was not used (" + st.message() + "): every lane rebuilt");
      std::vector<Lane*> all;
      for (auto& lane : lanes_) all.push_back(lane.get());
      rebuild(all, state_, threads);
    }
  }
  lanes_loaded_.clear();
  saved_backlog_.reset();
  backlog_size_.store(backlog_.size(), std::memory_order_relaxed);
  return lines;
}

Status RecallEngine::apply_behind(const OrderKey& key, const OpValue& op) {
  auto lock = lock_.write();
  StateChange change;
  Status s = state_.apply(key, op, &change);
  note_applied(key);
  if (s.ok()) backlog_.add(change, state_);
  backlog_size_.store(backlog_.size(), std::memory_order_relaxed);
  return s;
}

void RecallEngine::catch_up_lanes() {
  while (lanes_backlog() > 0) index_lane_backlog(4096);
  warm();
  { std::lock_guard<std::mutex> g(applied_mutex_); }
  applied_cv_.notify_all();
}

void RecallEngine::warm() {
  auto lock = lock_.write();
  for (auto& lane : lanes_) lane->warm(state_);
}

size_t RecallEngine::background_step(size_t max) {
  // A memory missing from the lanes cannot be found at all; one missing from the semantic graph
  // is still found in its realm's exact buffer. So the backlog goes first.
  if (size_t done = index_lane_backlog(max)) return done;
  size_t done = 0;
  for (auto& lane : lanes_) done += lane->background_step(max);
  return done;
}

size_t RecallEngine::background_pending() const {
  size_t n = lanes_backlog();
  for (const auto& lane : lanes_) n += lane->background_pending();
  return n;
}

std::vector<std::string> RecallEngine::lane_names() const {
  std::vector<std::string> out;
  for (const auto& l : lanes_) out.emplace_back(l->name());
  return out;
}

Hash256 RecallEngine::digest() const {
  auto lock = lock_.read();
  return state_.digest();
}

size_t RecallEngine::memory_count() const {
  auto lock = lock_.read();
  return state_.memory_count();
}

std::shared_ptr<const std::vector<CorrectionRecord>> RecallEngine::corrections() const {
  auto copy = std::atomic_load(&corrections_copy_);
  if (!copy || copy->count != corrections_held()) {
    auto fresh = std::make_shared<CorrectionsCopy>();
    {
      auto lock = lock_.read();
      fresh->count = state_.correction_count();
      fresh->records.reserve(fresh->count);
      state_.for_each_correction([&](const CorrectionRecord& c) { fresh->records.push_back(c); });
    }
    copy = fresh;
    std::atomic_store(&corrections_copy_, copy);
  }
  // Shares the copy's ownership: the records live as long as the caller holds them.
  return std::shared_ptr<const std::vector<CorrectionRecord>>(copy, &copy->records);
}

void RecallEngine::read(const std::function<void(const ReplicaState&)>& fn) const {
  auto lock = lock_.read();
  fn(state_);
}

std::vector<ConflictCandidate> RecallEngine::conflict_candidates(const CandidateQuery& q) const {
  const KeywordLane* keyword = nullptr;
  for (const auto& lane : lanes_)
    if (!keyword) keyword = dynamic_cast<const KeywordLane*>(lane.get());
  auto lock = lock_.read();
  return find_conflict_candidates(state_, keyword, q);
}

std::vector<MemoryId> time_order_candidates(const KeywordLane& keyword, const LaneQuery& q,
                                            const std::vector<LaneHit>& keyword_hits) {
  std::vector<MemoryId> ids;
  ids.reserve(keyword_hits.size());
  for (const LaneHit& h : keyword_hits) ids.push_back(h.id);
  const std::vector<double> covered = keyword.coverage(q, ids);
  const double best = covered.empty() ? 0.0 : *std::max_element(covered.begin(), covered.end());
  std::vector<MemoryId> out;
  for (size_t i = 0; i < ids.size(); ++i)
    if (best > 0 && covered[i] >= kTimeOrderCoverage * best * (1 - 1e-9)) out.push_back(ids[i]);
  return out;
}

Result<RecallResult> RecallEngine::recall(const RecallRequest& req) const { return recall(req, nullptr); }

std::vector<CorrectionRecord> RecallEngine::matching_corrections(const RecallRequest& req) const {
  std::vector<CorrectionRecord> out;
  for (const auto& lane : lanes_)
    if (const auto* corrections = dynamic_cast<const CorrectionLane*>(lane.get())) {
      for (const CorrectionRecord* c : corrections->find_corrections(req.text, req.scope.realms)) out.push_back(*c);
      return out;
    }
  // No correction lane: the same rule over the state's corrections (longest phrase first).
  state_.for_each_correction([&](const CorrectionRecord& c) {
    if (std::find(req.scope.realms.begin(), req.scope.realms.end(), c.realm) != req.scope.realms.end() &&
        wrong_phrase_occurs(c.wrong, req.text))
      out.push_back(c);
  });
  std::stable_sort(out.begin(), out.end(), [](const CorrectionRecord& a, const CorrectionRecord& b) {
    return phrase_words(a.wrong).size() > phrase_words(b.wrong).size();
  });
  return out;
}

void RecallEngine::add_hit_corrections(const RecallRequest& req, RecallResult& result) const {
  // The keys of each correction of the query's realms, once (the longest phrase first, then by
  // id: the order corrections_repeated gives); then each hit's text keys, once.
  struct Keyed {
    const CorrectionRecord* c;
    size_t words;
    std::vector<std::string> keys;
  };
  std::vector<Keyed> keyed;
  state_.for_each_correction([&](const CorrectionRecord& c) {
    if (std::find(req.scope.realms.begin(), req.scope.realms.end(), c.realm) == req.scope.realms.end()) return;
    const std::vector<std::string> words = phrase_words(c.wrong);
    std::vector<std::string> keys = correction_phrase_keys(words);
    if (!keys.empty()) keyed.push_back(Keyed{&c, words.size(), std::move(keys)});
  });
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return a.words != b.words ? a.words > b.words : a.c->id < b.c->id;
  });
  for (const FusedHit& h : result.hits) {
    const MemoryRecord* m = state_.memory(h.id);
    if (!m) continue;
    const std::vector<std::string> text_keys = correction_text_keys(phrase_words(m->content.value.text));
    for (const Keyed& k : keyed) {
      if (k.c->realm != m->realm.str() ||
          !std::includes(text_keys.begin(), text_keys.end(), k.keys.begin(), k.keys.end()))
        continue;
      const bool held = std::any_of(result.corrections.begin(), result.corrections.end(),
                                    [&](const CorrectionRecord& r) { return r.id == k.c->id; });
      if (!held) result.corrections.push_back(*k.c);
    }
  }
}

Result<RecallResult> RecallEngine::recall(const RecallRequest& req, const ThenFn& then) const {
  if (req.scope.realms.empty()) return Status::InvalidArgument("a query must name at least one realm");
  if (req.limit < 1 || req.limit > 1000)
    return Status::InvalidArgument("limit must be from 1 to 1000 (got " + std::to_string(req.limit) + ")");
  std::vector<const Lane*> chosen;
  for (const auto& name : req.lanes) {
    auto it = std::find_if(lanes_.begin(), lanes_.end(), [&](const auto& l) { return name == l->name(); });
    if (it == lanes_.end()) {
      std::string all;
      for (const auto& l : lanes_) all += (all.empty() ? "" : ", ") + std::string(l->name());
      return Status::InvalidArgument("unknown lane '" + name + "'; lanes are: " + all);
    }
    chosen.push_back(it->get());
  }
  LaneQuery q;
  q.text = req.text;
  q.vector = req.vector;
  q.scope = req.scope;
  q.now_ms = req.now_ms;
  q.window_from_ms = req.window_from_ms;
  q.window_to_ms = req.window_to_ms;
  q.pool = std::max(req.limit * weights_.pool_factor, weights_.fusion_window);
  // What the words ask for besides their topic (replica/query_intent.hpp): only the scoring words
  // score in the keyword lane, a date the text names is the window when the client gave none, and
  // an order cue runs the temporal lane over what the keyword lane matched best.
  const QueryIntent intent = parse_query_intent(req.text, req.now_ms);
  q.scoring_text = intent.scoring_text();
  if (!q.window_from_ms && !q.window_to_ms && intent.from_ms) {
    q.window_from_ms = intent.from_ms;
    q.window_to_ms = intent.to_ms;
  }
  q.time_order = intent.order;
  // Every lane that has something to say about the query; a client naming lanes restricts that
  // set to the ones it names. A single named lane runs whatever the query (a client asking one
  // lane what it finds); of several, those that do not apply to the query are left out, so a
  // lane with nothing to say (the temporal lane without a time in the query) does not crowd out
  // the others' evidence. When none of the named lanes applies, they all run.
  if (chosen.empty()) {
    for (const auto& l : lanes_)
      if (l->applies(q)) chosen.push_back(l.get());
  } else if (chosen.size() > 1) {
    std::vector<const Lane*> applying;
    for (const Lane* l : chosen)
      if (l->applies(q)) applying.push_back(l);
    if (!applying.empty()) chosen = std::move(applying);
  }

  auto lock = lock_.read();
  // The chokepoint: every lane's candidates pass admit() here, and only what it admits goes on.
  std::map<MemoryId, CandidateInfo> admitted;
  std::vector<AdmittedLane> lanes;
  RecallResult result;
  // The lanes search side by side (each is const under the read lock); admission then runs in
  // lane order on this thread, so the outcome does not depend on which lane finished first.
  std::vector<std::vector<LaneHit>> found(chosen.size());
  std::vector<double> seconds(chosen.size(), 0.0);
  auto search = [&](size_t i) {
    const auto start = std::chrono::steady_clock::now();
    found[i] = chosen[i]->search(q, state_);
    seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Below kSpreadFromMemories the lanes are so quick that waking a helper costs more than it
  // saves (measured with `vasana-bench recall`: at 10k memories side by side was slower).
  // With a time order the temporal lane orders the keyword lane's matches, so it runs last.
  size_t ordering = chosen.size(), keyword = chosen.size();
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (q.time_order != TimeOrder::none && std::string_view(chosen[i]->name()) == "temporal") ordering = i;
    if (std::string_view(chosen[i]->name()) == "keyword") keyword = i;
  }
  std::vector<size_t> first;
  for (size_t i = 0; i < chosen.size(); ++i)
    if (i != ordering) first.push_back(i);
  auto search_first = [&](size_t k) { search(first[k]); };
  if (req.lanes_side_by_side && state_.memory_count() >= kSpreadFromMemories) {
    spread_->run(first.size(), search_first);
  } else {
    for (size_t k = 0; k < first.size(); ++k) search_first(k);
  }
  if (ordering < chosen.size()) {
    const auto* keyword_lane = keyword < chosen.size() ? dynamic_cast<const KeywordLane*>(chosen[keyword]) : nullptr;
    if (intent.topic && keyword_lane) q.time_candidates = time_order_candidates(*keyword_lane, q, found[keyword]);
    search(ordering);
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    const Lane* lane = chosen[i];
    result.lanes.emplace_back(lane->name());
    AdmittedLane al{lane->name(), {}};
    for (const LaneHit& h : found[i]) {
      const MemoryRecord* m = state_.memory(h.id);
      if (!m) continue;
      auto a = admit(*m, req.scope, weights_.status);
      if (!a) continue;
      admitted.emplace(h.id, CandidateInfo{m, *a});
      al.hits.push_back(h);
    }
    lanes.push_back(std::move(al));
  }
  result.lane_seconds = std::move(seconds);
  result.corrections = matching_corrections(req);
  result.hits = fuse(lanes, [&](const MemoryId& id) { return admitted.at(id); }, req.text, weights_, req.limit);
  if (state_.correction_count() > 0 && !result.hits.empty()) add_hit_corrections(req, result);
  if (!result.hits.empty()) {
    result.evidence = verdict_evidence(lanes, result.hits);
    result.top_relevance = calibrated_relevance(result.evidence);
  }
  result.verdict = verdict_of(result.hits.empty() ? 0.0 : result.top_relevance, weights_);
  if (then) then(result, state_);
  return result;
}

}  // namespace vasana
