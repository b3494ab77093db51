// The byte stream under one HTTP connection: a non-blocking TCP socket, plain here or with TLS
// (frontends/tls_stream.hpp). Nothing blocks: an operation that cannot go on says which readiness of
// the socket it waits for. The stream owns its socket and closes it when destroyed.
//
// Threading: a stream is used by one thread at a time (the server's event loop, or the worker
// that has the connection's request), which has called block_sigpipe_in_this_thread().
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace vasana {

// OpenSSL writes to its socket with write(2), which raises SIGPIPE in the writing thread when
// the peer has gone, and SIGPIPE ends the process. Every thread that writes on an HttpStream
// calls this first: SIGPIPE blocked there, such a write fails with EPIPE instead (the signal
// stays pending on that thread, harmless).
inline void block_sigpipe_in_this_thread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

enum class StreamIo {
  ok,          // some bytes moved (or the handshake is done)
  want_read,   // wait until the socket is readable, then call again
  want_write,  // wait until the socket is writable, then call again
  closed,      // the peer ended the stream in order
  failed,      // the connection broke, or the peer spoke a protocol error
};

class HttpStream {
 public:
  explicit HttpStream(int fd) : fd_(fd) {}
  virtual ~HttpStream() {
    if (fd_ >= 0) ::close(fd_);
  }
  HttpStream(const HttpStream&) = delete;
  HttpStream& operator=(const HttpStream&) = delete;

  // The TLS handshake; ok at once for plain TCP.
  virtual StreamIo handshake() { return StreamIo::ok; }
  // Reads at most cap bytes into buf; got is set on ok.
  virtual StreamIo read(char* buf, size_t cap, size_t& got) {
    const ssize_t n = ::recv(fd_, buf, cap, 0);
    if (n > 0) {
      got = size_t(n);
      return StreamIo::ok;
    }
    if (n == 0) return StreamIo::closed;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? StreamIo::want_read : StreamIo::failed;
  }
  // Writes at most n bytes of data; put is set on ok.
  virtual StreamIo write(const char* data, size_t n, size_t& put) {
    const ssize_t w = ::send(fd_, data, n, MSG_NOSIGNAL);
    if (w >= 0) {
      put = size_t(w);
      return StreamIo::ok;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? StreamIo::want_write : StreamIo::failed;
  }
  // Bytes the stream has taken off the socket but not handed out yet (TLS records): a reader
  // that stops before want_read must come back for them without waiting for the socket.
  virtual bool buffered() const { return false; }
  // Ends the sending side (TLS: a close_notify first), best effort; reads still work.
  virtual void shutdown_send() { ::shutdown(fd_, SHUT_WR); }

  int fd() const { return fd_; }

 protected:
  const int fd_;
};

}  // namespace vasana
