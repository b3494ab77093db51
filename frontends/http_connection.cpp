#include "frontends/http_connection.hpp"

#include "frontends/embedded_files.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace vasana {

namespace {

constexpr size_t kReadBudget = 1 << 20;   // bytes one advance() may read before others get a turn
constexpr size_t kLingerBytes = 1 << 20;  // dropped after a closing answer, at most
constexpr auto kLinger = std::chrono::seconds(2);

// The loop thread's read buffer, shared by its connections.
thread_local char t_scratch[65536];

std::string ms(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

const char* error_code_of(int status) {
  switch (status) {
    case 408:
      return "request_timeout";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 417:
      return "expectation_failed";
    case 431:
      return "headers_too_large";
    case 501:
      return "not_implemented";
    case 505:
      return "http_version_not_supported";
    default:
      return "bad_request";
  }
}

}  // namespace

HttpConnection::HttpConnection(uint64_t id, std::unique_ptr<HttpStream> stream, std::string remote, bool tls, Env env,
                               Clock::time_point now)
    : id_(id),
      stream_(std::move(stream)),
      remote_(std::move(remote)),
      env_(std::move(env)),
      phase_(tls ? Phase::handshake : Phase::head),
      deadline_(now + env_.options->header_timeout) {}

uint32_t HttpConnection::interest() const {
  if (phase_ == Phase::dispatched || phase_ == Phase::closed) return 0;
  switch (want_) {
    case Want::read:
      return EPOLLIN;
    case Want::write:
      return EPOLLOUT;
    default:
      return 0;
  }
}

StreamIo HttpConnection::fill(size_t cap) {
  if (budget_ == 0) {
    again_ = true;
    want_ = Want::read;
    return StreamIo::want_read;
  }
  size_t got = 0;
  const StreamIo r = stream_->read(t_scratch, std::min({cap, sizeof t_scratch, budget_}), got);
  if (r == StreamIo::ok) {
    in_.append(t_scratch, got);
    budget_ -= std::min(got, budget_);
  } else if (r == StreamIo::want_read) {
    want_ = Want::read;
  } else if (r == StreamIo::want_write) {
    want_ = Want::write;
  }
  return r;
}

void HttpConnection::advance(Clock::time_point now) {
  again_ = false;
  budget_ = kReadBudget;
  for (;;) {
    switch (phase_) {
      case Phase::closed:
      case Phase::dispatched:
        return;
      case Phase::handshake: {
        const StreamIo r = stream_->handshake();
        if (r == StreamIo::ok) {
          phase_ = Phase::head;
          want_ = Want::read;
          break;
        }
        if (r == StreamIo::want_read || r == StreamIo::want_write) {
          want_ = r == StreamIo::want_read ? Want::read : Want::write;
          return;
        }
        if (r == StreamIo::failed)
          env_.admission->refused("tls-handshake", remote_, "the TLS handshake failed (not TLS, or nothing in common)");
        phase_ = Phase::closed;
        return;
      }
      case Phase::idle:
      case Phase::head: {
        // Empty lines before a request line are skipped (RFC 9112 2.2).
        size_t skip = 0;
        while (in_.size() - skip >= 2 && in_[skip] == '\r' && in_[skip + 1] == '\n') skip += 2;
        if (skip > 0) {
          in_.erase(0, skip);
          scanned_ = 0;
        }
        if (!in_.empty()) {
          if (phase_ == Phase::idle) {
            phase_ = Phase::head;
            deadline_ = now + env_.options->header_timeout;
          }
          // The head is parsed once its blank line is there (or it is too long): a head that
          // trickles in byte by byte costs one scan of each byte, not one of the head per byte.
          const size_t end = in_.find("\r\n\r\n", scanned_ > 3 ? scanned_ - 3 : 0);
          scanned_ = in_.size();
          if (end != std::string::npos || in_.size() > kMaxHttpHeadBytes) {
            HeadParse p = parse_request_head(in_, kMaxHttpHeadBytes);
            if (p.state == HeadParse::State::complete) {
              in_.erase(0, p.consumed);
              scanned_ = 0;
              on_head(std::move(p.head), now);
              break;
            }
            if (p.state == HeadParse::State::refused) {
              const bool large = p.status == 414 || p.status == 431;
              refuse(json_error(p.status, error_code_of(p.status), p.message), large ? "too-large" : "malformed",
                     p.message, now);
              break;
            }
          }
        }
        const StreamIo r = fill(16384);
        if (r == StreamIo::ok) break;
        if (r != StreamIo::want_read && r != StreamIo::want_write) phase_ = Phase::closed;  // the client went away
        return;
      }
      case Phase::body: {
        if (!in_.empty()) in_.erase(0, body_->feed(in_));
        const HttpBodyReader::State st = body_->state();
        if (st == HttpBodyReader::State::done) {
          dispatch();
          return;
        }
        if (st == HttpBodyReader::State::too_large) {
          const std::string limit = std::to_string(env_.options->max_body_bytes);
          refuse(json_error(413, "payload_too_large",
                            "the request body is larger than http.max_body_bytes (" + limit + ")"),
                 "too-large", "a chunked body past " + limit + " bytes", now);
          break;
        }
        if (st == HttpBodyReader::State::bad) {
          refuse(json_error(400, "bad_request", "the chunked body is malformed: " + body_->error()), "malformed",
                 body_->error(), now);
          break;
        }
        const StreamIo r = fill(sizeof t_scratch);
        if (r == StreamIo::ok) break;
        if (r != StreamIo::want_read && r != StreamIo::want_write) phase_ = Phase::closed;
        return;
      }
      case Phase::writing:
        if (!flush(now)) return;
        break;
      case Phase::lingering:
        linger();
        return;
    }
  }
}

void HttpConnection::on_head(HttpHead head, Clock::time_point now) {
  // The web console's static files need no token (a browser's page load cannot send one); they
  // are answered here, off the workers. A request that carries a body closes the connection
  // after the answer rather than reading the body.
  if (auto page = console_file_response(head.request.method, head.request.path)) {
    env_.admission->responded(page->status);
    keep_alive_ = head.keep_alive && !head.chunked && head.content_length == 0;
    const bool head_only = head.request.method == "HEAD";
    write(serialize_response(*page, keep_alive_, head_only), keep_alive_ ? After::idle : After::linger,
          now + env_.options->write_timeout);
    return;
  }
  HttpResponse refusal;
  who_ = env_.admission->admit(head, remote_, refusal);
  if (!who_) return refuse(refusal, "", "", now);  // counted and logged by the admission
  keep_alive_ = head.keep_alive;
  head_only_ = head.request.method == "HEAD";
  request_ = std::move(head.request);
  request_.remote = remote_;
  body_ = std::make_unique<HttpBodyReader>(head.chunked, head.content_length, env_.options->max_body_bytes);
  phase_ = Phase::body;
  deadline_ = now + env_.options->body_timeout;
  // A client that asked to be told before it sends its body is told now, once the head passed.
  if (head.expect_continue && body_->state() == HttpBodyReader::State::more && in_.empty())
    write("HTTP/1.1 100 Continue\r\n\r\n", After::body, deadline_);
}

void HttpConnection::dispatch() {
  Job job;
  job.connection = id_;
  job.stream = stream_.get();
  job.request = std::move(request_);
  job.request.body = body_->take_body();
  job.who = who_;
  job.keep_alive = keep_alive_;
  job.head_only = head_only_;
  body_.reset();
  request_ = HttpRequest{};
  phase_ = Phase::dispatched;
  want_ = Want::none;
  deadline_ = Clock::time_point::max();
  env_.dispatch(std::move(job));
}

void HttpConnection::answer(std::string rest, int status, bool keep_alive, bool broken, Clock::time_point now) {
  if (phase_ != Phase::dispatched) return;
  env_.admission->responded(status);
  if (broken) {
    phase_ = Phase::closed;
    return;
  }
  keep_alive_ = keep_alive_ && keep_alive;
  write(std::move(rest), keep_alive_ ? After::idle : After::linger, now + env_.options->write_timeout);
  advance(now);
}

void HttpConnection::refuse(const HttpResponse& res, const std::string& reason, const std::string& detail,
                            Clock::time_point now) {
  if (!reason.empty()) env_.admission->refused(reason, remote_, detail);
  env_.admission->responded(res.status);
  body_.reset();
  request_ = HttpRequest{};
  write(serialize_response(res, false), After::linger, now + env_.options->write_timeout);
}

void HttpConnection::write(std::string bytes, After after, Clock::time_point deadline) {
  out_ = std::move(bytes);
  out_pos_ = 0;
  after_ = after;
  phase_ = Phase::writing;
  want_ = Want::write;
  deadline_ = deadline;
}

bool HttpConnection::flush(Clock::time_point now) {
  while (out_pos_ < out_.size()) {
    size_t put = 0;
    const StreamIo r = stream_->write(out_.data() + out_pos_, out_.size() - out_pos_, put);
    if (r == StreamIo::ok && put > 0) {
      out_pos_ += put;
    } else if (r == StreamIo::ok || r == StreamIo::want_write || r == StreamIo::want_read) {
      want_ = r == StreamIo::want_read ? Want::read : Want::write;
      return false;
    } else {
      phase_ = Phase::closed;
      return false;
    }
  }
  std::string().swap(out_);  // an answer of megabytes is not kept for the connection's life
  out_pos_ = 0;
  want_ = Want::read;
  switch (after_) {
    case After::body:
      phase_ = Phase::body;  // under the body's deadline, set with the head
      break;
    case After::idle:
      phase_ = Phase::idle;
      deadline_ = now + env_.options->keep_alive_timeout;
      if (in_.empty() && in_.capacity() > 4096) std::string().swap(in_);  // idle connections hold little
      break;
    case After::linger:
      stream_->shutdown_send();
      phase_ = Phase::lingering;
      deadline_ = now + kLinger;
      lingered_ = 0;
      break;
  }
  return true;
}

void HttpConnection::linger() {
  // Raw reads: after the answer nothing the client sends matters, TLS records included.
  for (;;) {
    const ssize_t n = ::recv(stream_->fd(), t_scratch, sizeof t_scratch, 0);
    if (n > 0) {
      lingered_ += size_t(n);
      if (lingered_ <= kLingerBytes) continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      want_ = Want::read;
      return;
    }
    phase_ = Phase::closed;
    return;
  }
}

void HttpConnection::expire(Clock::time_point now) {
  const HttpOptions& o = *env_.options;
  switch (phase_) {
    case Phase::handshake:
      env_.admission->refused("header-timeout", remote_, "no TLS handshake within " + ms(o.header_timeout));
      phase_ = Phase::closed;
      return;
    case Phase::head:
      if (in_.empty()) {
        env_.admission->refused("header-timeout", remote_,
                                "no request within " + ms(o.header_timeout) + " of connecting");
        phase_ = Phase::closed;
        return;
      }
      refuse(json_error(408, "request_timeout",
                        "the request head did not arrive within http.header_timeout_ms (" + ms(o.header_timeout) + ")"),
             "header-timeout",
             "request head not complete within " + ms(o.header_timeout) + " (" + std::to_string(in_.size()) +
                 " bytes came)",
             now);
      break;
    case Phase::body:
      refuse(json_error(408, "request_timeout",
                        "the request body did not arrive within http.body_timeout_ms (" + ms(o.body_timeout) + ")"),
             "body-timeout", "request body not complete within " + ms(o.body_timeout), now);
      break;
    case Phase::writing:
      if (after_ == After::body) {
        env_.admission->refused("body-timeout", remote_, "request body not complete within " + ms(o.body_timeout));
      } else if (after_ == After::idle) {
        env_.admission->refused("write-timeout", remote_, "answer not taken within " + ms(o.write_timeout));
      }
      phase_ = Phase::closed;
      return;
    case Phase::idle:
    case Phase::lingering:
      phase_ = Phase::closed;
      return;
    case Phase::dispatched:
    case Phase::closed:
      return;
  }
  advance(now);
}

}  // namespace vasana
