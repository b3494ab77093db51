// A minimal RESP2 client over a plain TCP socket, for the replication benchmark's Redis side
// (bench/bench_replication.cpp): commands are encoded as arrays of bulk strings; replies are
// parsed incrementally from a buffer, so many commands can be in flight on one connection
// (pipelining) and pushed Pub/Sub messages can be read as they come. Not a general client:
// no RESP3, no TLS, no reconnection. One RespConnection per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vasana {

struct RespValue {
  char type = 0;        // '+' simple string, '-' error, ':' integer, '$' bulk, '*' array
  std::string text;     // for '+', '-', '$'
  long long number = 0; // for ':'
  bool null = false;    // "$-1" or "*-1"
  std::vector<RespValue> items;  // for '*'
};

// One command as RESP (an array of bulk strings).
std::string resp_command(const std::vector<std::string>& words);

// Parses one reply from buf starting at *pos. 1: parsed into out and *pos moved past it;
// 0: the buffer holds only part of a reply (*pos unchanged); -1: not RESP.
int parse_resp(const std::string& buf, size_t* pos, RespValue* out);

class RespConnection {
 public:
  RespConnection() = default;
  ~RespConnection();
  RespConnection(const RespConnection&) = delete;
  RespConnection& operator=(const RespConnection&) = delete;

  // Connects to 127.0.0.1:port (TCP_NODELAY). False, with why(), when it cannot.
  bool connect(int port);
  // Writes all of bytes (blocking). False when the connection broke.
  bool send(const std::string& bytes);
  // Waits at most timeout_ms for bytes and reads what is there. False when the connection was
  // closed or broke; true otherwise (also when nothing came).
  bool read_some(int timeout_ms);
  // The next complete reply already read, if any.
  std::optional<RespValue> next();
  // send + wait for one reply (at most timeout_ms).
  std::optional<RespValue> call(const std::vector<std::string>& words, int timeout_ms);
  int fd() const { return fd_; }
  const std::string& why() const { return why_; }

 private:
  int fd_ = -1;
  std::string in_;
  size_t pos_ = 0;
  std::string why_;
};

}  // namespace vasana
