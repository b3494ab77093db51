#include "frontends/http_message.hpp"

#include "protocol/json_text.hpp"

namespace vasana {

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

size_t HttpRequest::header_count(std::string_view name) const {
  size_t n = 0;
  for (const HttpHeader& h : headers) n += equals_ignore_case(h.name, name) ? 1 : 0;
  return n;
}

const std::string* HttpRequest::header(std::string_view name) const {
  for (const HttpHeader& h : headers)
    if (equals_ignore_case(h.name, name)) return &h.value;
  return nullptr;
}

size_t HttpRequest::param_count(std::string_view key) const {
  size_t n = 0;
  for (const auto& [k, v] : params) n += k == key ? 1 : 0;
  return n;
}

std::string HttpRequest::param(std::string_view key, size_t i) const {
  for (const auto& [k, v] : params) {
    if (k != key) continue;
    if (i == 0) return v;
    --i;
  }
  return "";
}

void HttpResponse::set_header(std::string name, std::string value) {
  for (HttpHeader& h : headers) {
    if (equals_ignore_case(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back(HttpHeader{std::move(name), std::move(value)});
}

void HttpResponse::set_content(std::string body_text, std::string type) {
  body = std::move(body_text);
  content_type = std::move(type);
}

HttpResponse json_error(int status, const std::string& code, const std::string& message) {
  HttpResponse res;
  res.status = status;
  res.set_content(JsonObject().str("error", code).str("message", message).done(), "application/json");
  return res;
}

const char* http_reason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 417:
      return "Expectation Failed";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string serialize_response(const HttpResponse& res, bool keep_alive, bool head_only) {
  std::string out;
  out.reserve(160 + res.body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(res.status);
  out += ' ';
  out += http_reason(res.status);
  out += "\r\n";
  if (!res.content_type.empty()) out += "Content-Type: " + res.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  for (const HttpHeader& h : res.headers) out += h.name + ": " + h.value + "\r\n";
  out += "\r\n";
  if (!head_only) out += res.body;
  return out;
}

}  // namespace vasana
