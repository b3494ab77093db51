// The [embedding] section of the node's configuration: an OpenAI-compatible embeddings endpoint
// (embedding/embedding_client.hpp) that gives the store's vectors. Every key is documented in
// ops/vasana.example.toml. Without it (url empty) the node embeds text with the built-in
// deterministic embedder (replica/hash_embedder.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "store/vector_space.hpp"
#include "embedding/embedding_client.hpp"

namespace vasana {

struct EmbeddingOptions {
  // url, model, dimensions; api_key is read from api_key_file by `serve` (owner-only file).
  EmbeddingClientOptions client;
  std::string api_key_file;
  std::chrono::milliseconds timeout{30000};       // a request for memories' vectors
  std::chrono::milliseconds query_timeout{2000};  // a recall's query vector; past it recall answers without the semantic lane
  size_t batch_size = 32;     // texts per request
  size_t cache_size = 10000;  // vectors kept by text (LRU); 0: none
  size_t queue_size = 100000; // memories waiting for their vector; beyond it the oldest are dropped (the sweep finds them again)

  bool enabled() const { return !client.url.empty(); }
  // The store's vector space when enabled: the model's name and dimension, text format 1.
  VectorSpace space() const {
    VectorSpace s;
    s.model = client.model;
    s.dim = client.dimensions;
    return s;
  }
};

}  // namespace vasana
