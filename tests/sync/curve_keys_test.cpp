// CurveZMQ key files (sync/curve_keys.hpp): what is saved loads back, nothing is overwritten,
// and every bad file is refused with a message that names the file and what is wrong.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "store/file_io.hpp"
#include "sync/curve_keys.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

CurveKeyPair fresh_keys() {
  auto keys = generate_curve_keys();
  INFO(keys.status().to_string());
  REQUIRE(keys.ok());
  return keys.value();
}

// A secret file with the given lines, mode 0600.
std::string secret_file(const TempDir& tmp, const std::string& name, const std::string& text) {
  std::string path = tmp.sub(name);
  write_file(path, text);
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  return path;
}

}  // namespace

TEST_CASE("generated keys are two different 40-character Z85 keys and the public one derives from the secret") {
  CurveKeyPair k = fresh_keys();
  CHECK(k.public_z85.size() == 40);
  CHECK(k.secret_z85.size() == 40);
  CHECK(k.public_z85 != k.secret_z85);
  CHECK(check_curve_key_z85(k.public_z85).ok());
  CHECK(check_curve_key_z85(k.secret_z85).ok());
  auto derived = curve_public_key_of(k.secret_z85);
  REQUIRE(derived.ok());
  CHECK(*derived == k.public_z85);
  CHECK(fresh_keys().public_z85 != k.public_z85);
}

TEST_CASE("saved keys load back unchanged, the secret file with mode 0600") {
  TempDir tmp;
  CurveKeyPair k = fresh_keys();
  const std::string sec = tmp.sub("node.secret"), pub = tmp.sub("node.public");
  Status s = save_curve_keys(k, sec, pub);
  INFO(s.to_string());
  REQUIRE(s.ok());
  CHECK(mode_of(sec) == 0600);
  CHECK(mode_of(pub) == 0644);

  auto loaded = load_secret_key_file(sec);
  INFO(loaded.status().to_string());
  REQUIRE(loaded.ok());
  CHECK(loaded->public_z85 == k.public_z85);
  CHECK(loaded->secret_z85 == k.secret_z85);
  auto loaded_pub = load_public_key_file(pub);
  REQUIRE(loaded_pub.ok());
  CHECK(*loaded_pub == k.public_z85);

  // The public file never holds the secret; no temporary file is left behind.
  auto pub_text = read_whole_file(pub);
  REQUIRE(pub_text.ok());
  CHECK_FALSE(contains(*pub_text, k.secret_z85));
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) entries += e.is_regular_file();
  CHECK(entries == 2);
}

TEST_CASE("saving refuses to overwrite an existing key file and writes nothing") {
  TempDir tmp;
  const std::string sec = tmp.sub("node.secret"), pub = tmp.sub("node.public");
  CurveKeyPair first = fresh_keys();
  REQUIRE(save_curve_keys(first, sec, pub).ok());

  Status again = save_curve_keys(fresh_keys(), sec, pub);
  CHECK(again.code() == Code::failed_precondition);
  CHECK(contains(again.message(), sec));
  CHECK(contains(again.message(), "already exists"));
  auto still = load_secret_key_file(sec);
  REQUIRE(still.ok());
  CHECK(still->secret_z85 == first.secret_z85);

  // Only the public file exists: the secret file is not written either.
  const std::string sec2 = tmp.sub("other.secret");
  Status half = save_curve_keys(fresh_keys(), sec2, pub);
  CHECK(half.code() == Code::failed_precondition);
  CHECK(contains(half.message(), pub));
  CHECK_FALSE(std::filesystem::exists(sec2));
}

TEST_CASE("a secret key file readable by group or others is refused with its mode named") {
  TempDir tmp;
  CurveKeyPair k = fresh_keys();
  const std::string sec = tmp.sub("node.secret");
  REQUIRE(save_curve_keys(k, sec, tmp.sub("node.public")).ok());
  REQUIRE(::chmod(sec.c_str(), 0644) == 0);
  auto r = load_secret_key_file(sec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::failed_precondition);
  CHECK(contains(r.status().message(), sec));
  CHECK(contains(r.status().message(), "mode 0644"));
  CHECK_FALSE(contains(r.status().message(), k.secret_z85));

  REQUIRE(::chmod(sec.c_str(), 0640) == 0);
  CHECK(contains(load_secret_key_file(sec).status().message(), "mode 0640"));
  REQUIRE(::chmod(sec.c_str(), 0400) == 0);
  CHECK(load_secret_key_file(sec).ok());
}

