#include "actors/checkpoint_snapshot.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

#include "replica/recall_engine.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

// The stream the child writes: kStart, the figures, the version vector, the state's meta and
// chunks, the lanes (name, format, chunks), the count of bytes before the end mark, kEnd.
// Integers are 8 bytes little-endian (this machine's order: the reader is the same binary),
// strings a length and the bytes.
constexpr uint64_t kStart = 0x31764e5350414e53ULL;  // "SNAPSNv1"
constexpr uint64_t kEnd = 0x2e646e65'70616e73ULL;    // "snapend."
constexpr uint64_t kLongestString = uint64_t{1} << 40;

std::mutex g_hooks_mutex;
CheckpointChildTestHooks g_hooks;  // guarded by g_hooks_mutex; the child reads its own copy

CheckpointChildTestHooks test_hooks() {
  std::lock_guard<std::mutex> g(g_hooks_mutex);
  return g_hooks;
}

class PipeWriter {
 public:
  PipeWriter(int fd, uint64_t stop_after) : fd_(fd), stop_(stop_after) { buf_.reserve(kBuffer); }
  void u64(uint64_t v) { put(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    put(s.data(), s.size());
  }
  uint64_t sent() const { return sent_; }
  // False once a write failed (the parent went away) or the test stop was reached.
  bool flush() {
    if (ok_ && !buf_.empty()) ok_ = write_all(buf_.data(), buf_.size());
    buf_.clear();
    return ok_;
  }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  void put(const void* p, size_t n) {
    sent_ += n;
    if (buf_.size() + n > kBuffer) flush();
    if (n >= kBuffer) {
      if (ok_) ok_ = write_all(static_cast<const char*>(p), n);
      return;
    }
    buf_.append(static_cast<const char*>(p), n);
  }
  bool write_all(const char* p, size_t n) {
    const uint64_t stop = stop_;
    if (stop != 0) {
      if (written_ >= stop) return false;
      n = std::min<uint64_t>(n, stop - written_);
    }
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w;
      n -= size_t(w);
      written_ += uint64_t(w);
    }
    return stop == 0 || written_ < stop;
  }
  int fd_;
  uint64_t stop_;  // test hook: end after this many bytes (0: never)
  std::string buf_;
  uint64_t sent_ = 0, written_ = 0;
  bool ok_ = true;
};

// Reads what the child sends, waiting at most kChildSilenceLimit for each part.
class PipeReader {
 public:
  explicit PipeReader(int fd) : fd_(fd), buf_(64 * 1024) {}
  bool u64(uint64_t* v) { return get(v, 8); }
  bool str(std::string* s) {
    uint64_t n = 0;
    if (!u64(&n) || n > kLongestString) return fail("a length out of range");
    s->resize(n);
    return get(s->data(), n);
  }
  uint64_t received() const { return received_; }
  const std::string& problem() const { return problem_; }

 private:
  bool fail(const std::string& why) {
    if (problem_.empty()) problem_ = why;
    return false;
  }
  bool get(void* dst, size_t n) {
    char* p = static_cast<char*>(dst);
    while (n > 0) {
      if (have_ == 0 && !fill()) return false;
      const size_t take = std::min(n, have_);
      std::memcpy(p, buf_.data() + at_, take);
      at_ += take;
      have_ -= take;
      p += take;
      n -= take;
      received_ += take;
    }
    return true;
  }
  bool fill() {
    pollfd pfd{fd_, POLLIN, 0};
    const int waited = ::poll(&pfd, 1, int(std::chrono::milliseconds(kChildSilenceLimit).count()));
    if (waited < 0 && errno == EINTR) return fill();
    if (waited == 0) return fail("it sent nothing for " + std::to_string(kChildSilenceLimit.count()) + " s");
    const ssize_t r = ::read(fd_, buf_.data(), buf_.size());
    if (r < 0 && errno == EINTR) return fill();
    if (r < 0) return fail(std::string("reading its pipe: ") + std::strerror(errno));
    if (r == 0) return fail("it ended after " + std::to_string(received_) + " bytes, before the whole snapshot");
    at_ = 0;
    have_ = size_t(r);
    return true;
  }
  int fd_;
  std::vector<char> buf_;  // on the heap: the caller may be a thread with a small stack
  size_t at_ = 0, have_ = 0;
  uint64_t received_ = 0;
  std::string problem_;
};

