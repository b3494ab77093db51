#include "actors/forked_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

namespace vasana {

namespace {

constexpr size_t kWriteBuffer = 1 << 20;
constexpr uint64_t kLongestString = uint64_t{1} << 30;  // a chunk is a few MiB: garbage, not a length

std::mutex g_hooks_mutex;
ForkedChildTestHooks g_hooks;  // guarded by g_hooks_mutex; a child reads its own copy

ForkedChildTestHooks test_hooks() {
  std::lock_guard<std::mutex> g(g_hooks_mutex);
  return g_hooks;
}

// The forked child: never returns.
[[noreturn]] void child_main(const std::function<bool(PipeWriter&)>& child, int out, pid_t parent,
                             const ForkedChildTestHooks& hooks) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_IGN);
  std::signal(SIGPIPE, SIG_DFL);
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);
  // If memory runs out while it runs, the kernel kills the child, not the node.
  if (int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); fd >= 0) {
    (void)!::write(fd, "1000", 4);
    ::close(fd);
  }
  if (out > 3) (void)::close_range(3, unsigned(out) - 1, 0);
  (void)::close_range(unsigned(out) + 1, ~0U, 0);
  if (hooks.delay.count() > 0) std::this_thread::sleep_for(hooks.delay);
  PipeWriter w(out, hooks.stop_after);
  const bool done = child(w);
  ::_exit(w.flush() && done ? 0 : 2);
}

}  // namespace

PipeWriter::PipeWriter(int fd, uint64_t stop_after) : fd_(fd), stop_(stop_after) { buf_.reserve(kWriteBuffer); }

bool PipeWriter::flush() {
  if (ok_ && !buf_.empty()) ok_ = write_all(buf_.data(), buf_.size());
  buf_.clear();
  return ok_;
}

void PipeWriter::put(const void* p, size_t n) {
  sent_ += n;
  if (buf_.size() + n > kWriteBuffer) flush();
  if (n >= kWriteBuffer) {
    if (ok_) ok_ = write_all(static_cast<const char*>(p), n);
    return;
  }
  buf_.append(static_cast<const char*>(p), n);
}

bool PipeWriter::write_all(const char* p, size_t n) {
  if (stop_ != 0) {
    if (written_ >= stop_) return false;
    n = std::min<uint64_t>(n, stop_ - written_);
  }
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
    written_ += uint64_t(w);
  }
  return stop_ == 0 || written_ < stop_;
}

PipeReader::PipeReader(int fd, std::chrono::seconds silence_limit)
    : fd_(fd), silence_limit_(silence_limit), buf_(64 * 1024) {}

bool PipeReader::str(std::string* s) {
  uint64_t n = 0;
  if (!u64(&n)) return false;
  if (n > kLongestString) return fail("a length out of range");
  s->resize(n);
  return get(s->data(), n);
}

bool PipeReader::fail(const std::string& why) {
  if (problem_.empty()) problem_ = why;
  return false;
}

bool PipeReader::get(void* dst, size_t n) {
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

bool PipeReader::fill() {
  for (;;) {
    pollfd pfd{fd_, POLLIN, 0};
    const int waited = ::poll(&pfd, 1, int(std::chrono::milliseconds(silence_limit_).count()));
    if (waited < 0 && errno == EINTR) continue;
    if (waited == 0) return fail("it sent nothing for " + std::to_string(silence_limit_.count()) + " s");
    const ssize_t r = ::read(fd_, buf_.data(), buf_.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return fail(std::string("reading its pipe: ") + std::strerror(errno));
    if (r == 0) return fail("it ended after " + std::to_string(received_) + " bytes, before the whole answer");
    at_ = 0;
    have_ = size_t(r);
    return true;
  }
}

void set_forked_child_hooks_for_test(ForkedChildTestHooks hooks) {
  std::lock_guard<std::mutex> g(g_hooks_mutex);
  g_hooks = std::move(hooks);
}

Status run_in_forked_child(const std::function<void(const std::function<void()>&)>& hold,
                           const std::function<bool(PipeWriter&)>& child,
                           const std::function<bool(PipeReader&)>& parent, std::chrono::seconds silence_limit,
                           const std::string& bad_bytes, double* held_ms) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::FailedPrecondition(std::string("no pipe: ") + std::strerror(errno));
  (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  const pid_t parent_pid = ::getpid();
  const ForkedChildTestHooks hooks = test_hooks();
  pid_t pid = -1;
  int fork_errno = 0;
  const auto t0 = std::chrono::steady_clock::now();
  hold([&] {
    pid = ::fork();
    if (pid == 0) child_main(child, fds[1], parent_pid, hooks);
    fork_errno = errno;
  });
  if (held_ms) *held_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return Status::FailedPrecondition(std::string("fork failed: ") + std::strerror(fork_errno));
  }
  if (hooks.forked) hooks.forked();
  PipeReader r(fds[0], silence_limit);
  const bool ok = parent(r);
  ::close(fds[0]);
  if (!ok) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ok) return Status::IoError(r.problem().empty() ? bad_bytes : r.problem());
  return Status::Ok();
}

}  // namespace vasana
