// An in-memory FileSystem (store/file_io.hpp) that records, into one event log shared with the
// test, every append (with the seqnos of the records it carries) and every sync, so a test can
// check the order in which bytes were written, synced and acknowledged. Faults are injected at
// named points: a sync of record bytes can fail, be slowed down, or wait on a gate.
//
// Threading: the writer actor calls the file system on its own thread while test threads read
// the log and open the gate; everything shared is guarded by EventLog::mu.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/status.hpp"
#include "store/file_io.hpp"
#include "store/little_endian.hpp"
#include "store/segment_format.hpp"

namespace vasana::test {

struct Event {
  enum class Kind { header, append, trailer, sync, sync_failed, ack, notify };
  explicit Event(Kind k) : kind(k) {}
  Kind kind;
  int file = -1;                // append, sync: which file
  std::vector<uint64_t> seqnos;  // append, notify: the records' seqnos, in order
  // ack only:
  size_t request = 0;  // which request (the test's own numbering)
  Code code = Code::ok;
  uint64_t seqno = 0;  // 0 unless ok
  uint64_t ts = 0;
};

// The shared, ordered record of what happened. The order of events is the order in which the
// threads that logged them took the mutex, so an event logged after another happened after it.
class EventLog {
 public:
  void add(Event e) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(e));
    changed_.notify_all();
  }
  std::vector<Event> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  size_t count(Event::Kind k) const {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& e : events_) n += e.kind == k;
    return n;
  }
  // Waits until at least n events of kind k were logged; false on timeout.
  bool wait_for(Event::Kind k, size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] {
      size_t c = 0;
      for (const auto& e : events_) c += e.kind == k;
      return c >= n;
    });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Event> events_;  // guarded by mu_
};

// Splits appended bytes into what the log writer writes: a segment header (the first append of
// a new file, starting with the magic), framed records, or a trailer.
struct ParsedAppend {
  bool header = false;
  bool trailer = false;
  std::vector<uint64_t> seqnos;
  bool well_formed = true;
};

inline ParsedAppend parse_append(std::string_view data, bool first_append_of_file) {
  ParsedAppend out;
  if (first_append_of_file && data.substr(0, kSegmentMagic.size()) == kSegmentMagic) {
    out.header = true;
    return out;
  }
  auto p = reinterpret_cast<const uint8_t*>(data.data());
  size_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < kRecordFrameBytes) {
      out.well_formed = false;
      break;
    }
    uint32_t length = get_u32(p + pos);
    if (length == kTrailerMarker) {
      out.trailer = true;
      pos += kTrailerBytes;
      continue;
    }
    if (length < 8 || data.size() - pos - kRecordFrameBytes < length) {
      out.well_formed = false;
      break;
    }
    out.seqnos.push_back(get_u64(p + pos + kRecordFrameBytes));  // the body starts with the seqno
    pos += kRecordFrameBytes + length;
  }
  return out;
}

// What the fake does at a sync that makes appended records durable (syncs of a bare segment
// header are never delayed or failed, so the writer can open its first segment).
struct SyncFaults {
  std::chrono::microseconds delay{0};  // sleep in every such sync, so appends pile up
  int fail_from = -1;                  // such syncs number fail_from, fail_from + 1, ... return IoError (-1: none)
  bool gate_first = false;             // the first such sync waits for open_gate() (at most gate_timeout)
  std::chrono::milliseconds gate_timeout{10000};
};

class RecordingFileSystem final : public FileSystem {
 public:
  RecordingFileSystem(EventLog& log, SyncFaults faults) : log_(log), faults_(faults) {}

  Result<std::unique_ptr<AppendFile>> create(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (files_.count(path)) return Status::IoError("create " + path + ": exists");
    int id = static_cast<int>(files_.size());
    files_[path] = id;
    return std::unique_ptr<AppendFile>(new File(*this, id));
  }
  Result<std::unique_ptr<AppendFile>> open_append(const std::string& path) override {
    return Status::NotFound(path + ": the fake only creates new files");
  }
  Status sync_dir(const std::string&) override { return Status::Ok(); }
  // The fake keeps no bytes: nothing to cut or remove (the writer cuts or removes only after a
  // failed step, which the tests of this fake end with).
  Status truncate(const std::string&, uint64_t) override { return Status::Ok(); }
  Status remove(const std::string&) override { return Status::Ok(); }

