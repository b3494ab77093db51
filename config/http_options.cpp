#include "config/http_options.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace vasana {

Status split_http_listen(const std::string& listen, std::string& host, int& port) {
  const Status form = Status::InvalidArgument(
      "must be ADDRESS:PORT with an IP address (127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080) and PORT 0 to 65535 "
      "(0: any free port) (got '" + listen + "')");
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return form;
  std::string h = listen.substr(0, colon);
  const std::string p = listen.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos || std::stoul(p) > 65535)
    return form;
  unsigned char buf[sizeof(in6_addr)];
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') return form;
    h = h.substr(1, h.size() - 2);
    if (::inet_pton(AF_INET6, h.c_str(), buf) != 1) return form;
  } else if (::inet_pton(AF_INET, h.c_str(), buf) != 1) {
    return form;
  }
  host = h;
  port = int(std::stoul(p));
  return Status::Ok();
}

}  // namespace vasana
