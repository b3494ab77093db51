// The HTTP request head parser (frontends/http_request_parser.hpp) and body reader
// (frontends/http_body_reader.hpp) on their own: what they accept, what they refuse with which status,
// and that a body never grows past its limit.
#include <catch2/catch.hpp>

#include <string>

#include "frontends/http_body_reader.hpp"
#include "frontends/http_request_parser.hpp"

namespace vasana::test {
namespace {

using namespace std::string_literals;

HeadParse parse(const std::string& head) { return parse_request_head(head, 16384); }

int refused_status(const std::string& head) {
  const HeadParse p = parse(head);
  INFO(head);
  REQUIRE(p.state == HeadParse::State::refused);
  return p.status;
}

}  // namespace

TEST_CASE("a request head is parsed once its blank line is there: method, path, decoded params, headers, framing") {
  const std::string head =
      "\r\nGET /v1/memories/a%2Db?realm=notes&tag=x+y&tag=z&flag HTTP/1.1\r\nHost: t\r\nX-Pad:  v  \r\n\r\nBODY";
  CHECK(parse(head.substr(0, 30)).state == HeadParse::State::incomplete);
  const HeadParse p = parse(head);
  REQUIRE(p.state == HeadParse::State::complete);
  CHECK(p.consumed == head.size() - 4);
  const HttpRequest& r = p.head.request;
  CHECK(r.method == "GET");
  CHECK(r.path == "/v1/memories/a-b");
  CHECK(r.param("realm") == "notes");
  CHECK(r.param_count("tag") == 2);
  CHECK(r.param("tag", 0) == "x y");
  CHECK(r.has_param("flag"));
  CHECK(*r.header("x-pad") == "v");
  CHECK(p.head.keep_alive);
  CHECK(p.head.content_length == 0);

  const HeadParse post = parse("POST / HTTP/1.0\r\nContent-Length: 12\r\nConnection: keep-alive\r\n\r\n");
  REQUIRE(post.state == HeadParse::State::complete);
  CHECK(post.head.content_length == 12);
  CHECK(post.head.keep_alive);
  const HeadParse chunked = parse("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
  REQUIRE(chunked.state == HeadParse::State::complete);
  CHECK(chunked.head.chunked);
  CHECK(chunked.head.expect_continue);
  CHECK_FALSE(chunked.head.keep_alive);
}

TEST_CASE("a request head that could mean two things, or carries control bytes, is refused with its status") {
  CHECK(refused_status("GET / HTTP/1.1\r\nAuthorization: Bearer abc\0\r\n\r\n"s) == 400);
  CHECK(refused_status("GET / HTTP/1.1\r\nAuthorization: Bearer abc\r\r\n\r\n") == 400);
  CHECK(refused_status("GET / HTTP/1.1\r\nX: a\x01" "b\r\n\r\n") == 400);
  CHECK(refused_status("GET / HTTP/1.1\nHost: t\r\n\r\n") == 400);           // a bare LF
  CHECK(refused_status("GET / HTTP/1.1\r\nHost : t\r\n\r\n") == 400);         // space before the colon
  CHECK(refused_status("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n") == 400);  // obsolete folding
  CHECK(refused_status("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
  CHECK(refused_status("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n") == 400);
  CHECK(refused_status("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n") == 400);
  CHECK(refused_status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 501);
  CHECK(refused_status("GET / HTTP/2.0\r\n\r\n") == 505);
  CHECK(refused_status("GET http://h/ HTTP/1.1\r\n\r\n") == 400);
  CHECK(refused_status("GET /a%zz HTTP/1.1\r\n\r\n") == 400);
  CHECK(refused_status("GET /a%00 HTTP/1.1\r\n\r\n") == 400);
  CHECK(refused_status("GET / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n") == 417);
  CHECK(refused_status("GET /" + std::string(17000, 'a') + " HTTP/1.1\r\n\r\n") == 414);
  CHECK(refused_status("GET / HTTP/1.1\r\nX: " + std::string(17000, 'a') + "\r\n\r\n") == 431);
  // Identical repeated lengths are one length (positive control).
  CHECK(parse("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n").state == HeadParse::State::complete);
}

TEST_CASE("a Content-Length body is taken to its length and no further, and one over the limit is refused unread") {
  HttpBodyReader r(false, 5, 100);
  CHECK(r.feed("he") == 2);
  CHECK(r.state() == HttpBodyReader::State::more);
  CHECK(r.feed("lloGET /") == 3);  // the rest is the next request's
  REQUIRE(r.state() == HttpBodyReader::State::done);
  CHECK(r.take_body() == "hello");
  HttpBodyReader big(false, 101, 100);
  CHECK(big.state() == HttpBodyReader::State::too_large);
  CHECK(big.feed("x") == 0);
}

TEST_CASE("a chunked body is decoded across any split, extensions and trailers dropped, capped as it arrives") {
  const std::string wire = "4;name=v\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  for (size_t step : {size_t(1), size_t(3), wire.size()}) {
    INFO("pieces of " << step);
    HttpBodyReader r(true, 0, 1000);
    size_t used = 0;
    for (size_t at = 0; at < wire.size() && r.state() == HttpBodyReader::State::more; at += step)
      used += r.feed(std::string_view(wire).substr(at, step));
    REQUIRE(r.state() == HttpBodyReader::State::done);
    CHECK(used == wire.size() - 4);
    CHECK(r.take_body() == "Wikipedia in\r\n\r\nchunks.");
  }
  // Past the limit: refused on the chunk size, before its data.
  HttpBodyReader capped(true, 0, 10);
  CHECK(capped.feed("8\r\n12345678\r\n8\r\n") > 0);
  CHECK(capped.state() == HttpBodyReader::State::too_large);
  // Malformed chunks.
  for (const char* bad : {"zz\r\nab\r\n", "2\r\nabX\r\n", "2 x\r\nab\r\n", "1234567890abcdef0\r\n", "2\nab\r\n"}) {
    INFO(bad);
    HttpBodyReader r(true, 0, 1 << 20);
    r.feed(bad);
    CHECK(r.state() == HttpBodyReader::State::bad);
  }
}

}  // namespace vasana::test
