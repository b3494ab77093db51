// cli/bounded_json and cli/bounded_line_reader: the depth scan counts only structural brackets,
// parse_bounded_json refuses what nests too deep and says why text is not JSON, and the line
// reader returns lines whole up to its bound and skips longer ones to their end.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "frontends/bounded_json.hpp"
#include "frontends/bounded_line_reader.hpp"
#include "frontends/jsonl_memory.hpp"

namespace vasana {
namespace {

using Got = BoundedLineReader::Got;

TEST_CASE("the depth scan counts brackets outside strings only") {
  CHECK(json_nesting_depth("", 64) == 0);
  CHECK(json_nesting_depth("42", 64) == 0);
  CHECK(json_nesting_depth(R"({"a":[1,{"b":[]}],"c":{}})", 64) == 4);
  CHECK(json_nesting_depth(R"(["[[[[", "\"[[[", "\\", [1]])", 64) == 2);
  CHECK(json_nesting_depth(R"({"k\"{[": "]]]}}}"})", 64) == 1);
  // Counting stops past the limit: a deep text costs no more than its first limit + 1 levels.
  CHECK(json_nesting_depth(std::string(100000, '['), 64) == 65);
}

TEST_CASE("parse_bounded_json takes 64 levels, refuses 65, and says where text is not JSON") {
  auto nested = [](size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  auto ok = parse_bounded_json(nested(kMaxJsonDepth));
  REQUIRE(ok.ok());
  CHECK(ok->is_array());
  auto deep = parse_bounded_json(nested(kMaxJsonDepth + 1));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().code() == Code::invalid_argument);
  CHECK(deep.status().message() == "nested deeper than 64 levels of arrays and objects");
  auto bad = parse_bounded_json("{\"a\": tru}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().rfind("not valid JSON (at byte 10: syntax error while parsing value", 0) == 0);
  CHECK_FALSE(parse_bounded_json("").ok());
  CHECK(parse_bounded_json(R"({"s": "[[[[[[[["})")->at("s") == "[[[[[[[[");
}

TEST_CASE("an import line nested 100,000 levels deep is refused as bad input") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& line : {R"({"text":"t","ref":"r","tags":)" + deep + "}", R"({"text":"t","ref":"r","x":)" + deep + "}"}) {
    auto m = memory_from_json_line(line, "realm", InputLimits{});
    REQUIRE_FALSE(m.ok());
    CHECK(m.status().message() == "nested deeper than 64 levels of arrays and objects");
  }
  auto good = memory_from_json_line(R"({"text":"t","ref":"r","tags":["a"]})", "realm", InputLimits{});
  REQUIRE(good.ok());
  CHECK(good->tags == std::vector<std::string>{"a"});
}

TEST_CASE("the line reader returns lines whole up to its bound, across pieces, and the last one without a newline") {
  const std::string long_line(200000, 'a');  // longer than one 64 KiB piece, within the bound
  std::istringstream in("one\n\n" + long_line + "\nlast");
  BoundedLineReader r(in, 300000);
  std::string line;
  REQUIRE(r.next(line) == Got::line);
  CHECK(line == "one");
  REQUIRE(r.next(line) == Got::line);
  CHECK(line.empty());
  REQUIRE(r.next(line) == Got::line);
  CHECK(line == long_line);
  CHECK(r.length() == long_line.size());
  REQUIRE(r.next(line) == Got::line);
  CHECK(line == "last");
  CHECK(r.number() == 4);
  CHECK(r.next(line) == Got::end);
  CHECK(r.next(line) == Got::end);
}

TEST_CASE("the line reader skips a line over its bound to its end and goes on after it") {
  const size_t bound = 100000;
  std::istringstream in(std::string(bound, 'x') + "\n" + std::string(bound + 1, 'y') + "\n" + std::string(5 * bound, 'z') +
                        "\nafter\n" + std::string(bound + 7, 'w'));
  BoundedLineReader r(in, bound);
  std::string line;
  REQUIRE(r.next(line) == Got::line);  // exactly the bound: whole
  CHECK(line.size() == bound);
  REQUIRE(r.next(line) == Got::too_long);
  CHECK(line.empty());
  CHECK(r.length() == bound + 1);
  CHECK(r.too_long_status().message() == "line of 100001 bytes is over the limit of 100000");
  REQUIRE(r.next(line) == Got::too_long);
  CHECK(r.length() == 5 * bound);
  CHECK(line.capacity() <= bound);  // what was read of it was given back
  REQUIRE(r.next(line) == Got::line);
  CHECK(line == "after");
  CHECK(r.number() == 4);
  REQUIRE(r.next(line) == Got::too_long);  // a last line without a newline, too long
  CHECK(r.length() == bound + 7);
  CHECK(r.next(line) == Got::end);
}

}  // namespace
}  // namespace vasana
