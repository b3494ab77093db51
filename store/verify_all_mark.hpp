// DIR/VERIFY-ALL: the mark of a data directory whose next start must verify every segment record
// by record, taking none on trust from the checkpoint (store/segment_trust.hpp). The background
// verification after a start (actors/segment_scrub.hpp) writes it when it finds damage in a
// segment the start took on trust: the running node keeps serving from its verified in-RAM
// state, and the next start finds the damage itself and handles it as start-up recovery does
// (quarantine, the stream cut back to its verified prefix and fetched again from peers:
// store/stream_repair.hpp, sync/writer_mirror.hpp). That start removes the mark once the damage
// was handled.
//
// Format: one line per damage found, in the words of the log line that reported it. The file's
// presence is what counts. Owner-only (private_file_mode()), written atomically and fsynced.
#pragma once

#include <optional>
#include <string>

#include "protocol/status.hpp"
#include "store/data_dir.hpp"

namespace vasana {

std::string verify_all_mark_path(const DataDir& dir);

// Adds line to dir's mark (creating it), durably. IoError when it cannot be written.
Status mark_verify_all(const DataDir& dir, const std::string& line);

// The mark's text when dir has one, nullopt when it has none; IoError when it cannot be read.
Result<std::optional<std::string>> read_verify_all_mark(const DataDir& dir);

// Removes dir's mark and fsyncs dir; ok when there is none.
Status remove_verify_all_mark(const DataDir& dir);

}  // namespace vasana