void write_snapshot(const CheckpointSnapshot& s, PipeWriter& w) {
  w.u64(kStart);
  w.u64(s.ops_applied);
  w.u64(s.memories);
  w.u64(s.applied.size());
  for (const auto& [writer, seqno] : s.applied) {
    w.u64(writer.value);
    w.u64(seqno.value);
  }
  w.str(s.state.meta);
  w.u64(s.state.chunks.size());
  for (const auto& c : s.state.chunks) w.str(c);
  w.u64(s.lanes.size());
  for (const auto& lane : s.lanes) {
    w.str(lane.name);
    w.u64(lane.format);
    w.u64(lane.chunks.size());
    for (const auto& c : lane.chunks) w.str(c);
  }
  w.u64(w.sent());
  w.u64(kEnd);
}

bool read_count(PipeReader& r, uint64_t* n) { return r.u64(n) && *n <= kLongestString; }

bool read_snapshot(PipeReader& r, CheckpointSnapshot* s) {
  uint64_t v = 0, n = 0;
  if (!r.u64(&v) || v != kStart || !r.u64(&s->ops_applied) || !r.u64(&s->memories) || !read_count(r, &n)) return false;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t writer = 0, seqno = 0;
    if (!r.u64(&writer) || !r.u64(&seqno)) return false;
    s->applied[InstanceId{writer}] = Seqno(seqno);
  }
  if (!r.str(&s->state.meta) || !read_count(r, &n)) return false;
  s->state.chunks.resize(n);
  for (auto& c : s->state.chunks)
    if (!r.str(&c)) return false;
  if (!read_count(r, &n)) return false;
  s->lanes.resize(n);
  for (auto& lane : s->lanes) {
    uint64_t format = 0, chunks = 0;
    if (!r.str(&lane.name) || !r.u64(&format) || !read_count(r, &chunks)) return false;
    lane.format = uint32_t(format);
    lane.chunks.resize(chunks);
    for (auto& c : lane.chunks)
      if (!r.str(&c)) return false;
  }
  const uint64_t before = r.received();
  uint64_t sent = 0, end = 0;
  return r.u64(&sent) && sent == before && r.u64(&end) && end == kEnd;
}

// The state's part of a snapshot, as both ways of taking one record it.
std::function<void(const ReplicaState&)> encode_into(CheckpointSnapshot& s) {
  return [&s](const ReplicaState& state) {
    s.state = StateCodec::encode(state);
    s.ops_applied = state.ops_applied();
    s.memories = state.memory_count();
    s.applied = state.applied();
  };
}

// The forked child: never returns.
[[noreturn]] void child_main(const RecallEngine& engine, int out, pid_t parent, const CheckpointChildTestHooks& hooks) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_IGN);
  std::signal(SIGPIPE, SIG_DFL);
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);
  if (out > 3) (void)::close_range(3, unsigned(out) - 1, 0);
  (void)::close_range(unsigned(out) + 1, ~0U, 0);
  if (hooks.delay.count() > 0) std::this_thread::sleep_for(hooks.delay);
  CheckpointSnapshot s;
  s.lanes = engine.snapshot_held(encode_into(s));
  PipeWriter w(out, hooks.stop_after);
  write_snapshot(s, w);
  ::_exit(w.flush() ? 0 : 2);
}

Result<CheckpointSnapshot> in_process(const RecallEngine& engine) {
  CheckpointSnapshot s;
  s.lanes = engine.snapshot_lanes(encode_into(s), &s.locked_ms);
  return s;
}

}  // namespace

void set_checkpoint_child_hooks_for_test(CheckpointChildTestHooks hooks) {
  std::lock_guard<std::mutex> g(g_hooks_mutex);
  g_hooks = std::move(hooks);
}

Result<CheckpointSnapshot> take_checkpoint_snapshot(const RecallEngine& engine, bool fork_child,
                                                    std::string* fell_back) {
  if (!fork_child) return in_process(engine);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    if (fell_back) *fell_back = std::string("no pipe for a child: ") + std::strerror(errno);
    return in_process(engine);
  }
  (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  const pid_t parent = ::getpid();
  const CheckpointChildTestHooks hooks = test_hooks();
  pid_t pid = -1;
  int fork_errno = 0;
  CheckpointSnapshot s;
  engine.hold_still(
      [&] {
        pid = ::fork();
        if (pid == 0) child_main(engine, fds[1], parent, hooks);
        fork_errno = errno;
      },
      &s.locked_ms);
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    if (fell_back) *fell_back = std::string("fork failed: ") + std::strerror(fork_errno);
    return in_process(engine);
  }
  if (hooks.forked) hooks.forked();
  PipeReader r(fds[0]);
  const bool ok = read_snapshot(r, &s);
  ::close(fds[0]);
  if (!ok) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ok) {
    const std::string why = r.problem().empty() ? "its bytes do not parse" : r.problem();
    return Status::IoError("checkpoint: the child process that saves the state failed: " + why);
  }
  s.forked = true;
  return s;
}

}  // namespace vasana
