#include "replica/vector_index.hpp"

#include "replica/fair_rw_lock.hpp"
#include "replica/huge_pages.hpp"
#include "replica/int8_codes.hpp"

// The one translation unit that includes hnswlib: its header defines non-inline functions.
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <queue>
#include <shared_mutex>
#include <sstream>
#include <string>

namespace vasana {

namespace {

enum class Where : uint8_t { absent, buffered, graphed };
enum class GraphCopy : uint8_t { none, live, deleted };  // the slot's label in the graph

// Best first; equal similarities in slot order, so results do not depend on scan order.
bool better(const VectorHit& a, const VectorHit& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.slot < b.slot;
}

// The best k of the hits pushed, without holding the others: a heap whose front is the worst
// kept.
class BestK {
 public:
  explicit BestK(size_t k) : k_(k) { heap_.reserve(k + 1); }
  void push(const VectorHit& h) {
    if (heap_.size() == k_) {
      if (!better(h, heap_.front())) return;
      std::pop_heap(heap_.begin(), heap_.end(), better);
      heap_.pop_back();
    }
    heap_.push_back(h);
    std::push_heap(heap_.begin(), heap_.end(), better);
  }
  // Best first.
  std::vector<VectorHit> take() {
    std::sort(heap_.begin(), heap_.end(), better);
    return std::move(heap_);
  }

 private:
  size_t k_;
  std::vector<VectorHit> heap_;
};

// hnswlib's space interface over code rows (replica/int8_codes.hpp: dim int8 codes and a scale):
// the graph holds each point's code row as its data, and compares rows as the exact search does.
class CodeRowSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit CodeRowSpace(size_t dim) : dim_(dim) {}
  size_t get_data_size() override { return code_row_bytes(uint32_t(dim_)); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &distance; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  // 1 - similarity, as hnswlib's inner-product space: smaller is closer.
  static float distance(const void* a, const void* b, const void* dim) {
    return 1.0f - row_similarity(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                                 static_cast<uint32_t>(*static_cast<const size_t*>(dim)));
  }
  size_t dim_;
};

// A row's scale as quantize_int8 gives it: finite, never negative.
bool plausible_scale(float scale) { return scale >= 0 && std::isfinite(scale); }

}  // namespace

using FairLock = FairRwLock;

using Graph = hnswlib::HierarchicalNSW<float>;

struct VectorIndex::Impl {
  Impl(uint32_t dim, const VectorIndexOptions& o)
      : dim(dim), row_bytes(code_row_bytes(dim)), options(o), space(dim) {}

  // A new empty graph with the index's options. Only reads the space (hnswlib's constructor
  // takes a non-const pointer to it) and the options, neither ever written after construction,
  // so it is called without a lock. Throws what hnswlib throws (out of memory).
  std::unique_ptr<Graph> make_graph() {
    auto g = std::make_unique<Graph>(&space, std::max<size_t>(options.initial_capacity, 1), options.m,
                                     options.ef_construction, options.seed);
    g->setEf(options.ef_search);
    advise_graph(*g);
    return g;
  }
  // The graph's element array (code row and level-0 links of every point) is read at random by
  // every insertion and search: huge pages for it (replica/huge_pages.hpp). hnswlib allocates
  // it with malloc and grows it with realloc, so it is marked after each, before the new
  // points are written.
  static void advise_graph(Graph& g) {
    const size_t bytes = g.max_elements_ * g.size_data_per_element_;
    if (bytes >= kHugePageFrom) advise_huge_pages(g.data_level0_memory_, bytes);
  }

  // The query's code row, coded as every held vector is.
  std::vector<uint8_t> query_row(const float* query) const {
    std::vector<uint8_t> q(row_bytes);
    encode_row(query, dim, q.data());
    return q;
  }
  float similarity(const uint8_t* q, const void* row) const {
    return row_similarity(q, static_cast<const uint8_t*>(row), dim);
  }

