#include "sync/shared_dir_tailer.hpp"

#include <filesystem>
#include <map>
#include <system_error>

#include "store/segment_format.hpp"
#include "store/writer_dirs.hpp"
#include "sync/peer_server.hpp"

namespace vasana {

namespace fs = std::filesystem;

std::unique_ptr<SharedDirTailer> SharedDirTailer::start(std::string parent, std::string own_root, MirrorSet* mirrors,
                                                        uint64_t session_base, std::chrono::milliseconds poll,
                                                        LogFn log) {
  std::unique_ptr<SharedDirTailer> t(new SharedDirTailer());
  t->parent_ = std::move(parent);
  t->own_root_ = fs::weakly_canonical(own_root).string();
  t->mirrors_ = mirrors;
  t->session_base_ = session_base;
  t->poll_ = poll;
  t->log_ = std::move(log);
  t->thread_ = std::thread([p = t.get()] { p->run(); });
  return t;
}

SharedDirTailer::~SharedDirTailer() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void SharedDirTailer::run() {
  pthread_setname_np(pthread_self(), "vasana.shared");
  while (!stop_.load(std::memory_order_relaxed)) {
    if (!pass()) std::this_thread::sleep_for(poll_);
  }
}

namespace {

// A writer folder's extent as the files show it: the newest segment and its size. Unverified:
// the mirror verifies whatever it is given.
std::optional<StreamHead> head_from_files(const std::string& dir, InstanceId writer) {
  std::optional<StreamHead> h;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto index = parse_segment_file_name(it->path().filename().string());
    if (!index || (h && *index < h->segment)) continue;
    std::error_code size_ec;
    const auto size = fs::file_size(it->path(), size_ec);
    if (size_ec) continue;
    if (!h) h.emplace();
    h->writer = writer;
    h->segment = *index;
    h->segment_bytes = size;
  }
  return h;
}

}  // namespace

bool SharedDirTailer::pass() {
  bool progress = false;
  std::error_code ec;
  std::vector<fs::path> siblings;
  for (fs::directory_iterator it(parent_, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && fs::exists(it->path() / "identity")) siblings.push_back(it->path());
  std::sort(siblings.begin(), siblings.end());
  uint64_t session = session_base_;
  for (const fs::path& sib : siblings) {
    ++session;
    if (fs::weakly_canonical(sib, ec).string() == own_root_) continue;
    const DataDir dir{sib.string()};
    auto writers = list_writer_dirs(dir, nullptr);
    if (!writers.ok()) continue;
    std::vector<StreamHead> heads;
    std::map<InstanceId, StreamHead> by_writer;
    for (const WriterDir& w : *writers) {
      if (auto h = head_from_files(w.path, w.instance)) {
        heads.push_back(*h);
        by_writer[w.instance] = *h;
      }
    }
    for (const PeerFetch& f : mirrors_->claim(session, heads, 4u << 20)) {
      PeerChunk c = read_chunk(dir, by_writer[f.writer], f, f.max_bytes);
      auto d = mirrors_->deliver(session, c, /*mid_write=*/true);
      if (!d.ok()) {
        log_("shared directory " + sib.string() + ": cannot store writer " + to_hex(f.writer) + ": " +
             d.status().to_string());
        continue;
      }
      if (d->refused) {
        refused_++;
        log_("shared directory " + sib.string() + ": refused bad bytes: " + d->problem);
        continue;
      }
      if (d->bytes > 0) {
        chunks_++;
        progress = true;
      }
    }
  }
  return progress;
}

}  // namespace vasana
