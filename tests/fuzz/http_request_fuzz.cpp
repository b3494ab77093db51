// Fuzz target: the bytes of an HTTP connection through the node's HTTP request parser and body
// reader (frontends/http_request_parser.hpp, frontends/http_body_reader.hpp), as the server's event loop
// takes them off a socket before it authenticates anything.
//
// Input: what a client sends on a connection: a request head, then whatever follows it
// (corpus/http_request holds heads with Content-Length and chunked bodies, pipelined requests).
//
// Invariants checked, beyond "no crash, no sanitizer report":
// - a complete head ends at its blank line, and no shorter prefix of it is complete;
// - a refused head has one of the statuses the server answers it with;
// - an accepted head's field values hold no control byte and no surrounding whitespace, its path
//   starts with '/' and holds no NUL, and it is never both chunked and of a declared length;
// - the body reader never takes more than it is given nor holds more than its limit, and it
//   reaches the same state, body and byte count whether the bytes come at once or one by one.
#include <string>

#include "frontends/http_body_reader.hpp"
#include "frontends/http_request_parser.hpp"
#include "fuzz_check.hpp"

namespace vasana {
namespace {

constexpr size_t kMaxHead = 16384;
constexpr size_t kMaxBody = 4096;

void check_head(const HeadParse& p, std::string_view data) {
  const HttpHead& h = p.head;
  FUZZ_CHECK(p.consumed >= 4 && p.consumed <= data.size(), "consumed " + std::to_string(p.consumed));
  FUZZ_CHECK(data.substr(p.consumed - 4, 4) == "\r\n\r\n", "a head that does not end at a blank line");
  FUZZ_CHECK(parse_request_head(data.substr(0, p.consumed - 1), kMaxHead).state != HeadParse::State::complete,
             "a prefix of the head is complete too");
  FUZZ_CHECK(!h.request.method.empty(), "an empty method");
  FUZZ_CHECK(!h.request.path.empty() && h.request.path[0] == '/', "path " + h.request.path);
  FUZZ_CHECK(h.request.path.find('\0') == std::string::npos, "a NUL in the path");
  FUZZ_CHECK(!(h.chunked && h.content_length > 0), "chunked with a declared length");
  for (const HttpHeader& f : h.request.headers) {
    FUZZ_CHECK(!f.name.empty(), "an empty field name");
    for (unsigned char c : f.value) FUZZ_CHECK(c == '\t' || (c >= 0x20 && c != 0x7f), "a control byte in " + f.name);
    if (!f.value.empty()) {
      FUZZ_CHECK(f.value.front() != ' ' && f.value.front() != '\t', "whitespace before the value of " + f.name);
      FUZZ_CHECK(f.value.back() != ' ' && f.value.back() != '\t', "whitespace after the value of " + f.name);
    }
  }
}

void check_body(const HttpHead& h, std::string_view rest) {
  HttpBodyReader whole(h.chunked, h.content_length, kMaxBody);
  const size_t used = whole.feed(rest);
  FUZZ_CHECK(used <= rest.size(), "took more than it was given");
  HttpBodyReader bytewise(h.chunked, h.content_length, kMaxBody);
  size_t used_bytewise = 0;
  for (size_t i = 0; i < rest.size() && bytewise.state() == HttpBodyReader::State::more; ++i)
    used_bytewise += bytewise.feed(rest.substr(i, 1));
  FUZZ_CHECK(whole.state() == bytewise.state(), "the state depends on how the bytes were split");
  if (whole.state() != HttpBodyReader::State::done) return;
  FUZZ_CHECK(used == used_bytewise, "the body's length depends on how the bytes were split");
  const std::string a = whole.take_body(), b = bytewise.take_body();
  FUZZ_CHECK(a == b, "the body depends on how the bytes were split");
  FUZZ_CHECK(a.size() <= kMaxBody, "a body past its limit: " + std::to_string(a.size()));
  if (!h.chunked) FUZZ_CHECK(a.size() == h.content_length, "a body not of its declared length");
}

}  // namespace
}  // namespace vasana

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vasana;
  const std::string_view in = fuzz::bytes_of(data, size);
  const HeadParse p = parse_request_head(in, kMaxHead);
  switch (p.state) {
    case HeadParse::State::incomplete:
      FUZZ_CHECK(in.size() <= kMaxHead, "incomplete past the head limit");
      break;
    case HeadParse::State::refused:
      FUZZ_CHECK(p.status == 400 || p.status == 414 || p.status == 417 || p.status == 431 || p.status == 501 ||
                     p.status == 505,
                 "status " + std::to_string(p.status));
      break;
    case HeadParse::State::complete:
      check_head(p, in);
      check_body(p.head, in.substr(p.consumed));
      break;
  }
  return 0;
}
