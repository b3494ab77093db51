// NodeStatus (sync/replication_status.hpp) as JSON and as the human-readable report of
// `vasana status`.
//
// JSON shape (one object, compact, on one line; field names are the struct's member names and
// are part of the user's contract: rename nothing, only add):
//   {"instance": "...", "cluster": "...", "vector_space": "...", "memories": 12,
//    "digest": "...", "applied_remote_ops": 3,
//    "writers": [{"writer": "...", "applied_seqno": 9, "own": true}, ...],
//    "peers": [{"address": "...", "instance": "...", "public_key": "...", "origin": "member",
//               "up": true, "last_heard_s": 0.4, "chunks_received": 5, "chunks_refused": 0,
//               "writers": [{"writer": "...", "peer_seqno": 9, "applied_seqno": 7,
//                            "lag_ops": 2, "lag_seconds": 1.5}, ...],
//               "reported": [{"public_key": "...", "instance": "...", "up": true,
//                             "last_heard_s": 0.3}, ...]}, ...],
//    "members": [{"public_key": "...", "address": "...", "name": "...", "admitted": true,
//                 "by": "..."}, ...],
//    "refused": {"cluster id": 1, ...}}
// Counters and seqnos are JSON unsigned integers (exact up to 2^64-1); lag_seconds and
// last_heard_s are JSON numbers (last_heard_s is -1 for a peer never heard from).
//
// Reading (status_from_json) is strict about what this version writes and lenient about the
// rest: every field above must be present with its type (a missing field, a wrong type or a
// negative count is InvalidArgument naming the field's path, e.g. "peers[1].writers[0].lag_ops"),
// except the membership fields (public_key, origin, reported, members), which a node built
// before membership leaves out; fields it does not know are ignored, so a newer node's JSON
// still reads.
//
// Threading: pure functions, no shared state.
#pragma once

#include <string>
#include <string_view>

#include "protocol/status.hpp"
#include "sync/replication_status.hpp"

namespace vasana {

// Compact JSON, one line, no trailing newline. Strings that are not valid UTF-8 have the bad
// bytes replaced by U+FFFD (the JSON stays valid); non-finite doubles are written as null.
std::string status_to_json(const NodeStatus& s);

// The inverse of status_to_json. InvalidArgument for text that is not JSON (with the parser's
// line and column), not an object, or a field that is missing or of the wrong type.
Result<NodeStatus> status_from_json(std::string_view json);

// The report `vasana status` prints: node, cluster, vector space, memories, digest, each writer's
// applied seqno, then each peer (address, up/down, instance, last heard, chunks) with one line per
// writer giving the lag in ops and seconds, then peers refused by reason. Ends with a newline.
std::string status_to_text(const NodeStatus& s);

}  // namespace vasana
