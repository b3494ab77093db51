// `vasana keygen --out DIR` through the real binary: a loadable key pair, the secret file private,
// and an existing key never overwritten.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <string>

#include "sync/curve_keys.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {

TEST_CASE("keygen writes a private secret file and a public file, and refuses to overwrite them") {
  TempDir tmp;
  const std::string out = tmp.sub("keys");
  auto r = run_vasana({"keygen", "--out", out}, tmp.path());
  CAPTURE(r.status.describe(), r.out, r.err);
  REQUIRE(r.status.exited);
  REQUIRE(r.status.code == 0);

  auto pair = load_secret_key_file(out + "/node.secret");
  INFO(pair.status().to_string());
  REQUIRE(pair.ok());
  auto pub = load_public_key_file(out + "/node.public");
  REQUIRE(pub.ok());
  CHECK(*pub == pair->public_z85);
  CHECK(contains(r.out, "public key: " + pair->public_z85 + "\n"));
  CHECK(contains(r.out, out + "/node.secret"));
  CHECK(contains(r.out, out + "/node.public"));
  CHECK_FALSE(contains(r.out, pair->secret_z85));
  struct stat st;
  REQUIRE(::stat((out + "/node.secret").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  auto again = run_vasana({"keygen", "--out", out}, tmp.path());
  CAPTURE(again.out, again.err);
  CHECK(again.status.code == 1);
  CHECK(contains(again.err, "already exists"));
  CHECK(contains(again.err, out + "/node.secret"));
  auto still = load_secret_key_file(out + "/node.secret");
  REQUIRE(still.ok());
  CHECK(still->secret_z85 == pair->secret_z85);

  auto usage = run_vasana({"keygen"}, tmp.path());
  CHECK(usage.status.code == 2);
  CHECK(contains(usage.err, "--out DIR is required"));
}

}  // namespace vasana::test
