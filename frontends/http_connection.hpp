// One client connection of the HTTP server, as a state machine the event loop drives
// (frontends/http_event_loop.hpp): TLS handshake, then request after request (keep-alive, pipelined
// requests taken in turn): the head read under http.header_timeout (total, from the
// connection's start or the head's first byte), admitted from the head alone
// (frontends/http_admission.hpp), then the body under http.body_timeout, decoded and capped as it
// arrives (frontends/http_body_reader.hpp), then handed to a worker. While a worker has the request
// the connection reads nothing; the worker writes what of its answer the socket takes at once,
// the loop the rest, under http.write_timeout. A refusal or a broken rule is answered with
// Connection: close, and the connection then lingers (reading and dropping what the client still
// sends, at most 1 MiB or 2 s) so that the client sees the answer rather than a reset.
//
// Threading: the event loop's thread, except that between dispatch and answer() the connection
// belongs to the worker that has its Job (the loop does not touch it then).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "frontends/http_admission.hpp"
#include "frontends/http_body_reader.hpp"
#include "frontends/http_stream.hpp"

namespace vasana {

class HttpConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // A complete, admitted request on its way to a worker; its answer comes back through answer().
  // Until then the connection is the worker's alone: the loop does not watch, read, write or
  // close it, so the worker may write the answer on `stream` itself (without blocking) and hand
  // back only what did not fit.
  struct Job {
    uint64_t connection = 0;
    HttpStream* stream = nullptr;
    HttpRequest request;
    const ClientGrant* who = nullptr;
    bool keep_alive = true;  // the answer says Connection: keep-alive and the connection goes on
    bool head_only = false;  // a HEAD request: the answer without its body
  };
  struct Env {
    const HttpOptions* options = nullptr;
    HttpAdmission* admission = nullptr;
    std::function<void(Job)> dispatch;
  };
  enum class Phase { handshake, head, idle, body, dispatched, writing, lingering, closed };

  // stream: the accepted socket (tls: a TLS stream, which starts with its handshake).
  HttpConnection(uint64_t id, std::unique_ptr<HttpStream> stream, std::string remote, bool tls, Env env,
                 Clock::time_point now);

  // Goes on as far as it can without blocking.
  void advance(Clock::time_point now);
  // The worker's answer to the dispatched request: the bytes of it the worker did not write
  // (serialize_response()'s, less what went out); broken: the worker's write failed.
  void answer(std::string rest, int status, bool keep_alive, bool broken, Clock::time_point now);
  // deadline() has passed: answers 408 where a request was under way, else closes.
  void expire(Clock::time_point now);
  // The socket failed or hung up (EPOLLERR, EPOLLHUP): nothing more can be said on it.
  void drop() { phase_ = Phase::closed; }

  // The socket readiness it waits for (EPOLLIN, EPOLLOUT); 0 while a worker has its request
  // (phase dispatched: the loop then takes it out of epoll).
  uint32_t interest() const;
  // It stopped reading with bytes still to take (its share of one loop turn used up): advance it
  // again soon without waiting for the socket.
  bool again() const { return again_; }
  Clock::time_point deadline() const { return deadline_; }
  Phase phase() const { return phase_; }
  bool closed() const { return phase_ == Phase::closed; }
  uint64_t id() const { return id_; }
  int fd() const { return stream_->fd(); }
  const std::string& remote() const { return remote_; }

 private:
  enum class After { idle, body, linger };  // what follows the bytes being written
  enum class Want { read, write, none };

  // Reads at most cap bytes onto in_; want_ is set when it must wait.
  StreamIo fill(size_t cap);
  void on_head(HttpHead head, Clock::time_point now);
  void dispatch();
  // Answers res with Connection: close; reason (when not empty) counts and logs the refusal.
  void refuse(const HttpResponse& res, const std::string& reason, const std::string& detail, Clock::time_point now);
  void write(std::string bytes, After after, Clock::time_point deadline);
  // False when it must wait (want_ set) or is closed.
  bool flush(Clock::time_point now);
  void linger();

  const uint64_t id_;
  std::unique_ptr<HttpStream> stream_;
  const std::string remote_;
  const Env env_;
  Phase phase_;
  Want want_ = Want::read;
  Clock::time_point deadline_;
  bool again_ = false;
  size_t budget_ = 0;  // bytes it may still read in this advance()
  std::string in_;       // read, not yet taken by the head parser or the body reader
  size_t scanned_ = 0;   // bytes of in_ already searched for the end of a head
  HttpRequest request_;  // the request under way (head admitted)
  const ClientGrant* who_ = nullptr;
  bool keep_alive_ = true, head_only_ = false;
  std::unique_ptr<HttpBodyReader> body_;
  std::string out_;
  size_t out_pos_ = 0;
  After after_ = After::idle;
  size_t lingered_ = 0;
};

}  // namespace vasana