  void open_gate() {
    std::lock_guard<std::mutex> lock(mu_);
    gate_open_ = true;
    gate_cv_.notify_all();
  }
  // True once a sync is waiting at the gate.
  bool wait_until_gated(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return gate_cv_.wait_for(lock, timeout, [&] { return gated_; });
  }
  bool malformed_append_seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return malformed_;
  }

 private:
  class File final : public AppendFile {
   public:
    File(RecordingFileSystem& fs, int id) : fs_(fs), id_(id) {}
    Status append(std::string_view data) override {
      ParsedAppend p = parse_append(data, first_);
      first_ = false;
      if (!p.well_formed) fs_.note_malformed();
      if (!p.seqnos.empty()) unsynced_records_ = true;
      Event e{p.header ? Event::Kind::header : p.seqnos.empty() && p.trailer ? Event::Kind::trailer
                                                                             : Event::Kind::append};
      e.file = id_;
      e.seqnos = std::move(p.seqnos);
      fs_.log_.add(std::move(e));
      return Status::Ok();
    }
    Status sync() override {
      const bool covers_records = unsynced_records_;
      if (covers_records) {
        const int number = fs_.before_record_sync();
        if (fs_.faults_.fail_from >= 0 && number >= fs_.faults_.fail_from) {
          Event e{Event::Kind::sync_failed};
          e.file = id_;
          fs_.log_.add(std::move(e));
          return Status::IoError("fdatasync: injected failure");
        }
      }
      unsynced_records_ = false;
      Event e{Event::Kind::sync};
      e.file = id_;
      fs_.log_.add(std::move(e));
      return Status::Ok();
    }

   private:
    RecordingFileSystem& fs_;
    int id_;
    bool first_ = true;
    bool unsynced_records_ = false;
  };

  void note_malformed() {
    std::lock_guard<std::mutex> lock(mu_);
    malformed_ = true;
  }

  // Returns the number of this sync of record bytes: 0, 1, 2, ...
  int before_record_sync() {
    int number;
    {
      std::unique_lock<std::mutex> lock(mu_);
      number = record_syncs_++;
      if (faults_.gate_first && number == 0) {
        gated_ = true;
        gate_cv_.notify_all();
        gate_cv_.wait_for(lock, faults_.gate_timeout, [&] { return gate_open_; });
      }
    }
    if (faults_.delay.count() > 0) std::this_thread::sleep_for(faults_.delay);
    return number;
  }

  EventLog& log_;
  const SyncFaults faults_;
  mutable std::mutex mu_;
  std::condition_variable gate_cv_;
  std::map<std::string, int> files_;  // guarded by mu_
  bool gate_open_ = false;            // guarded by mu_
  int record_syncs_ = 0;              // guarded by mu_
  bool gated_ = false;                // guarded by mu_
  bool malformed_ = false;            // guarded by mu_
};

// Every violation of "an ok ack of seqno s comes after an append carrying s and a later sync of
// that file", each as a sentence; empty when the log keeps the rule. Non-ok acks are ignored.
inline std::vector<std::string> acks_before_sync(const std::vector<Event>& log) {
  std::vector<std::string> problems;
  std::map<uint64_t, int> appended_unsynced;  // seqno -> file
  std::map<uint64_t, bool> durable;
  for (size_t i = 0; i < log.size(); ++i) {
    const Event& e = log[i];
    switch (e.kind) {
      case Event::Kind::append:
        for (uint64_t s : e.seqnos) appended_unsynced[s] = e.file;
        break;
      case Event::Kind::sync:
        for (auto it = appended_unsynced.begin(); it != appended_unsynced.end();) {
          if (it->second == e.file) {
            durable[it->first] = true;
            it = appended_unsynced.erase(it);
          } else {
            ++it;
          }
        }
        break;
      case Event::Kind::ack:
        if (e.code != Code::ok) break;
        if (!durable.count(e.seqno)) {
          problems.push_back("event " + std::to_string(i) + ": seqno " + std::to_string(e.seqno) + " acknowledged " +
                             (appended_unsynced.count(e.seqno) ? "after its append but before any sync"
                                                               : "before it was appended"));
        }
        break;
      default:
        break;
    }
  }
  return problems;
}

}  // namespace vasana::test
