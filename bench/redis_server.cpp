#include "bench/redis_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "bench/resp_client.hpp"

namespace vasana::bench {

using Clock = std::chrono::steady_clock;

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream in(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(in, dir, ':')) {
    const std::string p = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

RedisServer::RedisServer(std::string program, std::string name, std::string dir)
    : program_(std::move(program)), name_(std::move(name)), dir_(std::move(dir)) {}

RedisServer::~RedisServer() { stop(); }

std::string RedisServer::start(int port, const std::vector<std::string>& options) {
  port_ = port;
  std::filesystem::create_directories(dir_);
  log_ = dir_ + "/redis.log";
  std::vector<std::string> args = {program_, "--port", std::to_string(port), "--bind", "127.0.0.1",
                                   "--save", "", "--daemonize", "no", "--dir", dir_};
  args.insert(args.end(), options.begin(), options.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) return "fork failed";
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(program_.c_str(), argv.data());
    ::_exit(127);
  }
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return name_ + " exited at start; its log: " + log_tail();
    }
    RespConnection c;
    if (c.connect(port)) {
      auto r = c.call({"PING"}, 1000);
      if (r && r->type == '+' && r->text == "PONG") return "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return name_ + " did not answer PING within 10 s; its log: " + log_tail();
}

void RedisServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (Clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string RedisServer::info(const std::string& section, const std::string& field) const {
  RespConnection c;
  if (!c.connect(port_)) return "";
  auto r = c.call({"INFO", section}, 2000);
  if (!r || r->type != '$') return "";
  const std::string key = field + ":";
  std::istringstream lines(r->text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
  }
  return "";
}

std::string RedisServer::log_tail() const {
  std::ifstream in(log_);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all.size() > 600 ? "..." + all.substr(all.size() - 600) : all;
}

}  // namespace vasana::bench
