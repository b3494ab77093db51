#include "cli/http_server.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>
#include <zmq.hpp>

#include "cli/http_routes.hpp"
#include "cli/node_client.hpp"

namespace vasana {

namespace {

// The worker threads of the server (httplib's TaskQueue). Each thread owns one NodeClient,
// connected on its first call and kept for the thread's life, and finds it through
// current_client() while it runs a task.
class ClientWorkers : public httplib::TaskQueue {
 public:
  ClientWorkers(size_t n, std::string endpoint, zmq::context_t& context) : endpoint_(std::move(endpoint)), context_(context) {
    for (size_t i = 0; i < n; ++i) threads_.emplace_back([this] { run(); });
  }
  ~ClientWorkers() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> g(mu_);
      jobs_.push_back(std::move(fn));
    }
    cv_.notify_one();
  }

  // Runs the jobs already queued, then ends the threads (their clients close with them).
  void shutdown() override {
    {
      std::lock_guard<std::mutex> g(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // The calling worker thread's client, connected now if it is not yet; an error when this is
  // not a worker thread or the node's socket cannot be opened.
  static Result<NodeClient*> current_client() {
    if (!t_self) return Status::FailedPrecondition("not a worker thread of the HTTP server");
    if (!*t_self) {
      auto c = NodeClient::connect(t_endpoint, t_context);
      if (!c.ok()) return Status::FailedPrecondition("cannot reach the node: " + c.status().message());
      *t_self = std::move(c.value());
    }
    return t_self->get();
  }

 private:
  void run() {
    std::unique_ptr<NodeClient> client;
    t_self = &client;
    t_endpoint = endpoint_;
    t_context = &context_;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> g(mu_);
        cv_.wait(g, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) break;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
    t_self = nullptr;
  }

  static thread_local std::unique_ptr<NodeClient>* t_self;
  static thread_local std::string t_endpoint;
  static thread_local void* t_context;

  const std::string endpoint_;
  zmq::context_t& context_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

thread_local std::unique_ptr<NodeClient>* ClientWorkers::t_self = nullptr;
thread_local std::string ClientWorkers::t_endpoint;
thread_local void* ClientWorkers::t_context = nullptr;

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  zmq::context_t context{1};  // shared by the workers' clients; outlives them
  std::unique_ptr<httplib::Server> server;
  std::shared_ptr<const void> routes;
  std::thread listener;
  std::string host;
  int port = 0;
  std::atomic<uint64_t> requests{0}, unauthorized{0}, client_errors{0}, server_errors{0};
  bool stopped = false;
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::start(HttpServerOptions options) {
  bool any_token = false;
  for (const ClientGrant& g : options.clients.all()) any_token = any_token || !g.token.empty();
  if (!any_token)
    return Status::FailedPrecondition(
        "http.listen is set but no client has a token (give a [clients.\"NAME\"] table a token_file): nobody could use the HTTP API");
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  Impl& im = *impl;
  Status where = split_http_listen(im.options.http.listen, im.host, im.port);
  if (!where.ok()) return Status::InvalidArgument("http.listen: " + where.message());

  if (im.options.http.tls()) {
    auto ssl = std::make_unique<httplib::SSLServer>(im.options.http.tls_cert_file.c_str(),
                                                    im.options.http.tls_key_file.c_str());
    if (!ssl->is_valid())
      return Status::IoError("http: cannot load the TLS certificate " + im.options.http.tls_cert_file + " and key " +
                             im.options.http.tls_key_file + " (PEM files expected, the key matching the certificate)");
    im.server = std::move(ssl);
  } else {
    im.server = std::make_unique<httplib::Server>();
  }
  httplib::Server& s = *im.server;
  const size_t workers = std::max<size_t>(1, im.options.workers);
  const std::string endpoint = im.options.node_endpoint;
  zmq::context_t* context = &im.context;
  s.new_task_queue = [workers, endpoint, context] { return new ClientWorkers(workers, endpoint, *context); };
  s.set_payload_max_length(im.options.http.max_body_bytes);
  s.set_keep_alive_max_count(1000);
  s.set_tcp_nodelay(true);

  // Every request needs a known bearer token, before any route (or its absence) is looked at.
  s.set_pre_routing_handler([&im](const httplib::Request& req, httplib::Response& res) {
    if (bearer_client(req, im.options.clients)) return httplib::Server::HandlerResponse::Unhandled;
    im.unauthorized.fetch_add(1);
    res.set_header("WWW-Authenticate", "Bearer");
    set_json_error(res, 401, "unauthorized", "a valid \"Authorization: Bearer TOKEN\" header is required");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Statuses httplib sets itself (no route, body too large) get a JSON body too.
  s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 404)
      set_json_error(res, 404, "no_route", "no route for " + req.method + " " + req.path + " (see docs/http-api.md)");
    else if (res.status == 413)
      set_json_error(res, 413, "payload_too_large", "the request body is larger than http.max_body_bytes");
    else
      set_json_error(res, res.status, "http_error", "the request could not be served (HTTP " + std::to_string(res.status) + ")");
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    set_json_error(res, 500, "internal", "the HTTP server failed to answer: " + what);
  });
  s.set_logger([&im](const httplib::Request&, const httplib::Response& res) {
    im.requests.fetch_add(1);
    if (res.status >= 500)
      im.server_errors.fetch_add(1);
    else if (res.status >= 400)
      im.client_errors.fetch_add(1);
  });

  HttpRouteEnv env;
  env.clients = &im.options.clients;
  env.limits = im.options.limits;
  const auto timeout = im.options.call_timeout;
  env.call = [timeout](ClientRequest r) -> Result<ClientResponse> {
    auto client = ClientWorkers::current_client();
    if (!client.ok()) return client.status();
    return (*client)->call(std::move(r), timeout);
  };
  Impl* self = &im;
  env.counts = [self] {
    HttpCounts c;
    c.requests = self->requests.load();
    c.unauthorized = self->unauthorized.load();
    c.client_errors = self->client_errors.load();
    c.server_errors = self->server_errors.load();
    return c;
  };
  im.routes = add_http_routes(s, env);

  if (im.port == 0) {
    im.port = s.bind_to_any_port(im.host);
    if (im.port < 0) return Status::IoError("http: cannot bind " + im.options.http.listen);
  } else if (!s.bind_to_port(im.host, im.port)) {
    return Status::IoError("http: cannot bind " + im.options.http.listen + " (in use, or not an address of this host)");
  }
  im.listener = std::thread([&s] { s.listen_after_bind(); });
  // stop() only reaches a server that is listening: wait for it (a few milliseconds).
  for (int i = 0; i < 5000 && !s.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->server->stop();
  if (impl_->listener.joinable()) impl_->listener.join();
}

int HttpServer::port() const { return impl_->port; }

std::string HttpServer::url() const {
  const bool v6 = impl_->host.find(':') != std::string::npos;
  return std::string(impl_->options.http.tls() ? "https" : "http") + "://" + (v6 ? "[" + impl_->host + "]" : impl_->host) +
         ":" + std::to_string(impl_->port);
}

HttpCounts HttpServer::counts() const {
  HttpCounts c;
  c.requests = impl_->requests.load();
  c.unauthorized = impl_->unauthorized.load();
  c.client_errors = impl_->client_errors.load();
  c.server_errors = impl_->server_errors.load();
  return c;
}

}  // namespace vasana
