// A damaged checkpoint is set aside, not deleted and not written over: DATA/checkpoint (a folder,
// or whatever else stands at that name) is renamed to DATA/checkpoint.damaged-<ms since the epoch>
// for inspection, and the next checkpoint starts a new database at DATA/checkpoint. A rename costs
// no space, so this works on a full disk too. A checkpoint is derived data (the segments hold
// everything), so at most one set-aside checkpoint is kept: setting aside another deletes the
// older ones, which keeps a damage that recurs from filling the disk.
//
// Nothing here is read by a start: a node neither loads nor copies a set-aside checkpoint
// (`vasana backup` leaves it out, `vasana verify --deep` names it without checking it).
//
// Threading: call from one thread at a time per data directory (the checkpoint task's).
#pragma once

#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

// True for a name (of an entry of a data directory) that set_aside_checkpoint() gives.
bool is_set_aside_checkpoint(const std::string& name);

// The names of the set-aside checkpoints in data_root, oldest first.
std::vector<std::string> set_aside_checkpoints(const std::string& data_root);

// Renames data_root/checkpoint to data_root/checkpoint.damaged-<ms> (fsyncing data_root), then
// removes the set-aside checkpoints older than it, each removal described in actions. Returns
// the new name. NotFound when there is no data_root/checkpoint; IoError when the rename fails
// (DATA/checkpoint is then as it was).
Result<std::string> set_aside_checkpoint(const std::string& data_root, std::vector<std::string>* actions);

}  // namespace vasana
