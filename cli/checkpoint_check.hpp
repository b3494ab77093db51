// `vasana verify --deep`: the checkpoint of a data directory checked against its segments.
// Every writer's verified records are applied to a fresh state (the full replay), and the ops
// after the checkpoint to the checkpoint's state (the tail replay); the two states must have the
// same digest, the checkpoint's state the digest its manifest names, and the segments the record
// each covered seqno names with the manifest's chain hash. A damaged checkpoint is a problem (the
// node sets it aside at its next start); one the node already set aside
// (DATA/checkpoint.damaged-<ms>, store/checkpoint_set_aside.hpp) is named, not checked: no start
// reads it.
#pragma once

#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "store/data_dir.hpp"
#include "store/writer_dirs.hpp"

namespace vasana {

struct DeepCheck {
  bool checkpoint = false;         // a checkpoint was found
  bool ok = true;                  // false: a mismatch (problems says which)
  std::vector<std::string> lines;  // what was checked, one line each
  std::vector<std::string> problems;
};

// Reads dir's segments (the caller has verified them) and checkpoint; changes nothing.
DeepCheck deep_check(const DataDir& dir, const Identity& id, const std::vector<WriterDir>& writers);

}  // namespace vasana
