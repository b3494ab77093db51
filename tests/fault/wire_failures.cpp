#include "tests/fault/wire_failures.hpp"

#include <catch2/catch.hpp>

namespace vasana::test {

WireFailures wire_failures(TestCluster& c, size_t i) {
  auto st = c.status(i);
  INFO("status of node " << i);
  REQUIRE(st.ok());
  WireFailures out;
  for (const ConnectionFailure& f : st->connection_failures) out[{f.peer, f.side, f.reason}] = f.count;
  for (const auto& [reason, n] : st->handshake_failures) out[{"", "port", "handshake-" + reason}] = n;
  return out;
}

WireFailures wire_failures_since(const WireFailures& before, const WireFailures& now) {
  WireFailures grown;
  for (const auto& [key, n] : now) {
    auto it = before.find(key);
    const uint64_t was = it == before.end() ? 0 : it->second;
    if (n > was) grown[key] = n - was;
  }
  return grown;
}

uint64_t wire_failures_total(const WireFailures& f, const std::string& side) {
  uint64_t sum = 0;
  for (const auto& [key, n] : f)
    if (side.empty() || std::get<1>(key) == side) sum += n;
  return sum;
}

std::string describe(const WireFailures& f) {
  std::string out;
  for (const auto& [key, n] : f) {
    if (!out.empty()) out += "; ";
    out += (std::get<0>(key).empty() ? std::string("(no peer)") : std::get<0>(key)) + " " + std::get<1>(key) + " " +
           std::get<2>(key) + " " + std::to_string(n);
  }
  return out.empty() ? "none" : out;
}

}  // namespace vasana::test
