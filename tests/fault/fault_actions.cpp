#include "tests/fault/fault_actions.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "store/data_dir.hpp"
#include "store/segment_format.hpp"
#include "store/writer_scan.hpp"

namespace vasana::test::fault {

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const char* kFaketimeLib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
// sync.max_clock_skew_ms of the run's nodes (its default), in seconds.
constexpr int64_t kDefaultClockBoundS = 60;

// The own writer's last verified seqno of a stopped node's data directory (0 when unreadable).
struct OwnHead {
  std::string instance;
  uint64_t last_seqno = 0;
};

OwnHead own_head(const std::string& data) {
  OwnHead h;
  DataDir dir{data};
  auto id = load_identity(dir);
  if (!id.ok()) return h;
  h.instance = to_hex(id->instance);
  auto scan = scan_writer(dir.writer_dir(id->instance), id->instance, id->vector_space, true, [](const RecordRef&) {});
  if (scan.ok()) h.last_seqno = scan->last_seqno.value;
  return h;
}

}  // namespace

void fill_disk(const std::string& dir) {
  std::ofstream out(dir + "/filler", std::ios::binary);
  const std::string block(64 * 1024, 'x');
  for (int i = 0; i < 100000 && out.good(); ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
  out.close();
  std::ofstream rest(dir + "/filler.rest", std::ios::binary);
  for (int i = 0; i < 64 * 1024 && rest.good(); ++i) rest.put('x'), rest.flush();
}

void free_disk(const std::string& dir) {
  std::error_code ec;
  fs::remove(dir + "/filler", ec);
  fs::remove(dir + "/filler.rest", ec);
}

FaultActions::FaultActions(TestCluster& cluster, std::string disk_dir, size_t disk_node,
                           std::function<void(const std::string&)> log)
    : c_(cluster), disk_dir_(std::move(disk_dir)), disk_node_(disk_node), log_(std::move(log)) {}

std::string FaultActions::restart(size_t i, const std::string& why) {
  std::string e = c_.start(i);
  if (!e.empty()) return "n" + std::to_string(i) + " did not come back up after " + why + ": " + e;
  return "";
}

std::string FaultActions::apply(const Fault& f) {
  const size_t i = f.node;
  switch (f.kind) {
    case FaultKind::kill_restart:
      c_.kill(i);
      std::this_thread::sleep_for(f.hold);
      return restart(i, "SIGKILL");
    case FaultKind::pause:
      c_.pause(i);
      std::this_thread::sleep_for(f.hold);
      c_.resume(i);
      return "";
    case FaultKind::disk_full:
      if (i != disk_node_ || disk_dir_.empty()) return "disk-full scheduled on a node without its own tmpfs";
    {
      fill_disk(disk_dir_);
      std::this_thread::sleep_for(f.hold);
      auto st = c_.status(i);
      log_("  n" + std::to_string(i) + " own writer while full: " +
           (st.ok() ? st->own_writer.state + " " + st->own_writer.reason : st.status().message()));
      free_disk(disk_dir_);
      return "";
    }
    case FaultKind::clock_skew: {
      c_.kill(i);
      ::setenv("LD_PRELOAD", kFaketimeLib, 1);
      const std::string offset = (f.skew_s >= 0 ? "+" : "") + std::to_string(f.skew_s) + "s";
      ::setenv("FAKETIME", offset.c_str(), 1);
      ::setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);
      std::string e = restart(i, "a restart with its clock " + offset);
      ::unsetenv("LD_PRELOAD");
      ::unsetenv("FAKETIME");
      ::unsetenv("FAKETIME_DONT_FAKE_MONOTONIC");
      if (!e.empty()) return e;
      // Its own stream (and the ops applied there) stand where the clock was before: set back
      // more than the clock bound (60 s), the writer must refuse writes (clock-ahead) rather
      // than stamp them ahead of its clock. It may be repairing first; writable it must not be.
      if (f.skew_s < -(kDefaultClockBoundS + 1)) {
        const std::string got = c_.await_own_state(i, "clock-ahead", 10s);
        log_("  n" + std::to_string(i) + " own writer with its clock " + offset + ": " +
             (got.empty() ? std::string("clock-ahead") : got));
        if (got.rfind("own writer writable", 0) == 0)
          return "n" + std::to_string(i) + " restarted with its clock " + offset + " takes writes stamped ahead of it";
      }
      std::this_thread::sleep_for(f.hold);
      c_.kill(i);
      return restart(i, "a restart with its clock set right");
    }
    case FaultKind::corrupt_disk:
      return corrupt(f);
    case FaultKind::partition:
    case FaultKind::one_way:
    case FaultKind::link_delay:
    case FaultKind::link_corrupt:
      if (!network) return std::string(fault_name(f.kind)) + " scheduled without a link proxy";
      return network(f);
  }
  return "unknown fault";
}

