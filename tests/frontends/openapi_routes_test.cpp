// The OpenAPI document built into the binary against the router's table, both ways.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "frontends/embedded_files.hpp"
#include "frontends/http_router.hpp"
#include "frontends/http_routes.hpp"

using namespace vasana;
using nlohmann::json;

namespace {

// "/v1/memories/([^/]+)/update" -> "/v1/memories/{}/update"; "/v1/memories/{id}" -> "/v1/memories/{}".
std::string normalized(const std::string& path) {
  static const std::regex group(R"(\(\[\^/\]\+\))");
  static const std::regex param(R"(\{[^}]*\})");
  return std::regex_replace(std::regex_replace(path, group, "{}"), param, "{}");
}

std::set<std::string> router_operations() {
  HttpRouter router;
  auto keep = add_http_routes(router, HttpRouteEnv{});
  std::set<std::string> out;
  for (const auto& [method, pattern] : router.table()) out.insert(method + " " + normalized(pattern));
  return out;
}

std::set<std::string> document_operations(const json& doc) {
  std::set<std::string> out;
  for (const auto& [path, item] : doc.at("paths").items())
    for (const auto& [key, op] : item.items()) {
      static const std::set<std::string> methods{"get", "put", "post", "delete", "patch", "head", "options"};
      if (!methods.count(key)) continue;
      std::string upper = key;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out.insert(upper + " " + normalized(path));
    }
  return out;
}

}  // namespace

TEST_CASE("The OpenAPI document names every route the server has and no other") {
  const EmbeddedFile* file = find_embedded_file("/v1/openapi.json");
  REQUIRE(file != nullptr);
  REQUIRE(file->content_type == "application/json");
  const json doc = json::parse(file->bytes);
  REQUIRE(doc.at("openapi").get<std::string>().rfind("3.1", 0) == 0);

  const std::set<std::string> routes = router_operations();
  const std::set<std::string> documented = document_operations(doc);
  REQUIRE(routes.size() > 20);  // positive control: the table was read
  REQUIRE(routes.count("GET /v1/openapi.json") == 1);
  REQUIRE(routes.count("POST /v1/memories/{}/update") == 1);
  for (const std::string& r : routes) {
    INFO("a route the server answers but the document lacks: " << r);
    CHECK(documented.count(r) == 1);
  }
  for (const std::string& d : documented) {
    INFO("a documented operation the server has no route for: " << d);
    CHECK(routes.count(d) == 1);
  }
  // Negative control: the comparison tells a missing route apart.
  std::set<std::string> fewer = documented;
  fewer.erase("POST /v1/remember");
  REQUIRE(fewer != routes);
}
