#include "tests/cli/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "store/file_io.hpp"

extern char** environ;

namespace vasana::test {

namespace {

ExitStatus decode(int raw) {
  ExitStatus s;
  if (WIFEXITED(raw)) {
    s.exited = true;
    s.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    s.signal = WTERMSIG(raw);
  }
  return s;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  return std::string("signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           const std::string& stdin_path, const std::string& stdout_path,
                           const std::string& stderr_path) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "VASANA_DATA=", 12) != 0) envp.push_back(*e);
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  auto redirect = [&](int fd, const std::string& path, int flags) {
    posix_spawn_file_actions_addopen(&actions, fd, path.empty() ? "/dev/null" : path.c_str(), flags, 0644);
  };
  redirect(0, stdin_path, O_RDONLY);
  redirect(1, stdout_path, O_WRONLY | O_CREAT | O_TRUNC);
  redirect(2, stderr_path, O_WRONLY | O_CREAT | O_TRUNC);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error_ = "posix_spawn " + program + ": " + std::strerror(rc);
    return;
  }
  pid_ = pid;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) kill_and_reap();
}

bool ChildProcess::running() {
  if (pid_ <= 0 || status_) return false;
  int raw = 0;
  pid_t r = ::waitpid(pid_, &raw, WNOHANG);
  if (r == pid_) {
    status_ = decode(raw);
    return false;
  }
  return r == 0;
}

std::optional<ExitStatus> ChildProcess::wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (!running()) return status_;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<ExitStatus> ChildProcess::signal_and_wait(int sig, std::chrono::milliseconds timeout) {
  if (running()) ::kill(pid_, sig);
  return wait(timeout);
}

ExitStatus ChildProcess::kill_and_reap() {
  if (pid_ <= 0) return ExitStatus{};
  if (status_) return *status_;
  ::kill(pid_, SIGKILL);
  int raw = 0;
  while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
  }
  status_ = decode(raw);
  return *status_;
}

CommandResult run_vasana(const std::vector<std::string>& args, const std::string& scratch_dir,
                         const std::string& stdin_data, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {VASANA_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(VASANA_BINARY, argv, scratch_dir, stdin_data, timeout);
}

CommandResult run_program(const std::string& program, const std::vector<std::string>& argv,
                          const std::string& scratch_dir, const std::string& stdin_data,
                          std::chrono::milliseconds timeout) {
  static std::atomic<int> counter{0};
  const std::string base = scratch_dir + "/cmd" + std::to_string(counter++);
  const std::string in = base + ".in", out = base + ".out", err = base + ".err";
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f.write(stdin_data.data(), static_cast<std::streamsize>(stdin_data.size()));
  }
  CommandResult r;
  {
    ChildProcess child(program, argv, in, out, err);
    if (child.pid() < 0) {
      r.err = child.error();
      return r;
    }
    auto st = child.wait(timeout);
    if (!st) {
      r.timed_out = true;
      st = child.kill_and_reap();
    }
    r.status = *st;
  }
  auto o = read_whole_file(out);
  auto e = read_whole_file(err);
  r.out = o.ok() ? *o : "";
  r.err = e.ok() ? *e : "";
  ::unlink(in.c_str());
  ::unlink(out.c_str());
  ::unlink(err.c_str());
  return r;
}

}  // namespace vasana::test
