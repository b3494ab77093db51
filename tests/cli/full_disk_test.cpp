// A node whose disk fills up, through the real binary on a small tmpfs (the tests run as root):
// writes are refused with the reason, `status` shows the writer failed, the node logs it once,
// and once space is freed the writer takes writes again by itself, with a stream that verifies.
#include <sys/mount.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sync/status_json.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// A tmpfs of size bytes at path for the life of the object.
struct SmallDisk {
  std::string path;
  bool mounted = false;
  SmallDisk(std::string p, size_t bytes) : path(std::move(p)) {
    std::filesystem::create_directories(path);
    const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
    mounted = ::mount("tmpfs", path.c_str(), "tmpfs", 0, opts.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
  }
};

// Fills the file system holding dir: a file written until the disk refuses more.
void fill(const std::string& file) {
  std::ofstream out(file, std::ios::binary);
  const std::string block(64 * 1024, 'x');
  for (int i = 0; i < 100000 && out.good(); ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
  out.close();
  // Whatever is left is smaller than a block: take it byte by byte.
  std::ofstream rest(file + ".rest", std::ios::binary);
  for (int i = 0; i < 64 * 1024 && rest.good(); ++i) rest.put('x'), rest.flush();
}

NodeStatus status_of(const std::string& data, const std::string& scratch) {
  auto r = run_vasana({"status", "--data", data, "--json"}, scratch);
  REQUIRE(r.status.code == 0);
  auto st = status_from_json(r.out);
  REQUIRE(st.ok());
  return st.value();
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a full disk stops the writer visibly and once, and the writer takes writes again when space is freed") {
  TempDir tmp;
  SmallDisk disk(tmp.sub("disk"), 8u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  const std::string data = disk.path + "/data";
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  INFO(node.stderr_text());
  auto remember = [&](const std::string& text) {
    return run_vasana({"remember", "--data", data, "--realm", "r", text}, tmp.path());
  };
  // Positive control: a write while there is room.
  REQUIRE(remember("before the disk filled").status.code == 0);

  fill(disk.path + "/filler");
  // tmpfs allocates whole pages: the first writes may still fit into the segment's last page.
  // Once one is refused, every later one is refused until there is room.
  const std::string filler_text(900, 'f');
  size_t taken_while_full = 0, refused = 0;
  for (int i = 0; i < 60 && refused < 3; ++i) {
    auto r = remember("while the disk is full " + std::to_string(i) + " " + filler_text);
    CAPTURE(i, r.out, r.err);
    if (r.status.code == 0) {
      CHECK(refused == 0);
      ++taken_while_full;
      continue;
    }
    ++refused;
    CHECK(r.status.code == 1);
    CHECK(contains(r.err, "No space left on device"));
  }
  REQUIRE(refused == 3);
  NodeStatus st = status_of(data, tmp.path());
  CHECK(st.own_writer.state == "failed");
  CHECK(contains(st.own_writer.reason, "No space left on device"));
  CHECK(st.own_writer.io_failures == 1);
  std::this_thread::sleep_for(2500ms);  // two retries, still no room: no new line
  CHECK(occurrences(node.stderr_text(), "writes are refused until the disk takes it again") == 1);

  std::filesystem::remove(disk.path + "/filler");
  std::filesystem::remove(disk.path + "/filler.rest");
  bool written = false;
  for (int i = 0; i < 50 && !written; ++i) {
    written = remember("after space was freed").status.code == 0;
    if (!written) std::this_thread::sleep_for(100ms);
  }
  CHECK(written);
  st = status_of(data, tmp.path());
  CHECK(st.own_writer.state == "writable");
  CHECK(contains(node.stderr_text(), "writable again"));
  REQUIRE(node.terminate().has_value());

  auto verify = run_vasana({"verify", data}, tmp.path());
  CHECK(verify.status.code == 0);
  const OwnStream own = read_own_stream(data);
  CHECK(own.scan.healthy());
  size_t before = 0, full = 0, after = 0;
  for (const auto& [seqno, text] : own.texts) {
    before += text == "before the disk filled";
    full += contains(text, "while the disk is full");
    after += text == "after space was freed";
  }
  CHECK(before == 1);
  CHECK(after == 1);
  // The first refused write's outcome was unknown to its client (the batch is redone by the
  // retry); the later ones were refused before anything was written.
  CHECK(full >= taken_while_full);
  CHECK(full <= taken_while_full + 1);
}

}  // namespace vasana::test
