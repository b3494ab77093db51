// The web console's files as the server answers them: from the binary, without a token, kept to
// their own origin.
#include <catch2/catch.hpp>

#include "frontends/embedded_files.hpp"

using namespace vasana;

TEST_CASE("The console's files are answered from the binary with a same-origin policy") {
  auto index = console_file_response("GET", "/ui/");
  REQUIRE(index);
  CHECK(index->status == 200);
  CHECK(index->content_type.rfind("text/html", 0) == 0);
  CHECK(index->body.find("<html") != std::string::npos);
  bool csp = false;
  for (const auto& h : index->headers) csp = csp || (h.name == "Content-Security-Policy" && h.value.find("default-src 'self'") == 0);
  CHECK(csp);
  auto same = console_file_response("GET", "/ui");
  REQUIRE(same);
  CHECK(same->body == index->body);
  auto script = console_file_response("HEAD", "/ui/console.js");
  REQUIRE(script);
  CHECK(script->status == 200);
  CHECK(script->content_type.rfind("text/javascript", 0) == 0);

  auto missing = console_file_response("GET", "/ui/../v1/status");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  auto posted = console_file_response("POST", "/ui/index.html");
  REQUIRE(posted);
  CHECK(posted->status == 405);
  auto icon = console_file_response("GET", "/favicon.ico");
  REQUIRE(icon);
  CHECK(icon->status == 404);
  CHECK_FALSE(console_file_response("GET", "/v1/status"));
  CHECK_FALSE(console_file_response("GET", "/uix"));
}
