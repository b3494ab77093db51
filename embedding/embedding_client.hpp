// A client of an OpenAI-compatible embeddings endpoint (what OpenAI, Ollama, llama.cpp's server
// and Hugging Face TEI all answer):
//   POST {url}/v1/embeddings  {"model": MODEL, "input": [TEXT, ...]}
//   -> 200 {"data": [{"embedding": [x, ...], "index": i}, ...]}
// Pure request and answer: no queue, no cache, no retries (actors/embedding_worker.hpp does
// those). HTTPS through OpenSSL when url starts with https://.
//
// Threading: embed() may run on several threads at once (each call has its own connection);
// stop() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

struct EmbeddingClientOptions {
  // "http://127.0.0.1:11434" or "https://host/prefix": scheme, host, optional port and path
  // prefix; the request goes to {url}/v1/embeddings. Empty: no provider.
  std::string url;
  std::string model;        // sent as "model"; also the vector space's model name
  uint32_t dimensions = 0;  // every returned vector must have exactly this many numbers
  std::string api_key;      // "Authorization: Bearer KEY" when not empty
};

// InvalidArgument unless url is http:// or https:// with a host (and, when given, a port from
// 1 to 65535): the form, for a configuration error.
Status check_embedding_url(const std::string& url);

class EmbeddingClient {
 public:
  explicit EmbeddingClient(EmbeddingClientOptions options);
  ~EmbeddingClient();
  EmbeddingClient(const EmbeddingClient&) = delete;
  EmbeddingClient& operator=(const EmbeddingClient&) = delete;

  // The vectors of texts, in their order, from one request. timeout bounds each of connecting,
  // sending and waiting for the answer. Errors (the message names the url):
  //   IoError: no connection, a timeout, stop(), or an answer 408, 429 or 5xx (worth retrying);
  //   InvalidArgument: any other answer that is not 200 (the provider refuses these texts);
  //   Incompatible: a 200 whose body is not the form above, has a vector of another dimension
  //     or a value that is not finite, or misses a text (a provider or model mismatch).
  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts,
                                                std::chrono::milliseconds timeout);

  // Aborts the calls in progress and makes every later call fail with IoError at once.
  void stop();

  const EmbeddingClientOptions& options() const { return options_; }

 private:
  struct Call;
  EmbeddingClientOptions options_;
  std::string origin_;  // scheme://host[:port]
  std::string path_;    // prefix + "/v1/embeddings"
  std::mutex mutex_;
  bool stopped_ = false;          // guarded by mutex_
  std::set<Call*> calls_;         // in progress; guarded by mutex_
};

}  // namespace vasana
