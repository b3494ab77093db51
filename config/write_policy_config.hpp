// The [write] and [realm."NAME"] sections of the node config (actors/write_policy.hpp): the
// write defaults, and per realm the keys that differ from them. Every key is checked on load.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "actors/write_policy.hpp"
#include "protocol/status.hpp"

namespace vasana {

// Reads root's [write] and [realm.*] tables (when present) into out. InvalidArgument naming the
// key for an unknown key, a wrong type or a value out of range.
Status parse_write_policy(const toml::table& root, WritePolicy& out);

}  // namespace vasana
