// An OpenAI-compatible embeddings endpoint in the test process (cpp-httplib on 127.0.0.1): POST
// /v1/embeddings answers deterministic vectors (vector_for), counts requests and texts, and can
// be slowed (every answer waits first) and stopped and started again on the same port.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace vasana::test {

class FakeEmbeddingServer {
 public:
  explicit FakeEmbeddingServer(uint32_t dim);
  ~FakeEmbeddingServer();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Stops listening (connections are refused) / listens again on the same port.
  void stop();
  void start();
  // Every answer waits this long before it is sent (a wait is cut short by stop()).
  void set_delay(std::chrono::milliseconds d);

  size_t requests() const;                     // requests answered with vectors
  size_t requests_received() const;            // requests that came in (answered or not yet)
  size_t times_embedded(const std::string& text) const;
  size_t texts() const;                        // texts embedded, all requests

  // The vector answered for text: unit length, from a hash of the text (texts differ: nearly
  // orthogonal vectors).
  static std::vector<float> vector_for(const std::string& text, uint32_t dim);

 private:
  void serve();
  const uint32_t dim_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::chrono::milliseconds delay_{0};
  size_t requests_ = 0, received_ = 0, texts_ = 0;
  std::map<std::string, size_t> embedded_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace vasana::test
