#include "cli/pipelined_calls.hpp"

#include <unordered_map>

namespace vasana {

Result<size_t> run_pipelined(NodeClient& client, std::vector<ClientRequest> requests, size_t window,
                             std::chrono::milliseconds timeout,
                             const std::function<bool(size_t, const ClientResponse&)>& on_answer) {
  std::unordered_map<uint64_t, size_t> in_flight;  // request id -> index
  size_t next = 0, answered = 0;
  bool stop = false;
  while (answered < next || (!stop && next < requests.size())) {
    while (!stop && next < requests.size() && in_flight.size() < window) {
      auto id = client.send(std::move(requests[next]));
      if (!id.ok()) return id.status();
      in_flight[*id] = next++;
    }
    auto r = client.receive(timeout);
    if (!r.ok()) return r.status();
    auto it = in_flight.find(r->request_id);
    if (it == in_flight.end()) continue;  // an answer to nothing we sent: ignore
    const size_t index = it->second;
    in_flight.erase(it);
    ++answered;
    if (!on_answer(index, *r)) stop = true;
  }
  return answered;
}

}  // namespace vasana
