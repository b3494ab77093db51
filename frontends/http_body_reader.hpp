// A request body taken off a connection's bytes as they arrive, after its head
// (frontends/http_request_parser.hpp) was admitted: a Content-Length body up to its length, or a
// chunked body decoded chunk by chunk (chunk extensions and trailer fields read and dropped).
// The body never grows past max_bytes: a declared length or a chunk size that would take it
// past is too_large as soon as it is read, before the bytes it announces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vasana {

class HttpBodyReader {
 public:
  enum class State { more, done, too_large, bad };

  HttpBodyReader(bool chunked, uint64_t content_length, size_t max_bytes);

  // Takes from the front of data what belongs to the body and returns how many bytes that is:
  // everything while the body needs more, less once it is done (what follows is the next
  // request's). Nothing after too_large or bad.
  size_t feed(std::string_view data);

  State state() const { return state_; }
  const std::string& error() const { return error_; }   // bad: what was wrong
  std::string take_body() { return std::move(body_); }  // once done

 private:
  enum class Step { size_line, data, data_end, trailer };
  void size_line_done();
  void fail(std::string why) {
    state_ = State::bad;
    error_ = std::move(why);
  }

  const bool chunked_;
  const size_t max_bytes_;
  State state_ = State::more;
  Step step_ = Step::size_line;
  uint64_t remaining_ = 0;  // of the Content-Length body, or of the current chunk
  std::string line_;        // a chunk-size or trailer line read so far
  size_t trailer_bytes_ = 0;
  std::string body_;
  std::string error_;
};

}  // namespace vasana
