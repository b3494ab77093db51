#include "bench/redis_benchmark_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace vasana::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The fields of one CSV line, quotes removed (redis-benchmark quotes every field, no commas
// inside them).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) {
    if (!f.empty() && f.back() == '\r') f.pop_back();
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    fields.push_back(f);
  }
  return fields;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !(v >= 0)) return std::nullopt;
  return v;
}

std::string tail_of(const std::string& s) { return s.size() > 400 ? "..." + s.substr(s.size() - 400) : s; }

}  // namespace

std::optional<RedisBenchmarkFigures> parse_redis_benchmark_csv(const std::string& output) {
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const auto f = csv_fields(line);
    if (f.size() != 8 || f[0] != "SET") continue;
    std::vector<double> v;
    for (size_t i = 1; i < f.size(); ++i) {
      const auto x = number(f[i]);
      if (!x) return std::nullopt;
      v.push_back(*x);
    }
    if (v[0] <= 0) return std::nullopt;
    RedisBenchmarkFigures r;
    r.rate = v[0];
    r.p50_us = v[3] * 1000.0;
    r.p99_us = v[5] * 1000.0;
    return r;
  }
  return std::nullopt;
}

RedisBenchmarkFigures run_redis_benchmark(const std::string& program, int port, size_t value_bytes, size_t clients,
                                          size_t requests, std::chrono::seconds timeout) {
  RedisBenchmarkFigures failed;
  failed.clients = clients;
  failed.requests = requests;
  std::vector<std::string> args = {program, "-h", "127.0.0.1", "-p", std::to_string(port), "-t", "set",
                                   "-d", std::to_string(value_bytes), "-c", std::to_string(clients),
                                   "-n", std::to_string(requests), "-r", "1000000", "-P", "1", "--csv"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    failed.problem = "pipe failed";
    return failed;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    failed.problem = "fork failed";
    return failed;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  // Everything it prints, until it closes its output or the deadline passes.
  std::string text;
  bool timed_out = false;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, int(std::min<long long>(left, 1000))) < 0) break;
    if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[4096];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    if (text.size() < (1u << 20)) text.append(buf, size_t(n));
  }
  ::close(out[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (timed_out) {
    failed.problem = "redis-benchmark did not finish " + std::to_string(requests) + " SETs within " +
                     std::to_string(timeout.count()) + " s (killed)";
    return failed;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    failed.problem = "redis-benchmark " +
                     (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                        : "ended by signal " + std::to_string(WTERMSIG(status))) +
                     ": " + tail_of(text);
    return failed;
  }
  auto figures = parse_redis_benchmark_csv(text);
  if (!figures) {
    failed.problem = "no SET figures in redis-benchmark's output: " + tail_of(text);
    return failed;
  }
  figures->clients = clients;
  figures->requests = requests;
  return *figures;
}

}  // namespace vasana::bench
