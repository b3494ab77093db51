#include "tests/fault/netns_hosts.hpp"

#include <unistd.h>

#include "tests/cli/child_process.hpp"

namespace vasana::test {

namespace {

constexpr const char* kIp = "/usr/sbin/ip";

}  // namespace

std::string NetnsHosts::ip_cmd(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kIp};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = run_program(kIp, argv, scratch_, "", std::chrono::seconds(10));
  if (r.status.exited && r.status.code == 0) return "";
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd + ": " + r.status.describe() + ": " + r.err;
}

Result<std::unique_ptr<NetnsHosts>> NetnsHosts::create(size_t n, const std::string& scratch_dir) {
  if (::geteuid() != 0) return Status::FailedPrecondition("network namespaces need root");
  if (::access(kIp, X_OK) != 0) return Status::FailedPrecondition(std::string(kIp) + " is missing (iproute2)");
  std::unique_ptr<NetnsHosts> h(new NetnsHosts());
  h->scratch_ = scratch_dir;
  const std::string tag = std::to_string(::getpid() % 100000);
  const std::string subnet = "10.77." + std::to_string(::getpid() % 250) + ".";
  const std::string management = "10.78." + std::to_string(::getpid() % 250) + ".";
  h->bridge_ = "vbr" + tag;
  if (std::string e = h->ip_cmd({"link", "add", h->bridge_, "type", "bridge"}); !e.empty()) {
    h->bridge_.clear();
    return Status::FailedPrecondition(e);
  }
  if (std::string e = h->ip_cmd({"link", "set", h->bridge_, "up"}); !e.empty()) return Status::FailedPrecondition(e);
  for (size_t i = 0; i < n; ++i) {
    const std::string ns = "vns" + tag + "-" + std::to_string(i);
    const std::string host_end = "vh" + tag + "-" + std::to_string(i);
    const std::string ns_end = "vn" + tag + "-" + std::to_string(i);
    const std::string ip = subnet + std::to_string(i + 1);
    if (std::string e = h->ip_cmd({"netns", "add", ns}); !e.empty()) return Status::FailedPrecondition(e);
    h->ns_.push_back(ns);
    if (std::string e = h->ip_cmd({"link", "add", host_end, "type", "veth", "peer", "name", ns_end}); !e.empty())
      return Status::FailedPrecondition(e);
    h->host_ends_.push_back(host_end);
    for (const std::vector<std::string>& step :
         std::vector<std::vector<std::string>>{{"link", "set", ns_end, "netns", ns},
                                               {"link", "set", host_end, "master", h->bridge_},
                                               {"link", "set", host_end, "up"},
                                               {"-n", ns, "link", "set", "lo", "up"},
                                               {"-n", ns, "addr", "add", ip + "/24", "dev", ns_end},
                                               {"-n", ns, "link", "set", ns_end, "up"}})
      if (std::string e = h->ip_cmd(step); !e.empty()) return Status::FailedPrecondition(e);
    h->ips_.push_back(ip);
    // The management link: a veth pair of its own, a /30 per host.
    const std::string here = "vm" + tag + "-" + std::to_string(i);
    const std::string there = "vq" + tag + "-" + std::to_string(i);
    const std::string here_ip = management + std::to_string(4 * i + 1);
    const std::string there_ip = management + std::to_string(4 * i + 2);
    if (std::string e = h->ip_cmd({"link", "add", here, "type", "veth", "peer", "name", there}); !e.empty())
      return Status::FailedPrecondition(e);
    h->host_ends_.push_back(here);
    for (const std::vector<std::string>& step :
         std::vector<std::vector<std::string>>{{"link", "set", there, "netns", ns},
                                               {"addr", "add", here_ip + "/30", "dev", here},
                                               {"link", "set", here, "up"},
                                               {"-n", ns, "addr", "add", there_ip + "/30", "dev", there},
                                               {"-n", ns, "link", "set", there, "up"}})
      if (std::string e = h->ip_cmd(step); !e.empty()) return Status::FailedPrecondition(e);
    h->management_ips_.push_back(there_ip);
  }
  return h;
}

NetnsHosts::~NetnsHosts() {
  // Deleting a namespace deletes the veth end in it, and with it the host end.
  for (const auto& ns : ns_) (void)ip_cmd({"netns", "del", ns});
  for (const auto& e : host_ends_) (void)ip_cmd({"link", "del", e});  // already gone: ignored
  if (!bridge_.empty()) (void)ip_cmd({"link", "del", bridge_});
}

std::vector<std::string> NetnsHosts::prefix(size_t i) const { return {kIp, "netns", "exec", ns_[i]}; }

// host_ends_ holds each host's bridge end, then its management end.
std::string NetnsHosts::cut(size_t i) { return ip_cmd({"link", "set", host_ends_[2 * i], "down"}); }
std::string NetnsHosts::heal(size_t i) { return ip_cmd({"link", "set", host_ends_[2 * i], "up"}); }

}  // namespace vasana::test
