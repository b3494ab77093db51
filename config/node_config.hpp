// The node's configuration file (TOML, `--config FILE`). Every key, its default and its range
// are documented in ops/vasana.example.toml; this file is the code that enforces them. An
// unknown key, a wrong type or an out-of-range value is an error naming the key: a typo never
// silently falls back to a default.
#pragma once

#include <cstddef>
#include <string>

#include "actors/checkpoint_task.hpp"
#include "embedding/embedding_options.hpp"
#include "actors/write_policy.hpp"
#include "actors/writer_state.hpp"
#include "config/http_options.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/client_grants.hpp"
#include "protocol/status.hpp"
#include "replica/semantic_lane.hpp"
#include "store/log_writer.hpp"
#include "sync/sync_options.hpp"

namespace vasana {

struct NodeConfig {
  std::string data_dir;      // [node] data_dir; empty = from --data / VASANA_DATA
  size_t worker_threads = 2;  // [node] worker_threads
  // [node] group_access: false = the data directory, its files and the client socket are
  // the owner's only (0700/0600); true = the owner's group may read them and connect (0750/0640,
  // socket 0660). See store/file_access.hpp.
  bool group_access = false;
  std::string client_tcp;    // [client] tcp; empty = IPC socket only
  GroupCommitOptions group_commit;
  LogWriterOptions log;
  InputLimits limits;
  std::string scoring_file;  // [recall] scoring_file; empty = built-in defaults
  // [recall] semantic_exact_limit, semantic_ef_construction, semantic_ef_search
  SemanticLaneOptions semantic;
  bool builtin_embedding = true;   // [recall] builtin_embedding
  bool hdc_lane = false;           // [recall] hdc_lane
  // [sync]: replication. secret_key_file is read by `serve` (sync.secret_key stays empty here);
  // relative paths in the file are relative to the file's folder.
  SyncOptions sync;
  std::string secret_key_file;
  std::string metrics_listen;  // [metrics] listen, "HOST:PORT" (numeric host); empty = no exporter
  CheckpointOptions checkpoint;  // [checkpoint] enabled, interval_s, min_ops
  WritePolicy write_policy;    // [write] and [realm."NAME"] (config/write_policy_config.hpp)
  // [clients."NAME"]: client identities and their grants (config/client_grants_config.hpp); token
  // files are read by `serve` (load_client_tokens), not here.
  ClientGrants clients;
  HttpOptions http;  // [http]: the HTTP/JSON API (frontends/http_server.hpp); off unless listen is set
  // [embedding]: an embeddings endpoint for the store's vectors; off unless url is set (then model
  // and dimensions are required). api_key_file is read by `serve` (client.api_key stays empty here).
  EmbeddingOptions embedding;
};

// Defaults when path is empty; otherwise the file's values over the defaults.
Result<NodeConfig> load_node_config(const std::string& path);

// Parses TOML text (path is only used in messages). Exposed for tests.
Result<NodeConfig> parse_node_config(const std::string& text, const std::string& path);

}  // namespace vasana
