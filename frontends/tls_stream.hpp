// HTTPS for the node's HTTP server: the server's certificate and key (TlsContext) and one TLS
// session over a non-blocking socket (TlsStream, an HttpStream). The handshake, reads and writes
// never block; each says which socket readiness it waits for (OpenSSL's WANT_READ/WANT_WRITE).
// TLS 1.2 or later, no renegotiation, no compression. OpenSSL stays inside tls_stream.cpp.
//
// Threading: a TlsContext may be shared by any threads once loaded; a TlsStream is used by one
// thread at a time, and OpenSSL's error queue is per thread, so each call clears it first.
#pragma once

#include <memory>
#include <string>

#include "frontends/http_stream.hpp"
#include "protocol/status.hpp"

namespace vasana {

class TlsContext {
 public:
  // Loads a PEM certificate (chain) and its private key. IoError naming the files when either
  // cannot be read or the key does not match the certificate.
  static Result<std::unique_ptr<TlsContext>> load(const std::string& cert_file, const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A server-side TLS stream over fd (non-blocking, connected); it owns fd from here on, even
  // when this fails (null: OpenSSL could not make a session).
  std::unique_ptr<HttpStream> accept(int fd);

 private:
  struct Impl;
  explicit TlsContext(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
