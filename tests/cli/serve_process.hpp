// A `vasana serve` child process for tests: started on a data directory (initialised first
// with `vasana init` when asked), waited for until it answers a ping, stopped with SIGTERM or
// SIGKILL, and always killed and reaped by the destructor.
#pragma once

#include <csignal>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"

namespace vasana::test {

// Runs `vasana init --data dir`; returns its stderr on failure, "" on success.
std::string init_data_dir_with_cli(const std::string& dir, const std::string& scratch_dir);

class ServeProcess {
 public:
  // Starts `vasana serve --data dir [--config config]`; stderr goes to stderr_path. prefix, when
  // given, is the command it runs under (`ip netns exec NS`: a program that execs the rest, so
  // the pid is the node's).
  ServeProcess(const std::string& dir, const std::string& stderr_path, const std::string& config = "",
               const std::vector<std::string>& prefix = {});
  ~ServeProcess() = default;  // the ChildProcess kills and reaps

  // Waits (at most timeout) until dir/client.endpoint exists and a ping through it is answered
  // with a pong. Returns "" when ready, otherwise why not (with the node's stderr).
  std::string wait_ready(std::chrono::milliseconds timeout = std::chrono::seconds(10));

  pid_t pid() const { return child_.pid(); }
  bool running() { return child_.running(); }
  std::optional<ExitStatus> wait(std::chrono::milliseconds timeout) { return child_.wait(timeout); }
  // SIGTERM and wait for the orderly stop (at most timeout).
  std::optional<ExitStatus> terminate(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return child_.signal_and_wait(SIGTERM, timeout);
  }
  ExitStatus kill() { return child_.kill_and_reap(); }
  std::string stderr_text() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string stderr_path_;
  ChildProcess child_;
};

}  // namespace vasana::test
