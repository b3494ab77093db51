#include "actors/own_stream_repair.hpp"

#include <pthread.h>

#include <chrono>

#include "store/hybrid_clock.hpp"
#include "store/own_repair.hpp"
#include "store/restore_marker.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

std::optional<std::string> own_repair_waits_for(const std::vector<PeerStatus>& sources, const std::string& own_hex) {
  if (sources.empty()) return std::string("no peer or sibling to fetch it from");
  std::string waits;
  auto add = [&](const std::string& what) { waits += (waits.empty() ? "" : "; ") + what; };
  for (const PeerStatus& s : sources) {
    if (!s.up || !s.advert_heard) {
      add(s.address + " not heard from yet");
      continue;
    }
    for (const WriterLag& l : s.writers)
      if (l.writer == own_hex && l.lag_ops > 0)
        add(s.address + " holds it up to seqno " + std::to_string(l.peer_seqno) + ", this node up to " +
            std::to_string(l.applied_seqno));
  }
  if (waits.empty()) return std::nullopt;
  return waits;
}

Result<std::optional<std::string>> restored_from_backup(const DataDir& dir, const Identity& id, bool has_sources,
                                                        const std::function<void(const std::string&)>& log) {
  auto marker = read_restore_marker(dir);
  if (!marker.ok()) return marker.status();
  if (!*marker) return std::optional<std::string>();
  const std::string own = to_hex(id.instance);
  if (!has_sources) {
    Status s = remove_restore_marker(dir);
    if (!s.ok()) return s;
    log("restore: " + (*marker)->describe() + "; no peer or sibling is configured, so nothing could be checked: writer " +
        own + " continues its stream from this directory; removed " + restore_marker_path(dir));
    return std::optional<std::string>();
  }
  log("restore: " + (*marker)->describe() + "; writer " + own +
      " (own) takes no writes until its later records were fetched from every peer and sibling");
  const std::string what = (*marker)->reason == RestoreMarker::kTornTail ? "a torn tail was cut from the own stream"
                                                                          : "restored from a backup";
  return std::optional<std::string>(what + ": fetching writer " + own + "'s later records from peers");
}

std::unique_ptr<OwnStreamRepair> OwnStreamRepair::start(Context c) {
  std::unique_ptr<OwnStreamRepair> r(new OwnStreamRepair(std::move(c)));
  r->thread_ = std::thread([raw = r.get()] { raw->run(); });
  return r;
}

OwnStreamRepair::~OwnStreamRepair() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void OwnStreamRepair::run() {
  pthread_setname_np(pthread_self(), "vasana.repair");
  const std::string own = to_hex(c_.identity.instance);
  std::string shown;
  while (!stop_.load()) {
    auto waits = own_repair_waits_for(c_.sources(), own);
    if (!waits) {
      if (!finish()) c_.writer->set_repairing("");  // read-only, with recovery's reason
      return;
    }
    const std::string note = c_.why + "; waiting for: " + *waits;
    if (note != shown) {
      c_.writer->set_repairing(note);
      shown = note;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

bool OwnStreamRepair::finish() {
  const StreamHead head = c_.mirrors->finish_repair();
  const std::string own = to_hex(c_.identity.instance);
  std::vector<std::string> actions;
  Status s = resolve_quarantine(c_.dir, c_.identity.instance,
                                "restored from peers up to seqno " + std::to_string(head.last_seqno.value), &actions);
  for (const std::string& a : actions) c_.log("repair: " + a);
  if (!s.ok()) {
    c_.log("repair: writer " + own + " stays read-only: " + s.to_string());
    return false;
  }
  // Verified once more as recovery does at start-up: what the log writer continues is on disk.
  auto rec = recover_own_stream(c_.dir, c_.identity, nullptr, false);
  if (!rec.ok() || !rec->writable) {
    c_.log("repair: writer " + own + " stays read-only: " +
           (rec.ok() ? rec->read_only_reason : rec.status().to_string()));
    return false;
  }
  auto w = LogWriter::open(*c_.fs, c_.dir.writer_dir(c_.identity.instance), c_.identity.instance,
                           c_.identity.vector_space, rec->tail, c_.log_options, system_wall_ms());
  if (!w.ok()) {
    c_.log("repair: writer " + own + " stays read-only: " + w.status().to_string());
    return false;
  }
  if (c_.restored) {
    // Before the first write: a start after this one is an ordinary start. Should the removal
    // fail, the next start only fetches again what the peers hold.
    Status removed = remove_restore_marker(c_.dir);
    c_.log(removed.ok() ? "restore: removed " + restore_marker_path(c_.dir) + ": writer " + own +
                              " caught up with every peer and sibling"
                        : "restore: cannot remove " + restore_marker_path(c_.dir) + ": " + removed.to_string() +
                              "; the next start fetches from the peers again");
  }
  c_.log("repair: writer " + own + " (own) restored from peers up to seqno " +
         std::to_string(rec->scan.last_seqno.value) + "; it takes writes again within a second");
  c_.writer->resume(std::move(w.value()));
  return true;
}

}  // namespace vasana
