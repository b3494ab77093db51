// Replication settings of one node ([sync] in the configuration file, ops/vasana.example.toml).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace vasana {

struct PeerConfig {
  std::string address;     // the peer's listen endpoint, "tcp://127.0.0.1:7102"
  std::string public_key;  // its CurveZMQ public key (Z85): who it must be
};

struct SyncOptions {
  std::string cluster;                    // every node of a cluster names the same id
  std::string listen;                     // serving side endpoint; "" = serve nobody
  std::vector<PeerConfig> peers;          // whom this node fetches from (each way is configured)
  std::string secret_key;                 // this node's CurveZMQ secret key (Z85)
  std::vector<std::string> allowed_keys;  // may connect besides the peers' keys (read-only followers)
  uint32_t fetch_bytes = 4u << 20;        // most bytes one fetch asks for (memory bound per writer)
  std::chrono::milliseconds advert_interval{1000};  // anti-entropy: re-advertise at least this often
  std::chrono::milliseconds peer_timeout{3000};     // a peer silent this long is down
  // Another writer's op stamped more than this ahead of this node's clock is held until the
  // clock catches up (sync/mirror_set.hpp, ClockBound).
  std::chrono::milliseconds max_clock_skew{60000};
  // Acknowledgement: 0 = after the local sync ("local"), N = after N peers synced it too
  // ("replicated:N"); a write not replicated in time is answered with an error saying it is
  // durable here but not yet on N peers.
  uint32_t ack_replicas = 0;
  std::chrono::milliseconds ack_timeout{5000};

  // Shared-directory mode (sync/shared_dir_tailer.hpp): the folder holding every node's data
  // directory; "" = off. Works alone or beside the network.
  std::string shared_parent;
  std::chrono::milliseconds shared_poll{20};  // how often the siblings' folders are looked at

  // Network replication: a listen address or peers (needs a key pair).
  bool network() const { return !listen.empty() || !peers.empty(); }
};

}  // namespace vasana
