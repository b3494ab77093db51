// Online repair of the node's own writer stream. When start-up recovery found the stream
// damaged (store/stream_repair.hpp) and the node has peers or shared-directory siblings, the
// node keeps only the verified prefix (store/own_repair.hpp), hands it to the MirrorSet as a
// copy to fetch into (MirrorSet::start_repair) and serves reads meanwhile, read-only. This
// thread watches the sources: once every one of them has said which writers it holds (an
// advert; a sibling: its folders read) and none holds more of the own stream than this node
// does, the repair ends: the fetching stops, the quarantined segments are marked resolved, the
// stream is verified once more from disk and its log writer handed to the writer
// (WriterState::resume), which takes writes again.
//
// A node started from a backup (store/restore_marker.hpp: DIR/RESTORED) is repaired the same
// way, its whole verified stream standing as the prefix: the original node may have written
// records after the backup that its peers hold. Once the repair ends, the marker is removed.
//
// A source that is never heard from keeps the writer read-only: it might hold records of the
// stream that writing on would give other contents (a fork). `vasana repair --accept-loss`
// is the operator's way out when such a source is gone for good.
//
// Threading: start() spawns the thread; the destructor stops and joins it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/writer_state.hpp"
#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/log_writer.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replication_status.hpp"

namespace vasana {

// What the repair still waits for, given what the sources say: nullopt when it can end (every
// source heard, none ahead of this node on its own writer own_hex), else a line for status.
std::optional<std::string> own_repair_waits_for(const std::vector<PeerStatus>& sources, const std::string& own_hex);

// At start-up, for a data directory with a RESTORED marker: the reason the writer stays
// read-only while the own stream is fetched (nullopt when there is no marker). With no source
// (has_sources false) nothing can be checked: the marker is removed, that is logged, and nullopt
// returned. IoError when the marker cannot be read or removed.
Result<std::optional<std::string>> restored_from_backup(const DataDir& dir, const Identity& id, bool has_sources,
                                                        const std::function<void(const std::string&)>& log);

class OwnStreamRepair {
 public:
  struct Context {
    DataDir dir;
    Identity identity;
    FileSystem* fs = nullptr;
    LogWriterOptions log_options;
    MirrorSet* mirrors = nullptr;
    std::shared_ptr<WriterState> writer;
    std::function<std::vector<PeerStatus>()> sources;  // the peers' and siblings' status
    std::function<void(const std::string&)> log;
    // Why the writer is read-only meanwhile, for status (followed by what it waits for).
    std::string why = "its stream is damaged and is being fetched back from peers";
    bool restored = false;  // started from a backup: its RESTORED marker goes once the repair ends
  };
  static std::unique_ptr<OwnStreamRepair> start(Context c);
  ~OwnStreamRepair();
  OwnStreamRepair(const OwnStreamRepair&) = delete;
  OwnStreamRepair& operator=(const OwnStreamRepair&) = delete;

 private:
  explicit OwnStreamRepair(Context c) : c_(std::move(c)) {}
  void run();
  // Ends the repair; false (logged) when the stream cannot be made writable.
  bool finish();

  Context c_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace vasana
