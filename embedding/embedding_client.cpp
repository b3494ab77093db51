#include "embedding/embedding_client.hpp"

#include <cmath>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace vasana {

namespace {

// Splits "scheme://host[:port][/prefix]" into origin and prefix (without a trailing '/').
bool split_url(const std::string& url, std::string& origin, std::string& prefix) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return false;
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return false;
  const size_t host_begin = scheme_end + 3;
  const size_t slash = url.find('/', host_begin);
  const std::string authority = url.substr(host_begin, slash == std::string::npos ? std::string::npos : slash - host_begin);
  if (authority.empty() || authority.find_first_of(" @?#") != std::string::npos) return false;
  const size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.back() != ']') {
    const std::string port = authority.substr(colon + 1);
    if (colon == 0 || port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const unsigned long p = std::stoul(port);
    if (p < 1 || p > 65535) return false;
  }
  origin = scheme + "://" + authority;
  prefix = slash == std::string::npos ? "" : url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return true;
}

std::string excerpt(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > 200 ? s + "..." : s;
}

}  // namespace

Status check_embedding_url(const std::string& url) {
  std::string origin, prefix;
  if (!split_url(url, origin, prefix))
    return Status::InvalidArgument("must be http://HOST[:PORT][/PREFIX] or https://... (got '" + url + "')");
  return Status::Ok();
}

struct EmbeddingClient::Call {
  explicit Call(const std::string& origin) : http(origin) {}
  httplib::Client http;
};

EmbeddingClient::EmbeddingClient(EmbeddingClientOptions options) : options_(std::move(options)) {
  std::string prefix;
  if (!split_url(options_.url, origin_, prefix)) origin_.clear();
  path_ = prefix + "/v1/embeddings";
}

EmbeddingClient::~EmbeddingClient() { stop(); }

void EmbeddingClient::stop() {
  std::lock_guard<std::mutex> g(mutex_);
  stopped_ = true;
  for (Call* c : calls_) c->http.stop();
}

Result<std::vector<std::vector<float>>> EmbeddingClient::embed(const std::vector<std::string>& texts,
                                                               std::chrono::milliseconds timeout) {
  const std::string where = "embedding provider " + options_.url;
  if (texts.empty()) return std::vector<std::vector<float>>{};
  if (origin_.empty()) return Status::InvalidArgument(where + ": not a usable url");
  nlohmann::json body = {{"model", options_.model}, {"input", texts}};
  Call call(origin_);
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (stopped_) return Status::IoError(where + ": stopped");
    calls_.insert(&call);
  }
  call.http.set_connection_timeout(timeout);
  call.http.set_read_timeout(timeout);
  call.http.set_write_timeout(timeout);
  call.http.set_keep_alive(false);
  httplib::Headers headers;
  if (!options_.api_key.empty()) headers.emplace("Authorization", "Bearer " + options_.api_key);
  httplib::Result res = call.http.Post(path_, headers, body.dump(), "application/json");
  {
    std::lock_guard<std::mutex> g(mutex_);
    calls_.erase(&call);
  }
  if (!res) {
    const httplib::Error e = res.error();
    const std::string why = e == httplib::Error::Connection ? "cannot connect"
                            : e == httplib::Error::Read     ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                                            : "request failed";
    return Status::IoError(where + ": " + why + " (" + httplib::to_string(e) + ")");
  }
  const int code = res->status;
  if (code != 200) {
    const std::string what = where + " answered " + std::to_string(code) + ": " + excerpt(res->body);
    if (code == 408 || code == 429 || code >= 500) return Status::IoError(what);
    return Status::InvalidArgument(what);
  }
  const nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
  const std::string form = where + ": the answer is not {\"data\": [{\"embedding\": [...], \"index\": i}, ...]}";
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array()) return Status::Incompatible(form);
  std::vector<std::vector<float>> out(texts.size());
  size_t position = 0;
  for (const auto& item : j["data"]) {
    if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) return Status::Incompatible(form);
    size_t index = position++;
    if (item.contains("index")) {
      if (!item["index"].is_number_unsigned() && !item["index"].is_number_integer()) return Status::Incompatible(form);
      const int64_t i = item["index"].get<int64_t>();
      if (i < 0 || size_t(i) >= texts.size()) return Status::Incompatible(where + ": an answer's index " + std::to_string(i) +
                                                                        " is not one of the " + std::to_string(texts.size()) + " texts sent");
      index = size_t(i);
    }
    const auto& e = item["embedding"];
    if (e.size() != options_.dimensions)
      return Status::Incompatible(where + ": model " + options_.model + " returned a vector of " + std::to_string(e.size()) +
                                  " dimensions; [embedding] dimensions is " + std::to_string(options_.dimensions));
    std::vector<float> v;
    v.reserve(e.size());
    for (const auto& x : e) {
      if (!x.is_number()) return Status::Incompatible(form);
      const float f = x.get<float>();
      if (!std::isfinite(f)) return Status::Incompatible(where + ": a vector holds a value that is not a finite float");
      v.push_back(f);
    }
    out[index] = std::move(v);
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].empty()) return Status::Incompatible(where + ": no vector for text " + std::to_string(i) + " of " + std::to_string(texts.size()));
  return out;
}

}  // namespace vasana
