#include "frontends/http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <zmq.hpp>

#include "frontends/http_admission.hpp"
#include "frontends/http_event_loop.hpp"
#include "frontends/http_router.hpp"
#include "frontends/http_routes.hpp"
#include "frontends/http_worker_pool.hpp"
#include "frontends/node_client.hpp"
#include "frontends/tls_stream.hpp"

namespace vasana {

namespace {

// A listening, non-blocking socket on host:port (port 0: the kernel's choice, written back).
Result<int> listen_on(const std::string& host, int& port, const std::string& listen) {
  sockaddr_storage a{};
  socklen_t len = 0;
  if (host.find(':') != std::string::npos) {
    auto& v6 = reinterpret_cast<sockaddr_in6&>(a);
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(uint16_t(port));
    ::inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr);
    len = sizeof v6;
  } else {
    auto& v4 = reinterpret_cast<sockaddr_in&>(a);
    v4.sin_family = AF_INET;
    v4.sin_port = htons(uint16_t(port));
    ::inet_pton(AF_INET, host.c_str(), &v4.sin_addr);
    len = sizeof v4;
  }
  const int fd = ::socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(std::string("http: cannot make a socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 1024) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return Status::IoError("http: cannot bind " + listen + " (" + why + ": in use, or not an address of this host)");
  }
  len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(a).sin6_port
                                       : reinterpret_cast<sockaddr_in&>(a).sin_port);
  return fd;
}

// Every open connection is a descriptor: let the process have as many as its hard limit allows.
void raise_descriptor_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
}

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  zmq::context_t context{1};  // shared by the workers' clients; outlives them
  std::unique_ptr<TlsContext> tls;
  HttpRouter router;
  std::shared_ptr<const void> routes;
  std::unique_ptr<HttpAdmission> admission;
  // Destroyed in reverse order: the workers (which write on the loop's connections and post to
  // it) end before the loop goes.
  std::unique_ptr<HttpEventLoop> loop;
  std::unique_ptr<HttpWorkerPool> workers;
  std::string host;
  int port = 0;
  bool stopped = false;

  // A worker runs the request's route and gives the loop its answer.
  void serve(HttpConnection::Job& job) {
    HttpResponse res;
    try {
      router.dispatch(job.request, res, *job.who);
    } catch (const std::exception& e) {
      res = json_error(500, "internal", std::string("the HTTP server failed to answer: ") + e.what());
    } catch (...) {
      res = json_error(500, "internal", "the HTTP server failed to answer");
    }
    // The connection is this worker's until it posts: the answer goes out from here as far as
    // the socket takes it without waiting, so the client need not wait for the loop's turn.
    std::string bytes = serialize_response(res, job.keep_alive, job.head_only);
    size_t sent = 0;
    bool broken = false;
    while (sent < bytes.size()) {
      size_t put = 0;
      const StreamIo r = job.stream->write(bytes.data() + sent, bytes.size() - sent, put);
      if (r != StreamIo::ok || put == 0) {
        broken = r == StreamIo::failed || r == StreamIo::closed;
        break;
      }
      sent += put;
    }
    bytes.erase(0, sent);
    loop->post(job.connection, std::move(bytes), res.status, job.keep_alive, broken);
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::start(HttpServerOptions options) {
  bool any_token = false;
  for (const ClientGrant& g : options.clients.all()) any_token = any_token || !g.token.empty();
  if (!any_token)
    return Status::FailedPrecondition(
        "http.listen is set but no client has a token (give a [clients.\"NAME\"] table a token_file): nobody could use "
        "the HTTP API");
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  Impl& im = *impl;
  Status where = split_http_listen(im.options.http.listen, im.host, im.port);
  if (!where.ok()) return Status::InvalidArgument("http.listen: " + where.message());
  if (im.options.http.tls()) {
    auto tls = TlsContext::load(im.options.http.tls_cert_file, im.options.http.tls_key_file);
    if (!tls.ok()) return Status::IoError("http: " + tls.status().message());
    im.tls = std::move(tls.value());
  }

  HttpRouteEnv env;
  env.limits = im.options.limits;
  const auto timeout = im.options.call_timeout;
  env.call = [timeout](ClientRequest r) -> Result<ClientResponse> {
    auto client = HttpWorkerPool::current_client();
    if (!client.ok()) return client.status();
    return (*client)->call(std::move(r), timeout);
  };
  env.counts = [&im] { return im.admission->counts(); };
  im.routes = add_http_routes(im.router, env);
  im.admission = std::make_unique<HttpAdmission>(im.options.http, im.options.clients, im.options.probe, im.options.log);

  auto listener = listen_on(im.host, im.port, im.options.http.listen);
  if (!listener.ok()) return listener.status();
  raise_descriptor_limit();
  im.workers = std::make_unique<HttpWorkerPool>(im.options.http.workers, im.options.node_endpoint, im.context);
  HttpWorkerPool* workers = im.workers.get();
  auto loop = HttpEventLoop::open(*listener, im.options.http, im.tls.get(), *im.admission,
                                  [&im, workers](HttpConnection::Job job) {
                                    workers->submit([&im, job = std::move(job)]() mutable { im.serve(job); });
                                  });
  if (!loop.ok()) return loop.status();  // the loop closed the listener
  im.loop = std::move(loop.value());
  im.loop->start();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  if (impl_->loop) impl_->loop->stop();
  if (impl_->workers) impl_->workers->shutdown();
}

int HttpServer::port() const { return impl_->port; }

std::string HttpServer::url() const {
  const bool v6 = impl_->host.find(':') != std::string::npos;
  return std::string(impl_->options.http.tls() ? "https" : "http") + "://" +
         (v6 ? "[" + impl_->host + "]" : impl_->host) + ":" + std::to_string(impl_->port);
}

HttpCounts HttpServer::counts() const { return impl_->admission->counts(); }

}  // namespace vasana
