// Many requests over one client connection with up to `window` in flight, answered in any
// order and matched by request id: what import and recall --batch use to go faster than one
// round trip at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

#include "frontends/node_client.hpp"

namespace vasana {

// Sends requests[0..n) and calls on_answer(i, answer) for each, in the order answers arrive.
// Stops sending (but collects what is in flight) once on_answer returns false. Returns the
// number of requests answered; an unanswered one (timeout) ends the run with its status.
Result<size_t> run_pipelined(NodeClient& client, std::vector<ClientRequest> requests, size_t window,
                             std::chrono::milliseconds timeout,
                             const std::function<bool(size_t, const ClientResponse&)>& on_answer);

}  // namespace vasana
