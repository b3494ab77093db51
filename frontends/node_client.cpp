#include "frontends/node_client.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "store/data_dir.hpp"
#include "store/file_io.hpp"

namespace vasana {

struct NodeClient::Impl {
  explicit Impl(zmq::context_t* shared)
      : own(shared ? nullptr : std::make_unique<zmq::context_t>(1)),
        socket(shared ? *shared : *own, zmq::socket_type::dealer) {}
  std::unique_ptr<zmq::context_t> own;
  zmq::socket_t socket;
};

NodeClient::NodeClient(std::unique_ptr<Impl> impl, std::string endpoint)
    : impl_(std::move(impl)), endpoint_(std::move(endpoint)) {}

NodeClient::~NodeClient() = default;

Result<std::string> NodeClient::endpoint_of(const std::string& data_dir) {
  auto text = read_whole_file(data_dir + "/client.endpoint");
  if (!text.ok()) {
    if (::access(data_dir.c_str(), X_OK) != 0 && errno == EACCES)
      return Status::FailedPrecondition("permission denied reading " + data_dir +
                                        ": the data directory and the node's socket are private to the user the "
                                        "node runs as (and its group, with [node] group_access = true)");
    if (text.status().code() == Code::not_found)
      return Status::NotFound("no node is running on " + data_dir + " (no client.endpoint there); start one with `vasana serve --data " + data_dir + "`");
    return text.status();
  }
  if (!data_dir_maybe_in_use(DataDir{data_dir}))
    return Status::NotFound("no node is running on " + data_dir + " (the last one stopped without cleaning up); start one with `vasana serve --data " + data_dir + "`");
  auto nl = text->find('\n');
  std::string first = text->substr(0, nl);
  if (first.empty()) return Status::Corruption(data_dir + "/client.endpoint is empty");
  return first;
}

namespace {

// ZeroMQ connects in the background and retries forever, so a socket this user may not open
// would only show as a time-out. One plain connect(2) first says what is wrong at once.
Status probe_ipc_socket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path[0] == '@' || path.size() >= sizeof addr.sun_path) return Status::Ok();  // ZeroMQ decides
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Ok();
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  const int err = rc == 0 ? 0 : errno;
  ::close(fd);
  switch (err) {
    case 0: return Status::Ok();
    case EACCES:
    case EPERM:
      return Status::FailedPrecondition(
          "permission denied connecting to the node's socket " + path +
          ": only the user the node runs as (and its group, with [node] group_access = true) may connect");
    case ENOENT: return Status::NotFound("no node socket at " + path + ": is the node running?");
    case ECONNREFUSED: return Status::NotFound("nothing listens on the node socket " + path + ": is the node running?");
    default: return Status::Ok();  // let ZeroMQ try, and time out if it must
  }
}

}  // namespace

Result<std::unique_ptr<NodeClient>> NodeClient::connect(const std::string& endpoint, void* context,
                                                        NodeClientIdentity identity) {
  if (endpoint.rfind("ipc://", 0) == 0) {
    Status s = probe_ipc_socket(endpoint.substr(6));
    if (!s.ok()) return s;
  }
  auto impl = std::make_unique<Impl>(static_cast<zmq::context_t*>(context));
  try {
    impl->socket.set(zmq::sockopt::linger, 0);
    if (endpoint.find("://[") != std::string::npos) impl->socket.set(zmq::sockopt::ipv6, 1);
    if (identity.curve()) {
      impl->socket.set(zmq::sockopt::curve_serverkey, identity.server_public);
      impl->socket.set(zmq::sockopt::curve_publickey, identity.client_public);
      impl->socket.set(zmq::sockopt::curve_secretkey, identity.client_secret);
    }
    impl->socket.connect(endpoint);
  } catch (const zmq::error_t& e) {
    return Status::InvalidArgument("cannot connect to " + endpoint + ": " + e.what());
  }
  std::unique_ptr<NodeClient> client(new NodeClient(std::move(impl), endpoint));
  client->acting_as_ = std::move(identity.acting_as);
  client->via_ = std::move(identity.via);
  client->curve_ = identity.curve();
  return client;
}

void* NodeClient::socket_handle() { return impl_->socket.handle(); }

int NodeClient::notify_fd() { return impl_->socket.get(zmq::sockopt::fd); }

Result<uint64_t> NodeClient::send(ClientRequest request) {
  request.request_id = next_id_++;
  if (request.acting_as.empty()) request.acting_as = acting_as_;
  if (request.via.empty()) request.via = via_;
  std::string body = encode_request(request);
  try {
    std::array<zmq::const_buffer, 2> frames = {zmq::buffer(kClientTag.data(), kClientTag.size()), zmq::buffer(body)};
    if (!zmq::send_multipart(impl_->socket, frames)) return Status::IoError("client socket: send failed");
  } catch (const zmq::error_t& e) {
    return Status::IoError(std::string("client socket: ") + e.what());
  }
  return request.request_id;
}

Result<ClientResponse> NodeClient::receive(std::chrono::milliseconds timeout) {
  try {
    if (timeout.count() > 0) {
      zmq::pollitem_t item{impl_->socket.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, timeout);
    }
    std::vector<zmq::message_t> in;
    if (!zmq::recv_multipart(impl_->socket, std::back_inserter(in), zmq::recv_flags::dontwait))
      return Status::FailedPrecondition("no answer from the node at " + endpoint_ + " within " +
                                        std::to_string(timeout.count()) + " ms");
    if (in.size() != 2 || in[0].to_string_view() != kClientTag)
      return Status::Corruption("the node at " + endpoint_ + " answered in an unknown protocol");
    return decode_response(in[1].to_string_view());
  } catch (const zmq::error_t& e) {
    return Status::IoError(std::string("client socket: ") + e.what());
  }
}

Result<ClientResponse> NodeClient::call(ClientRequest request, std::chrono::milliseconds timeout) {
  auto id = send(std::move(request));
  if (!id.ok()) return id.status();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto res = receive(left);
    if (!res.ok()) {
      if (res.status().code() == Code::failed_precondition) break;
      return res;
    }
    // A late answer to an earlier request that timed out is not ours: keep waiting.
    if (res->request_id != 0 && res->request_id != *id) continue;
    return res;
  }
  return Status::FailedPrecondition("no answer from the node at " + endpoint_ + " within " +
                                    std::to_string(timeout.count()) + " ms" +
                                    (curve_ ? " (the node drops a client whose key it does not list, and one that "
                                              "expects another server key)"
                                            : ""));
}

}  // namespace vasana
