#include "frontends/http_request_parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace vasana {

namespace {

bool is_tchar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

// A field value's bytes: visible ASCII, space, tab and obs-text; no control byte, no DEL.
bool is_field_byte(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HeadParse refuse(int status, std::string message) {
  HeadParse p;
  p.state = HeadParse::State::refused;
  p.status = status;
  p.message = std::move(message);
  return p;
}

// Calls each(list element) for the comma-separated elements of a field value, trimmed, empty
// ones skipped.
template <class Each>
void for_each_element(std::string_view value, Each each) {
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = std::min(value.find(',', start), value.size());
    const std::string_view e = trim_ows(value.substr(start, comma - start));
    if (!e.empty()) each(e);
    start = comma + 1;
  }
}

// Fills request's path and params from its target; false when the target is not origin-form
// or does not decode.
bool split_target(HttpRequest& r) {
  if (r.target.empty() || r.target[0] != '/') return false;
  const size_t q = r.target.find('?');
  if (!percent_decode(std::string_view(r.target).substr(0, q), false, r.path)) return false;
  if (q == std::string::npos) return true;
  std::string_view query = std::string_view(r.target).substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key, value;
    if (!percent_decode(pair.substr(0, eq), true, key)) return false;
    if (eq != std::string_view::npos && !percent_decode(pair.substr(eq + 1), true, value)) return false;
    r.params.emplace_back(std::move(key), std::move(value));
  }
  return true;
}

// Checks the request line "METHOD SP TARGET SP HTTP/1.x" and fills head from it.
HeadParse request_line(std::string_view line, HttpHead& head) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return refuse(400, "the request line must be METHOD TARGET HTTP/1.1");
  const std::string_view method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1),
                         version = line.substr(sp2 + 1);
  if (!is_token(method)) return refuse(400, "the request method is not a token");
  for (unsigned char c : target)
    if (c <= 0x20 || c >= 0x7f) return refuse(400, "the request target has a byte outside visible ASCII");
  if (version == "HTTP/1.1") {
    head.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    head.minor_version = 0;
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[6] == '.' &&
             std::isdigit(static_cast<unsigned char>(version[5])) &&
             std::isdigit(static_cast<unsigned char>(version[7]))) {
    return refuse(505, "only HTTP/1.1 and HTTP/1.0 are served");
  } else {
    return refuse(400, "the request line must end in HTTP/1.1");
  }
  head.request.method = std::string(method);
  head.request.target = std::string(target);
  if (!split_target(head.request))
    return refuse(400, "the request target must be a path starting with '/' whose %-escapes decode");
  return HeadParse{};
}

// The meaning of the header fields for the body and the connection.
HeadParse framing(HttpHead& head) {
  const HttpRequest& r = head.request;
  bool has_length = false, has_te = false, close = false, keep_alive = false;
  std::string coding_error;
  size_t codings = 0;
  for (const HttpHeader& h : r.headers) {
    if (equals_ignore_case(h.name, "Content-Length")) {
      const std::string& v = h.value;
      if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
        return refuse(400, "Content-Length must be a decimal number");
      const uint64_t n = std::stoull(v);
      if (has_length && n != head.content_length)
        return refuse(400, "Content-Length is given twice, with different values");
      has_length = true;
      head.content_length = n;
    } else if (equals_ignore_case(h.name, "Transfer-Encoding")) {
      has_te = true;
      for_each_element(h.value, [&](std::string_view coding) {
        ++codings;
        if (!equals_ignore_case(coding, "chunked") && coding_error.empty()) coding_error = std::string(coding);
      });
    } else if (equals_ignore_case(h.name, "Connection")) {
      for_each_element(h.value, [&](std::string_view option) {
        close = close || equals_ignore_case(option, "close");
        keep_alive = keep_alive || equals_ignore_case(option, "keep-alive");
      });
    } else if (equals_ignore_case(h.name, "Expect")) {
      if (!equals_ignore_case(h.value, "100-continue"))
        return refuse(417, "the only expectation served is 100-continue");
      head.expect_continue = head.minor_version == 1;
    }
  }
  if (has_te) {
    if (head.minor_version == 0) return refuse(400, "Transfer-Encoding is not allowed in HTTP/1.0");
    if (has_length) return refuse(400, "a request may not have both Transfer-Encoding and Content-Length");
    if (!coding_error.empty())
      return refuse(501, "transfer coding '" + coding_error + "' is not supported (only chunked)");
    if (codings != 1) return refuse(400, "Transfer-Encoding must be chunked, once");
    head.chunked = true;
    head.content_length = 0;
  }
  head.keep_alive = head.minor_version == 1 ? !close : keep_alive && !close;
  if (!head.chunked && head.content_length == 0) head.expect_continue = false;
  return HeadParse{};
}

}  // namespace

bool percent_decode(std::string_view text, bool plus_is_space, std::string& out) {
  out.clear();
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return false;
      const int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = char(hi * 16 + lo);
      if (c == '\0') return false;
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    out += c;
  }
  return true;
}

HeadParse parse_request_head(std::string_view data, size_t max_head_bytes) {
  size_t pos = 0;
  while (data.size() - pos >= 2 && data[pos] == '\r' && data[pos + 1] == '\n') pos += 2;  // empty lines first
  HttpHead head;
  bool first = true;
  for (;;) {
    const size_t lf = data.find('\n', pos);
    if (lf == std::string_view::npos || lf >= max_head_bytes) {
      if (data.size() <= max_head_bytes) return HeadParse{};
      return first ? refuse(414, "the request line is longer than " + std::to_string(max_head_bytes) + " bytes")
                   : refuse(431, "the request head is longer than " + std::to_string(max_head_bytes) + " bytes");
    }
    if (lf == pos || data[lf - 1] != '\r') return refuse(400, "a line of the request head does not end in CRLF");
    const std::string_view line = data.substr(pos, lf - 1 - pos);
    pos = lf + 1;
    if (first) {
      HeadParse p = request_line(line, head);
      if (p.state == HeadParse::State::refused) return p;
      first = false;
      continue;
    }
    if (line.empty()) break;  // the blank line: the head is complete
    if (head.request.headers.size() >= 100) return refuse(431, "the request has more than 100 header fields");
    if (line[0] == ' ' || line[0] == '\t') return refuse(400, "obsolete line folding is not accepted");
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
      return refuse(400, "a header field must be NAME: VALUE, with no whitespace before the colon");
    const std::string_view value = line.substr(colon + 1);
    for (unsigned char c : value)
      if (!is_field_byte(c))
        return refuse(400, "header field '" + std::string(line.substr(0, colon)) + "' has a control byte in its value");
    head.request.headers.push_back(HttpHeader{std::string(line.substr(0, colon)), std::string(trim_ows(value))});
  }
  HeadParse p = framing(head);
  if (p.state == HeadParse::State::refused) return p;
  p.state = HeadParse::State::complete;
  p.consumed = pos;
  p.head = std::move(head);
  return p;
}

}  // namespace vasana