  // Buffer side (buffer_lock held for writing).
  void grow_slots(uint32_t slot) {
    if (slot < where.size()) return;
    where.resize(size_t(slot) + 1, Where::absent);
    version.resize(size_t(slot) + 1, 0);
    unlink_queued.resize(size_t(slot) + 1, false);
    buffer_pos.resize(size_t(slot) + 1, 0);
  }

  // Row i of the buffer: the code row of buffer_slots[i].
  uint8_t* row(size_t i) const { return blocks[i / kBlockRows].get() + (i % kBlockRows) * row_bytes; }

  void buffer_append(uint32_t slot, const float* v) {
    const size_t i = buffer_slots.size();
    if (i / kBlockRows == blocks.size()) blocks.emplace_back(new uint8_t[kBlockRows * row_bytes]);
    buffer_pos[slot] = static_cast<uint32_t>(i);
    buffer_slots.push_back(slot);
    encode_row(v, dim, row(i));
  }

  // Swap-removes the slot's buffer row.
  void buffer_erase(uint32_t slot) {
    const uint32_t pos = buffer_pos[slot];
    const size_t last = buffer_slots.size() - 1;
    if (pos != last) {
      const uint32_t moved = buffer_slots[last];
      buffer_slots[pos] = moved;
      buffer_pos[moved] = pos;
      std::copy(row(last), row(last) + row_bytes, row(pos));
    }
    buffer_slots.pop_back();
    // Keep one spare block, so a buffer hovering at a block boundary does not reallocate.
    if (blocks.size() > buffer_slots.size() / kBlockRows + 2) blocks.pop_back();
  }

  // Offers every buffer row to best (buffer_lock held, shared or not).
  void scan_buffer(const uint8_t* q, BestK* best) const {
    for (size_t i = 0; i < buffer_slots.size(); ++i) best->push({buffer_slots[i], similarity(q, row(i))});
  }

  // The slot's graph copy no longer holds its current vector (put again, or removed): searches
  // skip it from now on (where[slot] != graphed), and the next indexer hold marks it deleted.
  void queue_unlink(uint32_t slot) {
    if (unlink_queued[slot]) return;
    unlink_queued[slot] = true;
    unlink.push_back(slot);
  }

  // Graph side (graph_lock held for writing).
  void grow_graph_slots(uint32_t slot) {
    if (slot < copy.size()) return;
    copy.resize(size_t(slot) + 1, GraphCopy::none);
    internal.resize(size_t(slot) + 1, 0);
  }

  void delete_graph_copy(uint32_t slot) {
    if (slot >= copy.size() || copy[slot] != GraphCopy::live) return;
    graph->markDeletedInternal(internal[slot]);
    copy[slot] = GraphCopy::deleted;
    --graph_live;
  }

  // Blocks of rows rather than one array: a bulk load of many vectors before the first drain
  // never copies the buffer to grow it.
  static constexpr size_t kBlockRows = 256;

  const uint32_t dim;
  const size_t row_bytes;  // code_row_bytes(dim)
  const VectorIndexOptions options;
  // Order matters: the space must outlive the graph, which points into it.
  CodeRowSpace space;

  // Two locks, so that put() and remove() never wait for a graph insertion (0.3-1.2 ms each, and
  // a resize copies the whole graph): they take only buffer_lock. Order: graph_lock, then
  // buffer_lock, never the other way round.
  //
  // Held shared by every index_pending() call, exclusively by save(): a save sees no point half
  // moved (in the graph and still buffered), and the indexer waits for it outside graph_lock.
  FairLock indexer_lock;

  // graph_lock guards the graph (pointer and contents), copy, internal and graph_live. Searches
  // hold it shared; each single insertion (and the deletions queued before it) exclusively.
  FairLock graph_lock;
  std::unique_ptr<Graph> graph;     // null until index_pending() first has a point to move
  std::vector<GraphCopy> copy;      // by slot: the slot's label in the graph
  std::vector<uint32_t> internal;   // by slot: hnswlib's internal id, when copy != none
  size_t graph_live = 0;            // graph points not marked deleted (stale ones included)

