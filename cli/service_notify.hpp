// The service manager's readiness protocol (systemd's sd_notify, Type=notify): when the process
// was started with $NOTIFY_SOCKET set, state lines such as "READY=1" are sent as one datagram
// to that Unix socket ('@' at the start names an abstract socket). Without $NOTIFY_SOCKET it
// does nothing, so `vasana serve` behaves the same under a shell, a script or systemd.
#pragma once

#include <string>

#include "protocol/status.hpp"

namespace vasana {

// Sends state ("READY=1", "STOPPING=1", "STATUS=...", lines joined by '\n') to $NOTIFY_SOCKET.
// Ok when it was sent or $NOTIFY_SOCKET is not set; an error naming the socket otherwise.
Status notify_service_manager(const std::string& state);

}  // namespace vasana