TEST_CASE("bad key text is refused with the file, the line and what is wrong") {
  TempDir tmp;
  CurveKeyPair k = fresh_keys();
  const std::string good_pub = "public = \"" + k.public_z85 + "\"\n";
  const std::string good_sec = "secret = \"" + k.secret_z85 + "\"\n";

  struct Case {
    std::string text;
    std::string needle;
  };
  const Case cases[] = {
      {"", "no public key"},
      {"# only a comment\n" + good_pub, "no secret key"},
      {good_pub + "secret = \"" + k.secret_z85.substr(0, 39) + "\"\n", "secret key is 39 characters long"},
      {good_pub + "secret = \"" + k.secret_z85 + "xyz\"\n", "secret key is 43 characters long"},
      {good_pub + "secret = \"" + k.secret_z85.substr(0, 10) + "~" + k.secret_z85.substr(11) + "\"\n",
       "'~' at position 11, which is not a Z85 character"},
      {good_pub + "secret = " + k.secret_z85 + "\n", "line 2: the value of secret must be in double quotes"},
      {good_pub + good_sec + good_sec, "line 3: secret is given twice"},
      {good_pub + "private = \"x\"\n" + good_sec, "line 2: unknown name 'private'"},
      {good_pub + "just words\n" + good_sec, "line 2: expected name = \"key\""},
      {"public = \"" + fresh_keys().public_z85 + "\"\n" + good_sec, "not the one the secret key derives"},
      // 5 characters of Z85 can exceed 32 bits: "%%%%%" is 85^5 - 1.
      {good_pub + "secret = \"%%%%%" + k.secret_z85.substr(5) + "\"\n", "not valid Z85"},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string path = secret_file(tmp, "bad" + std::to_string(++n) + ".secret", c.text);
    auto r = load_secret_key_file(path);
    INFO("file text: " << c.text);
    REQUIRE_FALSE(r.ok());
    INFO(r.status().message());
    CHECK(r.status().code() == Code::invalid_argument);
    CHECK(contains(r.status().message(), path));
    CHECK(contains(r.status().message(), c.needle));
  }

  // Comments, blank lines, spaces and CRLF are fine.
  const std::string ok_path =
      secret_file(tmp, "ok.secret", "# comment\r\n\r\n  public=\"" + k.public_z85 + "\"  \r\n\t# x\nsecret   =  \"" +
                                        k.secret_z85 + "\"\r\n");
  auto ok = load_secret_key_file(ok_path);
  INFO(ok.status().to_string());
  CHECK(ok.ok());
}

TEST_CASE("a public key file is refused when its key is bad or when it holds a secret") {
  TempDir tmp;
  CurveKeyPair k = fresh_keys();
  const std::string p1 = tmp.sub("a.public");
  write_file(p1, "public = \"" + k.public_z85.substr(1) + "\"\n");
  auto r1 = load_public_key_file(p1);
  REQUIRE_FALSE(r1.ok());
  CHECK(contains(r1.status().message(), p1));
  CHECK(contains(r1.status().message(), "public key is 39 characters long"));

  const std::string p2 = tmp.sub("b.public");
  write_file(p2, "public = \"" + k.public_z85 + "\"\nsecret = \"" + k.secret_z85 + "\"\n");
  auto r2 = load_public_key_file(p2);
  REQUIRE_FALSE(r2.ok());
  CHECK(contains(r2.status().message(), "must not hold a secret key"));
  CHECK_FALSE(contains(r2.status().message(), k.secret_z85));

  auto missing = load_public_key_file(tmp.sub("none.public"));
  CHECK(missing.status().code() == Code::not_found);
  CHECK(contains(missing.status().message(), tmp.sub("none.public")));
}

}  // namespace vasana::test