  // buffer_lock guards the rest: which slots are held and where their current vector is, the
  // buffer, and the graph copies waiting to be marked deleted. A graph copy is current only while
  // where[slot] == graphed; searches filter the graph's answers by that.
  FairLock buffer_lock;
  std::vector<Where> where;         // by slot
  // By slot: bumped by every put (and remove), so a move can tell it was overtaken. 32 bits: the
  // move compares for equality, so it errs only if exactly 2^32 puts of the slot came between.
  std::vector<uint32_t> version;
  std::vector<bool> unlink_queued;  // by slot: in unlink
  std::vector<uint32_t> unlink;     // slots whose live graph copy is stale
  std::vector<uint32_t> buffer_pos; // by slot: index in buffer_slots, when buffered
  std::vector<uint32_t> buffer_slots;
  std::vector<std::unique_ptr<uint8_t[]>> blocks;  // the code rows of the buffer, kBlockRows each
  size_t held = 0;
};

VectorIndex::VectorIndex(uint32_t dim, VectorIndexOptions options)
    : dim_(dim), impl_(std::make_unique<Impl>(dim, options)) {}

VectorIndex::~VectorIndex() = default;

Status VectorIndex::put(uint32_t slot, const std::vector<float>& v) {
  if (v.size() != dim_)
    return Status::InvalidArgument("vector has " + std::to_string(v.size()) + " dimensions; the index has " +
                                   std::to_string(dim_));
  Impl& s = *impl_;
  auto guard = s.buffer_lock.write();
  s.grow_slots(slot);
  ++s.version[slot];
  switch (s.where[slot]) {
    case Where::buffered:
      encode_row(v.data(), dim_, s.row(s.buffer_pos[slot]));
      return Status::Ok();
    case Where::graphed:
      s.queue_unlink(slot);  // the new vector replaces the graph copy in place when drained
      break;
    case Where::absent:
      ++s.held;
      break;
  }
  s.buffer_append(slot, v.data());
  s.where[slot] = Where::buffered;
  return Status::Ok();
}

bool VectorIndex::remove(uint32_t slot) {
  Impl& s = *impl_;
  auto guard = s.buffer_lock.write();
  if (slot >= s.where.size() || s.where[slot] == Where::absent) return false;
  if (s.where[slot] == Where::buffered) s.buffer_erase(slot);
  else s.queue_unlink(slot);
  ++s.version[slot];
  s.where[slot] = Where::absent;
  --s.held;
  return true;
}

bool VectorIndex::contains(uint32_t slot) const {
  auto guard = impl_->buffer_lock.read();
  return slot < impl_->where.size() && impl_->where[slot] != Where::absent;
}

size_t VectorIndex::size() const {
  auto guard = impl_->buffer_lock.read();
  return impl_->held;
}

size_t VectorIndex::pending() const {
  auto guard = impl_->buffer_lock.read();
  return impl_->buffer_slots.size();
}

size_t VectorIndex::capacity() const {
  auto guard = impl_->graph_lock.read();
  return impl_->graph ? impl_->graph->max_elements_ : 0;
}

bool VectorIndex::has_graph() const {
  auto guard = impl_->graph_lock.read();
  return impl_->graph != nullptr;
}

Result<size_t> VectorIndex::index_pending(size_t max) {
  Impl& s = *impl_;
  auto indexing = s.indexer_lock.read();
  size_t moved = 0;
  std::vector<uint8_t> v(s.row_bytes);
  while (moved < max) {
    {
      auto buffered = s.buffer_lock.read();
      if (s.buffer_slots.empty()) break;
    }
    // One point per exclusive hold of the graph: a search waits for one insertion at most, and
    // put() and remove() never wait for it.
    auto guard = s.graph_lock.write();
    if (!s.graph) {
      // The first point to move creates the graph. It is built without the lock (it allocates a
      // few MiB, which searches need not wait for), then installed unless a concurrent call got
      // there first.
      guard.unlock();
      std::unique_ptr<Graph> fresh;
      try {
        fresh = s.make_graph();
      } catch (const std::exception& e) {
        return Status::FailedPrecondition(std::string("vector index: cannot create the HNSW graph: ") + e.what());
      }
      guard = s.graph_lock.write();
      if (!s.graph) s.graph = std::move(fresh);
    }
    Graph& graph = *s.graph;  // never destroyed before the index
    uint32_t slot;
    uint32_t version;
    {
      // Stale copies first, so that the point moved below (which may be one of them, put again)
      // is not marked deleted after its new vector went in.
      auto buffered = s.buffer_lock.write();
      for (uint32_t stale : s.unlink) {
        s.grow_graph_slots(stale);
        s.delete_graph_copy(stale);
        s.unlink_queued[stale] = false;
      }
      s.unlink.clear();
      if (s.buffer_slots.empty()) break;
      slot = s.buffer_slots.back();
      version = s.version[slot];
      const uint8_t* row = s.row(s.buffer_slots.size() - 1);
      std::copy(row, row + s.row_bytes, v.begin());
    }
    // The slot stays buffered (and found there) while its copy goes into the graph, outside
    // buffer_lock; searches cannot run meanwhile (graph_lock is held), so none sees it twice.
    s.grow_graph_slots(slot);
    try {
      if (s.copy[slot] == GraphCopy::none) {
        if (graph.cur_element_count >= graph.max_elements_) {
          graph.resizeIndex(graph.max_elements_ * 2);
          Impl::advise_graph(graph);
        }
        s.internal[slot] = graph.addPoint(v.data(), slot, -1);
        // The index finds a slot's point through internal, never through hnswlib's label map:
        // emptied at once, it costs no node per point.
        graph.label_lookup_.erase(slot);
      } else {
        // A copy already in the graph (marked deleted) is updated in place and undeleted, as
        // hnswlib's addPoint does for a label it holds.
        const hnswlib::tableint point = s.internal[slot];
        if (graph.isMarkedDeleted(point)) graph.unmarkDeletedInternal(point);
        graph.updatePoint(v.data(), point, 1.0);
      }
    } catch (const std::exception& e) {
      return Status::FailedPrecondition(std::string("vector index: cannot add to the HNSW graph: ") + e.what());
    }
    if (s.copy[slot] != GraphCopy::live) ++s.graph_live;
    s.copy[slot] = GraphCopy::live;
    auto buffered = s.buffer_lock.write();
    if (s.where[slot] == Where::buffered && s.version[slot] == version) {
      s.buffer_erase(slot);
      s.where[slot] = Where::graphed;
    } else {
      s.delete_graph_copy(slot);  // put again or removed meanwhile: the copy is already stale
    }
    ++moved;
  }
  return moved;
}

std::vector<VectorHit> VectorIndex::search(const float* query, size_t k) const {
  const Impl& s = *impl_;
  if (k == 0) return {};
  const std::vector<uint8_t> q = s.query_row(query);
  BestK best(k);
  auto graph_guard = s.graph_lock.read();
  // The graph first, with room for the stale copies it may still return; then, under
  // buffer_lock, only the copies that are still current are kept, and the buffer is compared.
  std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
  if (s.graph_live > 0) {  // so the graph exists
    size_t stale;
    {
      auto buffered = s.buffer_lock.read();
      stale = s.unlink.size();
    }
    found = s.graph->searchKnn(q.data(), k + stale);  // deleted points are never returned
  }
  auto buffered = s.buffer_lock.read();
  s.scan_buffer(q.data(), &best);
  for (; !found.empty(); found.pop()) {
    const uint32_t slot = static_cast<uint32_t>(found.top().second);
    // The similarity from the point's row, as search_exact computes it (not 1 - the graph's
    // distance, which a compiler may evaluate as one fused operation).
    if (s.where[slot] == Where::graphed)
      best.push({slot, s.similarity(q.data(), s.graph->getDataByInternalId(s.internal[slot]))});
  }
  return best.take();
}

std::vector<VectorHit> VectorIndex::search_exact(const float* query, size_t k) const {
  const Impl& s = *impl_;
  if (k == 0) return {};
  const std::vector<uint8_t> q = s.query_row(query);
  BestK best(k);
  auto graph_guard = s.graph_lock.read();
  auto buffered = s.buffer_lock.read();
  s.scan_buffer(q.data(), &best);
  for (uint32_t slot = 0; slot < s.where.size(); ++slot)
    if (s.where[slot] == Where::graphed)
      best.push({slot, s.similarity(q.data(), s.graph->getDataByInternalId(s.internal[slot]))});
  return best.take();
}

namespace {

// The bytes of n buffer rows of `width` items each, kept in blocks of `rows_per_block` rows.
template <class T>
void write_blocks(SnapshotWriter& out, const std::vector<std::unique_ptr<T[]>>& blocks, size_t rows_per_block,
                  size_t width, size_t n) {
  out.u64(n * width);
  for (size_t b = 0; b * rows_per_block < n; ++b)
    out.raw(blocks[b].get(), std::min(rows_per_block, n - b * rows_per_block) * width * sizeof(T));
}

// False when the count is not n rows (the reader may still be ok).
template <class T>
bool read_blocks(SnapshotReader& in, std::vector<std::unique_ptr<T[]>>* blocks, size_t rows_per_block, size_t width,
                 size_t n) {
  if (in.count(sizeof(T)) != n * width) return false;
  for (size_t b = 0; b * rows_per_block < n; ++b) {
    blocks->emplace_back(new T[rows_per_block * width]);
    in.raw(blocks->back().get(), std::min(rows_per_block, n - b * rows_per_block) * width * sizeof(T));
  }
  return true;
}

}  // namespace

void VectorIndex::save(SnapshotWriter& out) const { save_slots(out)(out); }

std::function<void(SnapshotWriter&)> VectorIndex::save_slots(SnapshotWriter& out) const {
  const Impl& s = *impl_;
  // Only index_pending() changes the graph (put() and remove() only queue the copies it is to
  // mark deleted), so holding the indexer lock keeps the graph as it is now until the returned
  // function has written it.
  auto indexing = std::make_shared<std::unique_lock<std::shared_mutex>>(s.indexer_lock.write());
  {
    auto buffered = s.buffer_lock.read();
    write_slots(out);
  }
  return [this, indexing](SnapshotWriter& rest) {
    {
      auto graph_guard = impl_->graph_lock.read();
      write_graph(rest);
    }
    indexing->unlock();
  };
}

std::unique_lock<std::shared_mutex> VectorIndex::hold_still() const { return impl_->indexer_lock.write(); }

void VectorIndex::save_held(SnapshotWriter& out) const {
  write_slots(out);
  write_graph(out);
}

void VectorIndex::write_slots(SnapshotWriter& out) const {
  const Impl& s = *impl_;
  const size_t n = s.buffer_slots.size();
  out.u32(dim_);
  out.array(s.where);
  out.array(s.buffer_slots);
  write_blocks(out, s.blocks, Impl::kBlockRows, s.row_bytes, n);
  out.array(s.unlink);
}

void VectorIndex::write_graph(SnapshotWriter& out) const {
  const Impl& s = *impl_;
  out.u8(s.graph != nullptr);
  if (!s.graph) return;
  const Graph& g = *s.graph;
  const size_t count = g.cur_element_count;
  out.u64(g.M_);
  out.u64(g.ef_construction_);
  out.u64(g.max_elements_);
  out.u64(count);
  out.i64(g.maxlevel_);
  out.u64(g.enterpoint_node_);
  out.u64(count * g.size_data_per_element_);
  out.raw(g.data_level0_memory_, count * g.size_data_per_element_);
  out.array(g.element_levels_.data(), count);
  for (size_t i = 0; i < count; ++i)
    if (g.element_levels_[i] > 0) out.raw(g.linkLists_[i], g.size_links_per_element_ * size_t(g.element_levels_[i]));
  // One string each: libstdc++ reads an engine without skipping leading whitespace.
  for (const auto* engine : {&g.level_generator_, &g.update_probability_generator_}) {
    std::ostringstream text;
    text << *engine;
    out.str(text.str());
  }
}

Status VectorIndex::load(SnapshotReader& in) {
  const auto corrupt = [](const std::string& what) { return Status::Corruption("vector index snapshot: " + what); };
  auto fresh = std::make_unique<Impl>(dim_, impl_->options);
  Impl& s = *fresh;
  const uint32_t dim = in.u32();
  if (in.ok() && dim != dim_)
    return corrupt("saved with " + std::to_string(dim) + " dimensions; the index has " + std::to_string(dim_));
  s.where = in.array<Where>();
  s.buffer_slots = in.array<uint32_t>();
  const size_t slots = s.where.size(), n = s.buffer_slots.size();
  if (!read_blocks(in, &s.blocks, Impl::kBlockRows, s.row_bytes, n))
    return in.ok() ? corrupt("the buffer's rows do not match its slots") : in.finish("vector index");
  s.unlink = in.array<uint32_t>();
  const bool has_graph = in.u8() != 0;
  if (!in.ok()) return in.finish("vector index");
  for (size_t i = 0; i < n; ++i)
    if (!plausible_scale(row_scale(s.row(i), dim_))) return corrupt("a buffer row whose scale is not a scale");

  s.version.assign(slots, 0);
  s.unlink_queued.assign(slots, false);
  s.buffer_pos.assign(slots, 0);
  for (Where w : s.where) {
    if (w != Where::absent && w != Where::buffered && w != Where::graphed) return corrupt("a slot in no known state");
    s.held += w != Where::absent;
  }
  size_t buffered = 0;
  for (Where w : s.where) buffered += w == Where::buffered;
  if (buffered != n) return corrupt("the buffer does not hold the buffered slots");
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = s.buffer_slots[i];
    if (slot >= slots || s.where[slot] != Where::buffered || s.buffer_pos[slot] != 0 || (i > 0 && s.buffer_slots[0] == slot))
      return corrupt("a buffer row of a slot that is not buffered, or held twice");
    s.buffer_pos[slot] = uint32_t(i);
  }
  for (uint32_t slot : s.unlink) {
    if (slot >= slots || s.unlink_queued[slot] || s.where[slot] == Where::graphed)
      return corrupt("a stale graph copy of a slot that is current or listed twice");
    s.unlink_queued[slot] = true;
  }

