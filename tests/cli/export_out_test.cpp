// `vasana export --out FILE` through the binary against a real node: FILE appears whole and
// owner-only (whatever the umask), an existing FILE is replaced only with --force, a refused
// export leaves FILE as it was, and a symbolic link is never written through or replaced.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;

struct ExportNode {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::string out_dir = tmp.sub("out");
  std::unique_ptr<ServeProcess> serve;
  ExportNode() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"));
    REQUIRE(serve->wait_ready() == "");
    auto r = run({"import", "--realm", "work", "-"},
                 "{\"text\":\"staging runs in eu-west-1\",\"ref\":\"a\"}\n{\"text\":\"two approvals\",\"ref\":\"b\"}\n");
    INFO(r.err);
    REQUIRE(r.status.code == 0);
    fs::create_directory(out_dir);
  }
  CommandResult run(std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), in, std::chrono::seconds(60));
  }
  // Names in the output folder other than those given: temporary files left behind.
  std::vector<std::string> strays(const std::vector<std::string>& expected) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(out_dir)) {
      const std::string name = e.path().filename().string();
      if (std::find(expected.begin(), expected.end(), name) == expected.end()) out.push_back(name);
    }
    return out;
  }
};

unsigned mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

struct Umask {
  mode_t old;
  explicit Umask(mode_t m) : old(::umask(m)) {}
  ~Umask() { ::umask(old); }
};

}  // namespace

TEST_CASE("export --out writes a new file 0600 whole, refuses an existing one unless --force, and a refused export leaves it") {
  ExportNode node;
  Umask open_umask(022);  // the children inherit it; the export must still be owner-only
  const std::string fresh = node.out_dir + "/fresh.jsonl";
  auto made = node.run({"export", "--realm", "work", "--out", fresh});
  CAPTURE(made.err);
  REQUIRE(made.status.code == 0);
  CHECK(count_lines(read_text(fresh)) == 2);
  CHECK(mode_of(fresh) == 0600);

  const std::string old = node.out_dir + "/old.jsonl";
  write_text(old, "keep me\n");
  REQUIRE(::chmod(old.c_str(), 0644) == 0);
  auto refused = node.run({"export", "--realm", "work", "--out", old});
  CAPTURE(refused.err);
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, old + " exists; pass --force to replace it"));
  CHECK(read_text(old) == "keep me\n");

  // The node refuses the export (an unknown client): with --force too, the file stays as it was.
  auto denied = node.run({"export", "--realm", "work", "--out", old, "--force", "--as", "ghost"});
  CAPTURE(denied.err);
  CHECK(denied.status.code != 0);
  CHECK(contains(denied.err, "nothing was written to " + old));
  CHECK(read_text(old) == "keep me\n");

  auto replaced = node.run({"export", "--realm", "work", "--out", old, "--force"});
  CAPTURE(replaced.err);
  REQUIRE(replaced.status.code == 0);
  CHECK(read_text(old) == read_text(fresh));
  CHECK(mode_of(old) == 0600);
  CHECK(node.run({"export", "--realm", "work", "--force"}).status.code == 2);  // --force without --out
  CHECK(node.strays({"fresh.jsonl", "old.jsonl"}).empty());
}

TEST_CASE("export --out never writes through or replaces a symbolic link, dangling or not") {
  ExportNode node;
  const std::string victim = node.tmp.sub("victim.txt");
  write_text(victim, "not an export\n");
  const std::string link = node.out_dir + "/link.jsonl";
  REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
  for (const bool force : {false, true}) {
    INFO("--force: " << force);
    std::vector<std::string> args = {"export", "--realm", "work", "--out", link};
    if (force) args.push_back("--force");
    auto r = node.run(args);
    CAPTURE(r.err);
    CHECK(r.status.code == 2);
    CHECK(contains(r.err, link + " is a symbolic link"));
    CHECK(read_text(victim) == "not an export\n");
    CHECK(fs::is_symlink(fs::symlink_status(link)));
  }
  const std::string nowhere = node.tmp.sub("nowhere.jsonl");
  const std::string dangling = node.out_dir + "/dangling.jsonl";
  REQUIRE(::symlink(nowhere.c_str(), dangling.c_str()) == 0);
  auto r = node.run({"export", "--realm", "work", "--out", dangling});
  CAPTURE(r.err);
  CHECK(r.status.code == 2);
  CHECK(contains(r.err, dangling + " is a symbolic link"));
  CHECK_FALSE(fs::exists(fs::symlink_status(nowhere)));
  CHECK(node.strays({"link.jsonl", "dangling.jsonl"}).empty());

  // The positive control: beside the links, a plain file is written.
  const std::string plain = node.out_dir + "/plain.jsonl";
  auto ok = node.run({"export", "--realm", "work", "--out", plain});
  CHECK(ok.status.code == 0);
  CHECK(count_lines(read_text(plain)) == 2);
}

}  // namespace vasana::test
