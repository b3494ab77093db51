// Child processes for the tests that run the real `vasana` binary: spawn with stdin, stdout and
// stderr on files, wait with a deadline, and a destructor that kills and reaps whatever is still
// running, so a failing test never leaves a process behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace vasana::test {

// How a process ended.
struct ExitStatus {
  bool exited = false;  // by exit(); otherwise by a signal
  int code = -1;        // exit code when exited
  int signal = 0;       // terminating signal otherwise
  std::string describe() const;
};

class ChildProcess {
 public:
  // Starts program with args (argv[0] is program). Empty paths mean /dev/null. The child gets
  // the test's environment without VASANA_DATA, default signal handling and an empty signal
  // mask. On failure pid() is -1 and error() says why.
  ChildProcess(const std::string& program, const std::vector<std::string>& args, const std::string& stdin_path,
               const std::string& stdout_path, const std::string& stderr_path);
  ~ChildProcess();  // SIGKILL and reap if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& error() const { return error_; }
  bool running();  // false once it has ended (it is then reaped)

  // Waits up to timeout for the child to end; nullopt if it is still running.
  std::optional<ExitStatus> wait(std::chrono::milliseconds timeout);
  // Sends sig (when still running) and waits up to timeout for the end.
  std::optional<ExitStatus> signal_and_wait(int sig, std::chrono::milliseconds timeout);
  // SIGKILL and reap; returns how it ended (immediately if it already had).
  ExitStatus kill_and_reap();

 private:
  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
  std::string error_;
};

struct CommandResult {
  ExitStatus status;
  bool timed_out = false;  // killed at the deadline
  std::string out, err;
};

// Runs the vasana binary with args to completion (at most timeout), stdin fed from stdin_data.
// scratch_dir holds the temporary files for the three streams.
CommandResult run_vasana(const std::vector<std::string>& args, const std::string& scratch_dir,
                         const std::string& stdin_data = "",
                         std::chrono::milliseconds timeout = std::chrono::seconds(20));

// The same for any program: argv[0] included in argv.
CommandResult run_program(const std::string& program, const std::vector<std::string>& argv,
                          const std::string& scratch_dir, const std::string& stdin_data = "",
                          std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace vasana::test