  s.copy.assign(slots, GraphCopy::none);
  s.internal.assign(slots, 0);
  if (has_graph) {
    const size_t m = in.u64(), ef_construction = in.u64(), capacity = in.u64(), count = in.u64();
    const int64_t max_level = in.i64();
    const uint64_t entry = in.u64();
    if (!in.ok()) return in.finish("vector index");
    if (m != s.options.m || ef_construction != std::max(s.options.ef_construction, s.options.m))
      return corrupt("the graph was built with m " + std::to_string(m) + ", ef_construction " +
                     std::to_string(ef_construction) + "; this index uses m " + std::to_string(s.options.m) +
                     ", ef_construction " + std::to_string(s.options.ef_construction));
    const size_t per_element = 2 * m * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint) +
                               s.row_bytes + sizeof(hnswlib::labeltype);
    if (count > in.remaining() / per_element || capacity < std::max<size_t>(count, 1) ||
        capacity > std::max({2 * count, s.options.initial_capacity, size_t{1}}))
      return corrupt("the graph's point count or capacity is impossible");
    if (in.count(1) != count * per_element) {
      if (in.ok()) return corrupt("the graph's points are not " + std::to_string(per_element) + " bytes each");
      return in.finish("vector index");
    }
    std::unique_ptr<Graph> graph;
    try {
      graph = std::make_unique<Graph>(&s.space, capacity, m, ef_construction, s.options.seed);
    } catch (const std::exception& e) {
      return Status::FailedPrecondition(std::string("vector index: cannot create the HNSW graph: ") + e.what());
    }
    Graph& g = *graph;
    if (g.size_data_per_element_ != per_element) return corrupt("the graph's point layout differs");
    in.raw(g.data_level0_memory_, count * per_element);
    // Freed by the graph's destructor: the upper links of points below cur_element_count whose
    // element_levels_ is positive, so a level is set only once its links are allocated.
    g.cur_element_count = count;
    const auto levels = in.array<int>();
    if (!in.ok()) return in.finish("vector index");
    if (levels.size() != count) return corrupt("the graph's levels do not match its points");
    int top = -1;
    for (size_t i = 0; i < count; ++i) {
      if (levels[i] < 0 || levels[i] > 64) return corrupt("a graph point at an impossible level");
      top = std::max(top, levels[i]);
      if (levels[i] == 0) {
        g.linkLists_[i] = nullptr;
        continue;
      }
      const size_t bytes = g.size_links_per_element_ * size_t(levels[i]);
      if (bytes > in.remaining()) return corrupt("the graph's upper links end early");
      g.linkLists_[i] = static_cast<char*>(malloc(bytes));
      if (!g.linkLists_[i]) return Status::FailedPrecondition("vector index: out of memory loading the graph");
      g.element_levels_[i] = levels[i];
      in.raw(g.linkLists_[i], bytes);
    }
    for (auto* engine : {&g.level_generator_, &g.update_probability_generator_}) {
      std::istringstream text(in.str());
      text >> *engine;
      if (in.ok() && text.fail()) return corrupt("the graph's random generators do not read back");
    }
    if (!in.ok()) return in.finish("vector index");
    if (max_level != top || (count > 0 && (entry >= count || levels[entry] != top)))
      return corrupt("the graph's entry point is not on its top level");
    g.maxlevel_ = int(max_level);
    g.enterpoint_node_ = hnswlib::tableint(entry);
    for (size_t i = 0; i < count; ++i) {
      for (int level = 0; level <= levels[i]; ++level) {
        auto* list = level == 0 ? g.get_linklist0(hnswlib::tableint(i)) : g.get_linklist(hnswlib::tableint(i), level);
        const size_t size = g.getListCount(list);
        if (size > (level == 0 ? g.maxM0_ : g.maxM_)) return corrupt("a graph point with too many links");
        const auto* links = reinterpret_cast<const hnswlib::tableint*>(list + 1);
        for (size_t j = 0; j < size; ++j)
          if (links[j] >= count || levels[links[j]] < level) return corrupt("a graph link to no point on its level");
      }
      if (!plausible_scale(row_scale(reinterpret_cast<const uint8_t*>(g.getDataByInternalId(hnswlib::tableint(i))), dim_)))
        return corrupt("a graph point whose scale is not a scale");
      const hnswlib::labeltype label = g.getExternalLabel(hnswlib::tableint(i));
      if (label >= slots || s.copy[label] != GraphCopy::none) return corrupt("a graph point of no slot, or two of one");
      const bool deleted = g.isMarkedDeleted(hnswlib::tableint(i));
      s.copy[label] = deleted ? GraphCopy::deleted : GraphCopy::live;
      s.internal[label] = hnswlib::tableint(i);
      g.num_deleted_ += deleted;
      s.graph_live += !deleted;
    }
    g.setEf(s.options.ef_search);
    Impl::advise_graph(g);
    s.graph = std::move(graph);
  }
  if (!in.ok()) return in.finish("vector index");
  // A live graph copy is the slot's current vector, or a stale one waiting to be marked deleted.
  for (size_t slot = 0; slot < slots; ++slot)
    if ((s.where[slot] == Where::graphed) != (s.copy[slot] == GraphCopy::live && !s.unlink_queued[slot]) ||
        (s.unlink_queued[slot] && s.copy[slot] != GraphCopy::live))
      return corrupt("the graph's points do not match the slots");
  impl_ = std::move(fresh);
  return Status::Ok();
}

}  // namespace vasana
