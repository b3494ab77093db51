// The HTTP server's event loop: one thread with epoll that accepts connections (closing at once
// those over the admission's limits), drives every connection's state machine
// (frontends/http_connection.hpp), ends connections past their deadline (checked every 50 ms) and
// hands complete, admitted requests to `dispatch` (the worker pool). Workers give their answers
// back with post(); the loop writes them.
//
// Threading: open(), start() and stop() on the owner's thread; post() from any thread; everything else
// runs on the loop's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "frontends/http_connection.hpp"
#include "frontends/tls_stream.hpp"

namespace vasana {

class HttpEventLoop {
 public:
  // listener: a bound, listening, non-blocking socket, owned by the loop from here on (closed
  // by stop()). tls: null for plain HTTP; it, options and admission must outlive the loop.
  // Nothing runs until start().
  static Result<std::unique_ptr<HttpEventLoop>> open(int listener, const HttpOptions& options, TlsContext* tls,
                                                     HttpAdmission& admission,
                                                     std::function<void(HttpConnection::Job)> dispatch);
  // Starts the loop's thread: connections are accepted from here on. Once.
  void start();
  ~HttpEventLoop();  // stop()s
  HttpEventLoop(const HttpEventLoop&) = delete;
  HttpEventLoop& operator=(const HttpEventLoop&) = delete;

  // A worker's answer to a dispatched request: the bytes it could not write itself; broken:
  // its write failed (the connection is closed).
  void post(uint64_t connection, std::string rest, int status, bool keep_alive, bool broken);
  // Closes the listener and every connection but those a worker has (they are closed by the
  // destructor, which must run after the workers are done), and joins the thread. Idempotent.
  void stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Answer {
    uint64_t connection;
    std::string rest;
    int status;
    bool keep_alive;
    bool broken;
  };
  struct Slot {
    std::unique_ptr<HttpConnection> connection;
    bool watched = false;     // in epoll (not while a worker has it)
    uint32_t registered = 0;  // the epoll events asked for now
  };

  HttpEventLoop(int listener, const HttpOptions& options, TlsContext* tls, HttpAdmission& admission,
                std::function<void(HttpConnection::Job)> dispatch);
  void run();
  void accept_all(Clock::time_point now);
  void take_answers(Clock::time_point now);
  void expire(Clock::time_point now);
  // After the connection moved: its epoll registration follows its interest; a closed one goes.
  void settle(uint64_t id);
  void close_all();

  int listener_;  // -1 once closed
  const HttpOptions& options_;
  TlsContext* const tls_;
  HttpAdmission& admission_;
  const std::function<void(HttpConnection::Job)> dispatch_;
  int epoll_ = -1;
  int wake_ = -1;  // an eventfd: answers are waiting, or stop
  std::atomic<bool> stopping_{false};
  std::mutex answers_mu_;
  std::vector<Answer> answers_;  // guarded by answers_mu_
  std::unordered_map<uint64_t, Slot> slots_;
  std::vector<uint64_t> again_;                // connections to advance without waiting for their socket
  std::vector<std::unique_ptr<HttpConnection>> parked_;  // a worker's when the loop stopped
  uint64_t next_id_ = 2;                       // 0 and 1 are the listener's and the eventfd's epoll tags
  Clock::time_point listener_paused_until_{};  // out of descriptors: accept again after this
  bool listener_paused_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace vasana
