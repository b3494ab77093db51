// Redis beside vasana in the benchmarks (bench/bench_redis.cpp for replication,
// bench/redis_write_figures.cpp for writes): redis-server as a child process on loopback,
// started with options on its command line (no configuration file) and stopped within a bounded
// time, and the programs found on PATH.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace vasana::bench {

// The path of program on PATH, or "".
std::string find_on_path(const std::string& program);

// A redis-server child process: output to dir/redis.log, killed when the bench ends (and by the
// kernel if the bench dies). Always started with --bind 127.0.0.1 --save "" --daemonize no and
// --dir dir, then the caller's options.
class RedisServer {
 public:
  RedisServer(std::string program, std::string name, std::string dir);
  ~RedisServer();  // stop()
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // "" once it answers PING on port (within 10 s), else why not (with its log's tail).
  std::string start(int port, const std::vector<std::string>& options);
  // SIGTERM, then SIGKILL after 5 s; reaped either way. Nothing when not running.
  void stop();
  // The value of field in INFO section ("redis_version" of "server"), or "" when not there.
  std::string info(const std::string& section, const std::string& field) const;

  std::string log_tail() const;
  int port() const { return port_; }

 private:
  std::string program_, name_, dir_, log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace vasana::bench
