#include "frontends/http_body_reader.hpp"

#include <algorithm>

namespace vasana {

namespace {

constexpr size_t kMaxChunkLine = 1024;      // a chunk-size line with its extensions
constexpr size_t kMaxTrailerBytes = 16384;  // every trailer line together

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool has_control_byte(std::string_view s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return true;
  return false;
}

}  // namespace

HttpBodyReader::HttpBodyReader(bool chunked, uint64_t content_length, size_t max_bytes)
    : chunked_(chunked), max_bytes_(max_bytes) {
  if (chunked_) return;
  if (content_length > max_bytes_) {
    state_ = State::too_large;
    return;
  }
  remaining_ = content_length;
  body_.reserve(size_t(content_length));
  if (remaining_ == 0) state_ = State::done;
}

void HttpBodyReader::size_line_done() {
  // line_ is "HEX[ext]" (its CRLF removed).
  size_t i = 0;
  uint64_t size = 0;
  for (; i < line_.size() && hex_digit(line_[i]) >= 0; ++i) {
    if (i >= 15) return fail("a chunk size has more than 15 hex digits");
    size = size * 16 + uint64_t(hex_digit(line_[i]));
  }
  if (i == 0) return fail("a chunk does not start with its size in hex");
  const size_t ext = line_.find_first_not_of(" \t", i);
  if (ext != std::string::npos && line_[ext] != ';')
    return fail("a chunk size is followed by something other than an extension");
  if (has_control_byte(line_)) return fail("a chunk size line has a control byte");
  line_.clear();
  if (size == 0) {
    step_ = Step::trailer;
    return;
  }
  if (size > max_bytes_ - body_.size()) {
    state_ = State::too_large;
    return;
  }
  remaining_ = size;
  step_ = Step::data;
}

size_t HttpBodyReader::feed(std::string_view data) {
  size_t used = 0;
  if (!chunked_) {
    if (state_ != State::more) return 0;
    const size_t n = size_t(std::min<uint64_t>(remaining_, data.size()));
    body_.append(data.data(), n);
    remaining_ -= n;
    if (remaining_ == 0) state_ = State::done;
    return n;
  }
  while (state_ == State::more && used < data.size()) {
    switch (step_) {
      case Step::data: {
        const size_t n = size_t(std::min<uint64_t>(remaining_, data.size() - used));
        body_.append(data.data() + used, n);
        used += n;
        remaining_ -= n;
        if (remaining_ == 0) step_ = Step::data_end;
        break;
      }
      case Step::data_end: {
        // The CRLF after a chunk's data, possibly split across reads.
        line_ += data[used++];
        if (line_.size() == 2) {
          if (line_ != "\r\n") {
            fail("a chunk's data is not followed by CRLF");
            return used;
          }
          line_.clear();
          step_ = Step::size_line;
        } else if (line_[0] != '\r') {
          {
            fail("a chunk's data is not followed by CRLF");
            return used;
          }
        }
        break;
      }
      case Step::size_line:
      case Step::trailer: {
        const size_t lf = data.find('\n', used);
        const size_t end = lf == std::string_view::npos ? data.size() : lf + 1;
        line_.append(data.data() + used, end - used);
        if (step_ == Step::trailer) trailer_bytes_ += end - used;
        used = end;
        if (step_ == Step::size_line && line_.size() > kMaxChunkLine) {
          fail("a chunk size line is too long");
          return used;
        }
        if (step_ == Step::trailer && trailer_bytes_ > kMaxTrailerBytes) {
          fail("the chunked trailer is too long");
          return used;
        }
        if (lf == std::string_view::npos) break;
        if (line_.size() < 2 || line_[line_.size() - 2] != '\r') {
          fail("a line of the chunked body does not end in CRLF");
          return used;
        }
        line_.resize(line_.size() - 2);
        if (step_ == Step::size_line) {
          size_line_done();
        } else if (line_.empty()) {
          state_ = State::done;  // the blank line after the last chunk (and any trailer fields)
        } else {
          if (has_control_byte(line_)) {
            fail("a trailer field has a control byte");
            return used;
          }
          line_.clear();
        }
        break;
      }
    }
  }
  return used;
}

}  // namespace vasana
