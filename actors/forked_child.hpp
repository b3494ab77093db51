// Work done by a child process forked while the node holds still what the work reads, so that
// the node waits only for fork(): the child sees that memory as it was at the fork
// (copy-on-write), does the work, sends its result back through a pipe and ends with _exit(),
// while the node's threads go on. Taking a checkpoint's snapshot (actors/checkpoint_snapshot.hpp)
// and the state digest (actors/forked_digest.hpp) run this way.
//
// The child has only the forking thread: it must take no lock another thread may have held at the
// fork (whoever calls run_in_forked_child holds those in hold) and touch no actor, socket or log.
// That includes glibc's exit-handler lock, which the first use of a function-local static with a
// destructor takes: values the child reads are made when the program loads
// (replica/out_of_line.hpp; tests/actors/forked_child_exit_lock_test.cpp). It ignores SIGINT,
// SIGTERM, SIGHUP and SIGQUIT (a terminal's Ctrl-C reaches the whole process group, and a
// shutdown's last checkpoint is still taken), is killed when the forking thread ends
// (PR_SET_PDEATHSIG), closes every inherited descriptor but its end of the pipe, and sets its
// oom_score_adj to 1000, so that if memory runs out the kernel kills it, not the node.
//
// Memory: the pages the node changes while the child runs are copied (the kernel's
// copy-on-write), and the child's own buffers are its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

// The child's end of the pipe: buffered writes of integers and strings.
class PipeWriter {
 public:
  PipeWriter(int fd, uint64_t stop_after);
  void u64(uint64_t v) { put(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    put(s.data(), s.size());
  }
  void raw(const void* p, size_t n) { put(p, n); }
  uint64_t sent() const { return sent_; }  // bytes put so far
  // Sends what is buffered: false once a write failed (the parent went away) or the test hook's
  // stop was reached.
  bool flush();

 private:
  void put(const void* p, size_t n);
  bool write_all(const char* p, size_t n);
  int fd_;
  uint64_t stop_;  // test hook: end after this many bytes (0: never)
  std::string buf_;
  uint64_t sent_ = 0, written_ = 0;
  bool ok_ = true;
};

// The parent's end: reads what the child sends, waiting at most silence_limit for each part.
class PipeReader {
 public:
  PipeReader(int fd, std::chrono::seconds silence_limit);
  bool u64(uint64_t* v) { return get(v, 8); }
  // A string of at most 1 GiB (a longer length is refused before anything is allocated).
  bool str(std::string* s);
  bool raw(void* p, size_t n) { return get(p, n); }
  uint64_t received() const { return received_; }
  // Why the last read failed ("" when none did).
  const std::string& problem() const { return problem_; }

 private:
  bool fail(const std::string& why);
  bool get(void* dst, size_t n);
  bool fill();
  int fd_;
  std::chrono::seconds silence_limit_;
  std::vector<char> buf_;  // on the heap: the caller may be a thread with a small stack
  size_t at_ = 0, have_ = 0;
  uint64_t received_ = 0;
  std::string problem_;
};

// hold(fork_here) must call fork_here() while what the child reads is held still. The child then
// runs child(writer) and ends (exit status 0 when child returned true and its bytes went out);
// the parent runs parent(reader) and reaps the child, killing it first when parent returned
// false. FailedPrecondition ("fork failed: ..." or "no pipe: ...") when no child could be made:
// the caller then does the work itself. IoError when parent() returned false, naming the reader's problem or bad_bytes.
// *held_ms, when given, is how long hold() took.
Status run_in_forked_child(const std::function<void(const std::function<void()>&)>& hold,
                           const std::function<bool(PipeWriter&)>& child,
                           const std::function<bool(PipeReader&)>& parent, std::chrono::seconds silence_limit,
                           const std::string& bad_bytes, double* held_ms = nullptr);

// For tests: what the next children do (each field's default: nothing).
struct ForkedChildTestHooks {
  uint64_t stop_after = 0;             // the child ends after sending this many bytes, as if killed
  std::chrono::milliseconds delay{0};  // the child waits this long before it starts its work
  std::function<void()> forked;        // called in the parent once hold() has returned
};
void set_forked_child_hooks_for_test(ForkedChildTestHooks hooks);

}  // namespace vasana
