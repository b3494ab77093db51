// Hosts on one machine for tests of what crosses a network: n Linux network namespaces, each
// with its own address on one bridge (10.77.X.i+1/24), made with iproute2 (`ip netns`, veth,
// bridge) and removed by the destructor. A host is cut off by taking its end of the bridge down
// (the namespace's link loses its carrier: nothing passes either way) and healed by bringing it
// up again: a real partition, not a proxy that drops bytes. Each host also has a management
// link of its own to this (the root) namespace, 10.78.X.4i+2 (this side .4i+1), which a cut
// leaves up: a Prometheus here scrapes a host that is cut off from the others.
//
// Needs root (CAP_NET_ADMIN) and the bridge and veth drivers; create() says why not otherwise.
// Names carry the process id, so concurrent test processes do not collide.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana::test {

class NetnsHosts {
 public:
  // FailedPrecondition when this machine cannot make them (not root, no netns, no bridge),
  // with the command that failed and its message.
  static Result<std::unique_ptr<NetnsHosts>> create(size_t n, const std::string& scratch_dir);
  ~NetnsHosts();

  size_t size() const { return ns_.size(); }
  const std::string& ip(size_t i) const { return ips_[i]; }
  // Host i's address on its management link, reachable from this namespace during a cut.
  const std::string& management_ip(size_t i) const { return management_ips_[i]; }
  // The command prefix that runs a program on host i: {"ip", "netns", "exec", NAME}.
  std::vector<std::string> prefix(size_t i) const;
  // Cuts host i off from every other (and heals it); "" or why the command failed.
  std::string cut(size_t i);
  std::string heal(size_t i);

 private:
  NetnsHosts() = default;
  std::string ip_cmd(const std::vector<std::string>& args);  // "" or the failure
  std::string scratch_;
  std::string bridge_;
  std::vector<std::string> ns_, host_ends_, ips_, management_ips_;
};

}  // namespace vasana::test
