// The failed-login throttle (frontends/http_auth_throttle.hpp) and the bearer check
// (frontends/bearer_auth.hpp) on their own, with a fake clock.
#include <catch2/catch.hpp>

#include <chrono>

#include "frontends/bearer_auth.hpp"
#include "frontends/http_auth_throttle.hpp"

namespace vasana::test {

using std::chrono::seconds;

TEST_CASE("an address is refused for one window once it reaches the failure limit within a window") {
  AuthThrottle::Clock::time_point now{};
  AuthThrottle t(3, seconds(60), 4096, [&] { return now; });
  CHECK(t.failed("a") == 1);
  now += seconds(30);
  CHECK(t.failed("a") == 2);
  CHECK(t.refused_for("a") == seconds(0));
  now += seconds(40);  // the first window has passed: counting starts again
  CHECK(t.failed("a") == 1);
  CHECK(t.failed("a") == 2);
  CHECK(t.failed("a") == 3);
  CHECK(t.refused_for("a") == seconds(60));
  CHECK(t.refused_for("b") == seconds(0));  // another address is not affected
  now += seconds(59) + std::chrono::milliseconds(500);
  CHECK(t.refused_for("a") == seconds(1));
  now += seconds(1);
  CHECK(t.refused_for("a") == seconds(0));
}

TEST_CASE("the throttle remembers at most its bound of addresses, and forgets a refused one last") {
  AuthThrottle::Clock::time_point now{};
  AuthThrottle t(2, seconds(60), 3, [&] { return now; });
  t.failed("r");
  t.failed("r");  // refused
  now += seconds(1);
  t.failed("b");
  now += seconds(1);
  t.failed("c");
  now += seconds(1);
  t.failed("d");  // the table is full: the oldest address not refused (b) goes
  CHECK(t.addresses() == 3);
  CHECK(t.refused_for("r") > seconds(0));
  CHECK(t.failed("c") == 2);  // c was kept
  CHECK(t.failed("b") == 1);  // b was forgotten: it starts again (and d goes)
  CHECK(t.refused_for("r") > seconds(0));
}

TEST_CASE("a bearer token matches only byte for byte, after the scheme in any case") {
  ClientGrants clients;
  ClientGrant a;
  a.name = "a";
  a.token = std::string(40, 'k');
  clients.add(a);
  auto check = [&](const std::string& value) {
    HttpRequest r;
    r.headers.push_back(HttpHeader{"Authorization", value});
    return bearer_client(r, clients).client;
  };
  CHECK(check("Bearer " + std::string(40, 'k')) != nullptr);
  CHECK(check("BEARER   " + std::string(40, 'k')) != nullptr);
  CHECK(check("Bearer " + std::string(40, 'k') + std::string(1, '\0')) == nullptr);
  CHECK(check("Bearer " + std::string(20, 'k') + " " + std::string(20, 'k')) == nullptr);
  CHECK(check("Bearer " + std::string(40, 'k') + "\r") == nullptr);
  CHECK(check("Basic " + std::string(40, 'k')) == nullptr);
  CHECK(check("Bearer") == nullptr);
  HttpRequest two;
  two.headers = {{"Authorization", "Bearer " + std::string(40, 'k')}, {"authorization", "Bearer x"}};
  CHECK(bearer_client(two, clients).client == nullptr);
  CHECK(bearer_client(HttpRequest{}, clients).client == nullptr);
}

}  // namespace vasana::test
