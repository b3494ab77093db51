// HTTPS clients that misbehave against a real node: one that resets its connection while the
// server writes answers to it must cost that connection only (OpenSSL writes with write(2), whose
// SIGPIPE would otherwise end the node).
#include <catch2/catch.hpp>

#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/http_node.hpp"

namespace vasana::test {

TEST_CASE("HTTPS clients that reset their connections while answers are written to them leave the node serving") {
  TempDir certs;
  make_self_signed_cert(certs);
  HttpNode n("tls_cert_file = \"" + certs.sub("server.crt") + "\"\ntls_key_file = \"" + certs.sub("server.key") + "\"\n");

  std::string requests;
  for (int i = 0; i < 300; ++i)
    requests += "GET /v1/status HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + kHttpToken + "\r\n\r\n";
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  REQUIRE(ctx != nullptr);
  int sent = 0;
  for (int k = 0; k < 20; ++k) {
    RawConnection raw(n.port);
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, raw.fd());
    size_t put = 0;
    const bool ok = raw.ok() && SSL_connect(ssl) == 1 && SSL_write_ex(ssl, requests.data(), requests.size(), &put) == 1;
    // Closed with answers unread and SO_LINGER 0: the kernel resets the connection.
    const linger reset{1, 0};
    ::setsockopt(raw.fd(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    SSL_free(ssl);
    if (!ok) break;
    ++sent;
  }
  SSL_CTX_free(ctx);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(sent == 20);
  CHECK(n.node->running());
  // Positive control: an HTTPS client that reads its answer is served.
  auto r = run_program("/usr/bin/curl",
                       {"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "--cacert",
                        certs.sub("server.crt"), "-H", "Authorization: Bearer " + kHttpToken,
                        "https://127.0.0.1:" + std::to_string(n.port) + "/healthz"},
                       certs.path(), "", std::chrono::seconds(10));
  CHECK(r.out == "200");
}

}  // namespace vasana::test
