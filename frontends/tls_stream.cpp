#include "frontends/tls_stream.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace vasana {

namespace {

// The reason of the oldest error on this thread's OpenSSL queue ("" when none); clears the queue.
std::string openssl_reason() {
  const unsigned long e = ERR_peek_error();
  std::string out;
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out = buf;
  }
  ERR_clear_error();
  return out;
}

class TlsStream : public HttpStream {
 public:
  TlsStream(int fd, SSL* ssl) : HttpStream(fd), ssl_(ssl) {}
  ~TlsStream() override { SSL_free(ssl_); }

  StreamIo handshake() override {
    ERR_clear_error();
    const int r = SSL_accept(ssl_);
    return r == 1 ? StreamIo::ok : outcome(r);
  }

  StreamIo read(char* buf, size_t cap, size_t& got) override {
    ERR_clear_error();
    const int r = SSL_read_ex(ssl_, buf, cap, &got);
    return r == 1 ? StreamIo::ok : outcome(r);
  }

  StreamIo write(const char* data, size_t n, size_t& put) override {
    ERR_clear_error();
    const int r = SSL_write_ex(ssl_, data, n, &put);
    return r == 1 ? StreamIo::ok : outcome(r);
  }

  bool buffered() const override { return SSL_has_pending(ssl_) == 1; }

  void shutdown_send() override {
    // A close_notify is only allowed on a session that finished its handshake and did not fail.
    if (!broken_ && SSL_is_init_finished(ssl_)) {
      ERR_clear_error();
      SSL_shutdown(ssl_);
      ERR_clear_error();
    }
    HttpStream::shutdown_send();
  }

 private:
  StreamIo outcome(int r) {
    switch (SSL_get_error(ssl_, r)) {
      case SSL_ERROR_WANT_READ:
        return StreamIo::want_read;
      case SSL_ERROR_WANT_WRITE:
        return StreamIo::want_write;
      case SSL_ERROR_ZERO_RETURN:
        return StreamIo::closed;
      default:
        broken_ = true;
        ERR_clear_error();
        return StreamIo::failed;
    }
  }

  SSL* const ssl_;
  bool broken_ = false;
};

}  // namespace

struct TlsContext::Impl {
  SSL_CTX* ctx = nullptr;
  ~Impl() { SSL_CTX_free(ctx); }
};

TlsContext::TlsContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsContext::~TlsContext() = default;

Result<std::unique_ptr<TlsContext>> TlsContext::load(const std::string& cert_file, const std::string& key_file) {
  ERR_clear_error();
  auto impl = std::make_unique<Impl>();
  impl->ctx = SSL_CTX_new(TLS_server_method());
  if (!impl->ctx) return Status::IoError("cannot make a TLS context: " + openssl_reason());
  SSL_CTX_set_min_proto_version(impl->ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(impl->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Partial writes from a buffer that may move between retries (the connection's string), and
  // no buffers kept for idle connections.
  SSL_CTX_set_mode(impl->ctx,
                   SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_use_certificate_chain_file(impl->ctx, cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(impl->ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(impl->ctx) != 1)
    return Status::IoError("cannot load the TLS certificate " + cert_file + " and key " + key_file +
                           " (PEM files expected, the key matching the certificate): " + openssl_reason());
  return std::unique_ptr<TlsContext>(new TlsContext(std::move(impl)));
}

std::unique_ptr<HttpStream> TlsContext::accept(int fd) {
  ERR_clear_error();
  SSL* ssl = SSL_new(impl_->ctx);
  if (!ssl || SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    ERR_clear_error();
    ::close(fd);
    return nullptr;
  }
  SSL_set_accept_state(ssl);
  return std::make_unique<TlsStream>(fd, ssl);
}

}  // namespace vasana
