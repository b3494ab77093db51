// The head of an HTTP/1.1 request (request line and header fields, RFC 9112), parsed from the
// bytes a connection has read so far: incomplete until the blank line that ends it arrives,
// then complete or refused with the status to answer. Strict where leniency lets a request mean
// two things: a field value with a control byte (NUL, a bare CR, ...) or an obsolete line fold,
// whitespace before a field's colon, Transfer-Encoding with Content-Length, differing
// Content-Lengths and a transfer coding other than chunked are refused, never repaired.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frontends/http_message.hpp"

namespace vasana {

// What the head says about the body and the connection.
struct HttpHead {
  HttpRequest request;           // method, target, path, params, headers; body empty
  int minor_version = 1;         // HTTP/1.0 or HTTP/1.1
  bool keep_alive = true;        // the connection may carry another request afterwards
  bool chunked = false;          // Transfer-Encoding: chunked
  uint64_t content_length = 0;   // the body's length when not chunked (0: no body)
  bool expect_continue = false;  // Expect: 100-continue (HTTP/1.1)
};

struct HeadParse {
  enum class State { incomplete, complete, refused };
  State state = State::incomplete;
  size_t consumed = 0;  // complete: the bytes of the head, its blank line included
  int status = 0;       // refused: 400, 414, 417, 431, 501 or 505
  std::string message;  // refused: what is wrong, for the answer
  HttpHead head;        // complete
};

// Parses the head at the start of data. Incomplete while data holds no blank line within
// max_head_bytes (empty lines before the request line are skipped); past that, refused 431 (or
// 414 when the request line alone is that long).
HeadParse parse_request_head(std::string_view data, size_t max_head_bytes);

// Percent-decodes text ("%2F" -> "/"); plus_is_space also turns '+' into ' ' (query strings).
// False for a '%' not followed by two hex digits, or a decoded NUL.
bool percent_decode(std::string_view text, bool plus_is_space, std::string& out);

}  // namespace vasana
