// DIR/VERIFY-ALL: the mark of a data directory whose next start must verify every segment record
// by record, taking none on trust from the checkpoint (store/segment_trust.hpp). A start writes
// it (kTrustPending) before it takes any segment on trust, and the background verification after
// that start (actors/segment_scrub.hpp) removes it once it has verified every trusted segment and
// found no damage: a node stopped or killed before then verifies everything at its next start.
// When the verification finds damage it adds a line and leaves the mark: the running node keeps
// serving from its verified in-RAM state, and the next start finds the damage itself and handles
// it as start-up recovery does (quarantine, the stream cut back to its verified prefix and
// fetched again from peers: store/stream_repair.hpp, sync/writer_mirror.hpp). That start removes
// the mark once the damage was handled.
//
// Format: one line per reason, the first the pending verification's or a damage's in the words
// of the log line that reported it. The file's presence is what counts. Owner-only
// (private_file_mode()), written atomically and fsynced.
#pragma once

#include <optional>
#include <string>

#include "protocol/status.hpp"
#include "store/data_dir.hpp"

namespace vasana {

std::string verify_all_mark_path(const DataDir& dir);

// The line a start writes before it takes segments on trust.
inline constexpr const char* kTrustPending =
    "a start took sealed segments on the checkpoint's trust and their verification after it has not finished";

// Adds line to dir's mark (creating it), durably. IoError when it cannot be written.
Status mark_verify_all(const DataDir& dir, const std::string& line);

// The mark's text when dir has one, nullopt when it has none; IoError when it cannot be read.
Result<std::optional<std::string>> read_verify_all_mark(const DataDir& dir);

// Removes dir's mark and fsyncs dir; ok when there is none.
Status remove_verify_all_mark(const DataDir& dir);

}  // namespace vasana