std::string FaultActions::await_replicated_own(size_t i, std::chrono::milliseconds timeout) {
  const OwnHead head = own_head(c_.node(i).data);
  if (head.instance.empty()) return "its identity did not load";
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    last.clear();
    for (size_t j = 0; j < c_.size(); ++j) {
      if (j == i) continue;
      auto st = c_.status(j);
      uint64_t applied = 0;
      if (st.ok())
        for (const auto& w : st->writers)
          if (w.writer == head.instance) applied = w.applied_seqno;
      if (applied < head.last_seqno)
        last += "n" + std::to_string(j) + " holds " + std::to_string(applied) + " of " +
                std::to_string(head.last_seqno) + "; ";
    }
    if (last.empty()) return "";
    std::this_thread::sleep_for(200ms);
  }
  return last;
}

// Flips one byte after the header of one of the node's segment files (its own stream's or a
// copy of another writer's), chosen by f.pick; one pick in four aims at the last record of the
// own stream's newest segment. The own stream is only damaged once every other node holds all
// of it, so the node can fetch it back: a byte flipped in the only copy of an acknowledged write
// is data loss no store can undo.
std::string FaultActions::corrupt(const Fault& f) {
  const size_t i = f.node;
  c_.kill(i);
  Corruption rec{i, "", 0, false, ""};
  const OwnHead head = own_head(c_.node(i).data);
  std::vector<std::string> own, copies;
  for (const auto& w : fs::directory_iterator(c_.node(i).data + "/writers")) {
    for (const auto& s : fs::directory_iterator(w.path())) {
      if (s.path().extension() != ".seg" || fs::file_size(s.path()) < kHeaderFixedBytes + 200) continue;
      (w.path().filename() == head.instance ? own : copies).push_back(s.path().string());
    }
  }
  std::sort(own.begin(), own.end());
  std::sort(copies.begin(), copies.end());
  std::string file;
  uint64_t offset = 0;
  const bool aim_tail = f.pick % 4 == 0 && !own.empty();
  if (aim_tail) {
    file = own.back();
    const uint64_t size = fs::file_size(file);
    offset = size - 1 - (f.pick >> 8) % 16;
  } else {
    std::vector<std::string> all = own;
    all.insert(all.end(), copies.begin(), copies.end());
    if (all.empty()) {
      rec.skipped = "no segment large enough";
    } else {
      file = all[(f.pick >> 2) % all.size()];
      const uint64_t size = fs::file_size(file);
      const uint64_t from = kHeaderFixedBytes + 64;
      offset = from + (f.pick >> 16) % (size - from);
    }
  }
  if (!file.empty() && file.find("/" + head.instance + "/") != std::string::npos) {
    std::string e = await_replicated_own(i, 15s);
    if (!e.empty()) rec.skipped = "own stream not yet held by every peer: " + e;
  }
  if (rec.skipped.empty() && !file.empty()) {
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    char b = 0;
    io.seekg(static_cast<std::streamoff>(offset));
    io.read(&b, 1);
    b = static_cast<char>(b ^ 0x5a);
    io.seekp(static_cast<std::streamoff>(offset));
    io.write(&b, 1);
    rec.file = file;
    rec.offset = offset;
    log_("  flipped byte " + std::to_string(offset) + " of " + file.substr(c_.node(i).data.size() + 1));
  } else if (!rec.skipped.empty()) {
    log_("  no byte flipped: " + rec.skipped);
  }
  std::this_thread::sleep_for(f.hold / 4);
  std::string e = restart(i, "a flipped byte");
  if (e.empty() && rec.skipped.empty()) {
    // The restarted process counts what its start found (integrity_failures, since start).
    for (int k = 0; k < 30 && !rec.counted; ++k) {
      auto st = c_.status(i);
      if (st.ok())
        for (const auto& [kind, n] : st->integrity_failures) rec.counted |= n > 0;
      // A flip in the last record of the own open segment reads as a torn write: it is cut
      // (logged) and the record fetched back from the peers before the writer writes again.
      rec.counted |= c_.node(i).process->stderr_text().find("truncated a torn tail") != std::string::npos;
      if (!rec.counted) std::this_thread::sleep_for(100ms);
    }
    log_(std::string("  damage ") + (rec.counted ? "detected" : "NOT detected") + " by n" + std::to_string(i) +
         " (integrity failures, or a torn tail cut)");
    // A sealed segment the start took on its checkpoint's trust is verified after ready: damage
    // found there is shown as segment-damaged and repaired by the next start (ops/RUNBOOK.md),
    // which is what an operator does next.
    if (e.empty() && damaged_after_start(i)) {
      log_("  n" + std::to_string(i) + " shows segment-damaged (found after its start): restarted to repair");
      e = restart(i, "segment-damaged");
    }
  }
  corruptions_.push_back(rec);
  return e;
}

bool FaultActions::damaged_after_start(size_t i) {
  auto st = c_.status(i);
  if (!st.ok()) return false;
  for (const auto& p : st->problems)
    if (p.problem == "segment-damaged") return true;
  return false;
}

}  // namespace vasana::test::fault
