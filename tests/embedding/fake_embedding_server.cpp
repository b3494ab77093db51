#include "tests/embedding/fake_embedding_server.hpp"

#include <cmath>
#include <stdexcept>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace vasana::test {

std::vector<float> FakeEmbeddingServer::vector_for(const std::string& text, uint32_t dim) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  std::vector<float> v(dim);
  double norm = 0;
  for (uint32_t i = 0; i < dim; ++i) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    v[i] = float(int64_t(h % 2001) - 1000) / 1000.0f;
    norm += double(v[i]) * v[i];
  }
  for (float& x : v) x = float(x / std::sqrt(norm));
  return v;
}

FakeEmbeddingServer::FakeEmbeddingServer(uint32_t dim) : dim_(dim) { start(); }

FakeEmbeddingServer::~FakeEmbeddingServer() { stop(); }

void FakeEmbeddingServer::start() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = false;
  }
  server_ = std::make_unique<httplib::Server>();
  server_->Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.contains("input") || !body["input"].is_array()) {
      res.status = 400;
      res.set_content("{\"error\":\"input must be an array\"}", "application/json");
      return;
    }
    std::unique_lock<std::mutex> g(mutex_);
    ++received_;
    // set_delay() wakes the waiting answers: a shorter delay lets them go at once.
    const auto since = std::chrono::steady_clock::now();
    cv_.wait(g, [&] { return stopping_ || std::chrono::steady_clock::now() >= since + delay_; });
    if (stopping_) {
      res.status = 503;
      return;
    }
    ++requests_;
    nlohmann::json data = nlohmann::json::array();
    for (size_t i = 0; i < body["input"].size(); ++i) {
      const std::string text = body["input"][i].get<std::string>();
      ++embedded_[text];
      ++texts_;
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vector_for(text, dim_)}});
    }
    res.set_content(nlohmann::json{{"object", "list"}, {"data", data}, {"model", body.value("model", "")}}.dump(),
                    "application/json");
  });
  if (port_ == 0) {
    port_ = server_->bind_to_any_port("127.0.0.1");
  } else if (!server_->bind_to_port("127.0.0.1", port_)) {
    throw std::runtime_error("fake embedding server: cannot listen again on port " + std::to_string(port_));
  }
  if (port_ <= 0) throw std::runtime_error("fake embedding server: cannot listen");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // Bound already: connections queue until the thread accepts them.
  for (int i = 0; i < 200 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

void FakeEmbeddingServer::stop() {
  if (!server_) return;
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

void FakeEmbeddingServer::set_delay(std::chrono::milliseconds d) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    delay_ = d;
  }
  cv_.notify_all();
}

size_t FakeEmbeddingServer::requests() const {
  std::lock_guard<std::mutex> g(mutex_);
  return requests_;
}

size_t FakeEmbeddingServer::requests_received() const {
  std::lock_guard<std::mutex> g(mutex_);
  return received_;
}

size_t FakeEmbeddingServer::texts() const {
  std::lock_guard<std::mutex> g(mutex_);
  return texts_;
}

size_t FakeEmbeddingServer::times_embedded(const std::string& text) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = embedded_.find(text);
  return it == embedded_.end() ? 0 : it->second;
}

}  // namespace vasana::test
