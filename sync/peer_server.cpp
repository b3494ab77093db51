#include "sync/peer_server.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "store/little_endian.hpp"
#include "store/segment_format.hpp"
#include "store/hybrid_clock.hpp"
#include "sync/log_limiter.hpp"
#include "sync/peer_limits.hpp"
#include "sync/peer_port_monitor.hpp"
#include "sync/peer_wire.hpp"

namespace vasana {

namespace {
using Clock = std::chrono::steady_clock;
constexpr uint32_t kMaxChunkBytes = kMaxPeerChunkBytes;  // a fetch never gets more, whatever it asks
// Live tail: new bytes pushed to a peer that is level with a writer's head, at most this much
// per head move (more is left to its fetches).
constexpr uint32_t kMaxPushBytes = 256u << 10;
// Other writers' copies moving here are advertised to a peer at most this often (sync/peer_server.hpp).
constexpr auto kRelayAdvertGap = std::chrono::milliseconds(5);
}  // namespace

PeerChunk read_chunk(const DataDir& dir, const std::optional<StreamHead>& head, const PeerFetch& f,
                     uint32_t max_bytes) {
  PeerChunk c;
  c.writer = f.writer;
  c.segment = f.segment;
  c.offset = f.offset;
  if (!head || f.segment > head->segment) {
    c.missing = !head || f.segment.value > head->segment.value + 1;  // the next one may simply not exist yet
    return c;
  }
  const std::string path = dir.writer_dir(f.writer) + "/" + segment_file_name(f.segment);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    c.missing = true;
    return c;
  }
  uint64_t limit = head->segment_bytes;
  if (f.segment < head->segment) {
    struct stat st{};
    limit = ::fstat(fd, &st) == 0 ? uint64_t(st.st_size) : 0;
  }
  if (f.offset > limit) {
    ::close(fd);
    c.missing = true;
    return c;
  }
  // At least the whole first piece at the offset (the header, a record or the trailer), even
  // past max_bytes: a record larger than the asker's fetch size must still get through.
  uint64_t want = std::min(max_bytes, kMaxChunkBytes);
  uint8_t head_bytes[12];
  const uint64_t peek = std::min<uint64_t>(sizeof head_bytes, limit - f.offset);
  if (peek > 0 && ::pread(fd, head_bytes, peek, off_t(f.offset)) == ssize_t(peek)) {
    uint64_t piece = 0;
    if (f.offset == 0 && peek >= 12) piece = get_u16(head_bytes + 10);  // header_len
    else if (f.offset > 0 && peek >= 4) {
      const uint32_t len = get_u32(head_bytes);
      piece = len == kTrailerMarker ? kTrailerBytes : kRecordFrameBytes + uint64_t(std::min(len, kMaxRecordBody));
    }
    want = std::max(want, std::min<uint64_t>(piece, kMaxChunkBytes));
  }
  const uint64_t n = std::min<uint64_t>(limit - f.offset, want);
  c.bytes.resize(n);
  uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, c.bytes.data() + got, n - got, off_t(f.offset + got));
    if (r <= 0) break;
    got += uint64_t(r);
  }
  ::close(fd);
  c.bytes.resize(got);
  c.sealed = f.segment < head->segment && f.offset + got == limit;
  return c;
}

struct PeerServer::Impl {
  PeerServer* server = nullptr;  // its counters
  std::unique_ptr<zmq::socket_t> socket;
  SyncOptions options;
  PeerHello ours;
  DataDir dir;
  const StreamHeads* heads = nullptr;
  LogFn log;
  AckFn ack;
  RefuseFn refuse;
  BadMessageFn bad;
  KeyCheckFn allowed;
  ReachFn reach;  // under mutex
  std::unique_ptr<PeerPortMonitor> monitor;
  LogLimiter limiter;  // lines a remote party causes: one a minute per address
  // Connections (routing ids) that sent a message this node could not take: ignored until then.
  std::map<std::string, Clock::time_point> muted;
  struct Peer {
    InstanceId instance;
    std::string key;  // its CurveZMQ public key (Z85)
    Clock::time_point last_heard;
    // This node's own writer, when this peer is level with it: where the last chunk it fetched
    // (or was pushed) ended, which was this node's head then. When the head moves on in the same
    // segment, the new bytes are pushed to it at once, so a peer on the live tail needs no fetch
    // round trip. Anything else (behind, a new segment, a push that did not reach the head) goes
    // back to fetching. Other writers' copies are not pushed: in a mesh every peer gets them
    // from their origin, and a second push would only arrive stale; a peer that cannot reach
    // the origin fetches them after the advert.
    std::optional<PeerFetch> level;
    // What this peer knows of each writer's head here: the last advert sent to it, and pushes
    // that reached the head. An advert goes to it only with news it has not had.
    std::map<InstanceId, std::pair<SegmentIndex, uint64_t>> told;
    Clock::time_point last_advert{};
  };
  // The socket and the peers are used by the serving thread and, to push the live tail, by the
  // thread that moves the own writer's head (own_moved): both under this mutex.
  std::mutex mutex;
  std::map<std::string, Peer> peers;  // by routing id: those whose hello was accepted
  int kick = -1;                      // eventfd: own_moved() wakes the serving thread
  uint64_t mover = 0;                 // StreamHeads::on_move handle

  static std::pair<SegmentIndex, uint64_t> position(const StreamHead& h) { return {h.segment, h.segment_bytes}; }
  InstanceId own() const { return ours.instance; }

  bool send_advert(const std::string& rid, Peer& peer, const std::vector<StreamHead>& heads);
  void send_chunk(const std::string& rid, Peer& peer, const std::optional<StreamHead>& head, PeerChunk c);
  void push_tail(const std::string& rid, Peer& peer, const std::optional<StreamHead>& head,
                 std::optional<PeerChunk>* last_read);
  void own_moved(const StreamHead& head);
  void wake() {
    const uint64_t one = 1;
    if (kick >= 0) (void)!::write(kick, &one, sizeof one);
  }
  // Whether the socket has messages to read; called after every use of it (under the mutex), as
  // any use may take the readiness its file descriptor signals.
  bool readable() {
    try {
      return (socket->get(zmq::sockopt::events) & ZMQ_POLLIN) != 0;
    } catch (const zmq::error_t&) {
      return false;
    }
  }
};

bool PeerServer::Impl::send_advert(const std::string& rid, Peer& peer, const std::vector<StreamHead>& all) {
  PeerAdvert a;
  if (all.size() <= kMaxAdvertHeads) {
    a.heads = all;
  } else {
    // More writers than an advert may name: this node's own first, then the others in order.
    for (const StreamHead& h : all)
      if (h.writer == own()) a.heads.push_back(h);
    for (const StreamHead& h : all)
      if (h.writer != own() && a.heads.size() < kMaxAdvertHeads) a.heads.push_back(h);
    if (auto line = limiter.admit("advert", "peer: " + std::to_string(all.size()) + " writers here, an advert names " +
                                                std::to_string(kMaxAdvertHeads) + "; the rest are not advertised"))
      log(*line);
  }
  const std::vector<StreamHead>& heads = a.heads;
  a.sent_ms = system_wall_ms();
  if (reach) a.reach = reach();
  peer.last_advert = Clock::now();
  peer.told.clear();
  const std::vector<StreamHead> sent = heads;
  if (!send_peer(*socket, peer_advert(std::move(a)), &rid)) return false;
  server->adverts_++;
  for (const StreamHead& h : sent) peer.told[h.writer] = position(h);
  return true;
}

// Sends c to peer. A chunk that reached the head in the open segment tells the peer that head,
// and makes it level with this node's own writer. One that could not be sent (the peer's queue
// is full, or it is gone) leaves it knowing nothing of that writer: the next advert tells it,
// and it fetches.
void PeerServer::Impl::send_chunk(const std::string& rid, Peer& peer, const std::optional<StreamHead>& head,
                                  PeerChunk c) {
  const InstanceId writer = c.writer;
  const uint64_t end = c.offset + c.bytes.size();
  const bool at_head = head && !c.missing && !c.sealed && c.segment == head->segment && end == head->segment_bytes;
  const SegmentIndex segment = c.segment;
  if (!send_peer(*socket, peer_chunk(std::move(c)), &rid)) {
    peer.told.erase(writer);
    if (writer == own()) peer.level.reset();
    return;
  }
  if (at_head) peer.told[writer] = position(*head);
  if (writer != own()) return;
  if (at_head)
    peer.level = PeerFetch{writer, segment, end, 0};
  else
    peer.level.reset();
}

// The live tail: a peer level with this node's own writer gets the bytes its head moved by.
// Peers level at the same offset share one read (*last_read).
void PeerServer::Impl::push_tail(const std::string& rid, Peer& peer, const std::optional<StreamHead>& head,
                                 std::optional<PeerChunk>* last_read) {
  if (!peer.level) return;
  const PeerFetch at = *peer.level;
  if (!head || (head->segment == at.segment && head->segment_bytes == at.offset)) return;  // not moved
  if (head->segment != at.segment) {
    peer.level.reset();  // sealed and moved on: the advert tells, the peer fetches
    return;
  }
  if (!*last_read || (*last_read)->segment != at.segment || (*last_read)->offset != at.offset)
    *last_read = read_chunk(dir, head, PeerFetch{own(), at.segment, at.offset, kMaxPushBytes}, kMaxPushBytes);
  PeerChunk c = **last_read;
  if (c.missing || c.bytes.empty()) {
    peer.level.reset();
    return;
  }
  server->bytes_ += c.bytes.size();
  server->pushes_++;
  send_chunk(rid, peer, head, std::move(c));
}

// On the thread that moved the own writer's head (the writer's, after its fdatasync): the live
// tail leaves from here, so the serving thread need not wake for it. That thread is woken
// instead when it is busy (the lock is taken: it pushes when it gets to it), when a peer still
// needs an advert of the move (not level: behind, or a new segment), or when the socket has
// messages (this thread's send may have taken their readiness signal).
void PeerServer::Impl::own_moved(const StreamHead& head) {
  std::unique_lock<std::mutex> g(mutex, std::try_to_lock);
  if (!g.owns_lock()) {
    wake();
    return;
  }
  bool needed = false;
  std::optional<PeerChunk> last_read;
  for (auto& [rid, peer] : peers) {
    push_tail(rid, peer, head, &last_read);
    auto t = peer.told.find(own());
    needed = needed || t == peer.told.end() || t->second != position(head);
  }
  needed = needed || readable();
  g.unlock();
  if (needed) wake();
}

Result<std::unique_ptr<PeerServer>> PeerServer::start(zmq::context_t& ctx, const SyncOptions& options, PeerHello ours,
                                                      DataDir dir, const StreamHeads* heads, LogFn log, AckFn ack,
                                                      RefuseFn refuse, BadMessageFn bad, KeyCheckFn allowed) {
  const size_t hello_bytes = encode_peer_message(peer_hello(ours)).size();
  if (hello_bytes > kMaxHelloBytes)
    return Status::InvalidArgument("sync.cluster '" + ours.cluster + "' with vector space " + ours.vector_space +
                                   " makes a hello of " + std::to_string(hello_bytes) + " bytes, more than " +
                                   std::to_string(kMaxHelloBytes) + ": use a shorter cluster id");
  std::unique_ptr<PeerServer> s(new PeerServer());
  s->impl_ = std::make_unique<Impl>();
  Impl& i = *s->impl_;
  i.server = s.get();
  i.options = options;
  i.ours = std::move(ours);
  i.dir = std::move(dir);
  i.heads = heads;
  i.log = std::move(log);
  i.ack = std::move(ack);
  i.refuse = std::move(refuse);
  i.bad = bad ? std::move(bad) : [](const std::string&) {};
  i.allowed = std::move(allowed);
  try {
    i.socket = std::make_unique<zmq::socket_t>(ctx, zmq::socket_type::router);
    i.socket->set(zmq::sockopt::maxmsgsize, kMaxServerMessageBytes);
    i.socket->set(zmq::sockopt::linger, 0);
    i.socket->set(zmq::sockopt::router_mandatory, 1);
    i.socket->set(zmq::sockopt::curve_server, 1);
    i.socket->set(zmq::sockopt::curve_secretkey, options.secret_key);
    i.socket->set(zmq::sockopt::zap_domain, "vasana");
    i.socket->set(zmq::sockopt::sndhwm, 1000);
    i.socket->set(zmq::sockopt::rcvhwm, 1000);
    if (options.listen.find("://[") != std::string::npos) i.socket->set(zmq::sockopt::ipv6, 1);
    auto monitor = PeerPortMonitor::start(ctx, *i.socket, i.log);
    if (!monitor.ok()) return monitor.status();
    i.monitor = std::move(monitor.value());
    i.socket->bind(options.listen);
    s->endpoint_ = i.socket->get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    return Status::IoError("cannot listen for peers on " + options.listen + ": " + e.what());
  }
  i.kick = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (i.kick < 0) return Status::IoError(std::string("cannot create an eventfd for the serving thread: ") + std::strerror(errno));
  // From here the socket is used under the mutex only: by the server's thread, and by
  // own_moved() on the thread that moves the own writer's head.
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  i.mover = i.heads->on_move(i.own(), [p = &i](const StreamHead& h) { p->own_moved(h); });
  return s;
}

PeerServer::~PeerServer() {
  if (!impl_) return;
  if (impl_->mover) impl_->heads->cancel(impl_->mover);  // no push from another thread after this
  stop_.store(true);
  impl_->wake();
  if (thread_.joinable()) thread_.join();
  if (impl_->kick >= 0) ::close(impl_->kick);
  if (impl_->monitor) {
    zmq_socket_monitor(impl_->socket->handle(), nullptr, 0);
    impl_->monitor.reset();
  }
}

void PeerServer::set_reach(ReachFn reach) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  impl_->reach = std::move(reach);
}

void PeerServer::drop_disallowed() {
  if (!impl_->allowed) return;
  std::lock_guard<std::mutex> g(impl_->mutex);
  for (auto it = impl_->peers.begin(); it != impl_->peers.end();) {
    if (impl_->allowed(it->second.key)) {
      ++it;
      continue;
    }
    impl_->log("peer: " + to_hex(it->second.instance) + " (key " + it->second.key + ") was removed from the cluster: "
               "its connection is dropped");
    send_peer(*impl_->socket, peer_refused("removed", "this node's key was removed from the cluster"), &it->first);
    impl_->muted[it->first] = Clock::now() + kBadPeerMute;
    it = impl_->peers.erase(it);
  }
}

std::map<std::string, uint64_t> PeerServer::handshake_failures() const {
  return impl_ && impl_->monitor ? impl_->monitor->failures() : std::map<std::string, uint64_t>{};
}

// The serving thread's state: what run() keeps between its steps, and one method per step. The
// socket and the peers are used under i.mutex (own_moved() uses them too, on another thread).
struct PeerServer::Loop {
  explicit Loop(PeerServer& s);

  void run();

  // Steps of one turn of the loop, in order.
  bool wait();
  void take_messages();
  void advertise();

  // Taking one message (under i.mutex).
  bool muted(const std::string& rid);
  void refuse_bad(const ReceivedPeer& got);
  void take(const ReceivedPeer& got);
  void accept_hello(const ReceivedPeer& got, const PeerHello& hello);
  void serve_fetch(const std::string& rid, Impl::Peer& peer, const PeerFetch& fetch);
  void take_acks(const Impl::Peer& peer, const PeerAck& ack);

  // What the advert step shares.
  struct News {
    bool own_news = false;    // of this node's own writer
    bool relay_news = false;  // of another writer's copy
  };
  News news_for(const Impl::Peer& peer, const std::vector<StreamHead>& heads) const;
  void watch_relays(bool on);

  PeerServer& server;  // its counters and stop_
  Impl& i;
  zmq::socket_t& sock;
  const InstanceId own;
  uint64_t seen = ~0ull;                         // heads version the last advertise() looked at
  Clock::time_point next_check = Clock::now();  // when advertise() must look again without a move
  // Wakes wait()'s poll when another writer's head moves here (a mirrored copy synced). The
  // own writer's moves come through own_moved() and the kick. Without one (-1, the kernel
  // refused an eventfd), zmq_poll ignores the item and relay adverts go out at the poll timeout.
  const int head_moved;
  // Other writers' moves wake it only while no relay advert is being paced (advertise()).
  bool relays_watched = true;
  int socket_fd = -1;
  bool more = true;  // the socket may have messages: look before waiting
};

PeerServer::Loop::Loop(PeerServer& s)
    : server(s), i(*s.impl_), sock(*i.socket), own(i.own()), head_moved(i.heads->subscribe()) {
  i.heads->watch(head_moved, own, false, true);
  std::lock_guard<std::mutex> g(i.mutex);
  socket_fd = sock.get(zmq::sockopt::fd);
}

// The serving thread: its Loop until the destructor sets stop_.
void PeerServer::run() {
  pthread_setname_np(pthread_self(), "vasana.peersrv");
  Loop(*this).run();
}

// Until stopped: wait (unless the socket may have messages), take what came, then push and
// advertise what is due; all but the wait under the mutex.
void PeerServer::Loop::run() {
  while (!server.stop_.load(std::memory_order_relaxed)) {
    if (!more && !wait()) continue;
    std::lock_guard<std::mutex> g(i.mutex);
    take_messages();
    if (i.heads->version() != seen || Clock::now() >= next_check) advertise();
    more = i.readable();
  }
}

// Waits for messages, a move of another writer's head or the kick, at most 100 ms (until
// next_check). False when the poll was interrupted.
bool PeerServer::Loop::wait() {
  // The socket's file descriptor, not the socket: own_moved() may use the socket meanwhile.
  zmq::pollitem_t items[] = {{nullptr, socket_fd, ZMQ_POLLIN, 0},
                             {nullptr, head_moved, ZMQ_POLLIN, 0},
                             {nullptr, i.kick, ZMQ_POLLIN, 0}};
  try {
    const auto timeout = std::chrono::ceil<std::chrono::milliseconds>(next_check - Clock::now());
    zmq::poll(items, 3, std::clamp(timeout, std::chrono::milliseconds(0), std::chrono::milliseconds(100)));
  } catch (const zmq::error_t&) {
    return false;  // EINTR
  }
  if (items[1].revents & ZMQ_POLLIN) StreamHeads::drain(head_moved);
  if (items[2].revents & ZMQ_POLLIN) StreamHeads::drain(i.kick);
  return true;
}

// Takes up to 256 queued messages; those of a muted connection are dropped unread. (The mutex
// is held.)
void PeerServer::Loop::take_messages() {
  for (int n = 0; n < 256; ++n) {
    auto got = receive_peer(sock, /*router=*/true);
    if (!got) break;
    if (muted(got->routing_id)) continue;  // dropped unread
    if (!got->message.ok()) {
      refuse_bad(*got);
      continue;
    }
    take(*got);
  }
}

// Whether the connection rid is muted still (a mute that ran out is forgotten).
bool PeerServer::Loop::muted(const std::string& rid) {
  if (!i.muted.empty()) {
    auto m = i.muted.find(rid);
    if (m != i.muted.end()) {
      if (Clock::now() < m->second) return true;
      i.muted.erase(m);
    }
  }
  return false;
}

// A message that did not decode or was past a limit: counted, logged, refused as "bad message",
// and its connection forgotten and muted for kBadPeerMute.
void PeerServer::Loop::refuse_bad(const ReceivedPeer& got) {
  const std::string reason = got.oversized ? "oversized" : "malformed";
  i.bad(reason);
  const std::string from = got.address.empty() ? "unknown address" : got.address;
  if (auto line = i.limiter.admit("bad message " + from,
                                  "peer: bad message from " + from + " (key " +
                                      (got.user_id.empty() ? "?" : got.user_id) + "): " +
                                      got.message.status().message() + "; refused, ignoring it for " +
                                      std::to_string(kBadPeerMute.count()) + " s"))
    i.log(*line);
  send_peer(sock, peer_refused("bad message", reason + " message: " + got.message.status().message()),
            &got.routing_id);
  i.peers.erase(got.routing_id);
  if (i.muted.size() >= 4096) {
    const auto now = Clock::now();
    for (auto m = i.muted.begin(); m != i.muted.end();) m = now >= m->second ? i.muted.erase(m) : std::next(m);
  }
  if (i.muted.size() < 4096) i.muted[got.routing_id] = Clock::now() + kBadPeerMute;
}

// A message that decoded: a hello, or (from a peer whose hello was accepted) a fetch or acks.
void PeerServer::Loop::take(const ReceivedPeer& got) {
  const PeerMessage& m = *got.message;
  if (i.allowed && !i.allowed(got.user_id)) {
    // Accepted at its handshake, removed since: nothing more is taken from or sent to it.
    i.refuse("removed");
    if (auto line = i.limiter.admit("removed " + got.user_id, "peer: refused key " + got.user_id +
                                                                  ": it was removed from the cluster"))
      i.log(*line);
    send_peer(sock, peer_refused("removed", "this node's key was removed from the cluster"), &got.routing_id);
    i.peers.erase(got.routing_id);
    if (i.muted.size() < 4096) i.muted[got.routing_id] = Clock::now() + kBadPeerMute;
    return;
  }
  if (m.kind == PeerMessage::Kind::hello) {
    accept_hello(got, m.hello);
    return;
  }
  auto known = i.peers.find(got.routing_id);
  if (known == i.peers.end()) {
    // No accepted hello on this connection (this node restarted, or the peer skipped it).
    send_peer(sock, peer_refused("no hello", "say hello first"), &got.routing_id);
    return;
  }
  known->second.last_heard = Clock::now();
  if (m.kind == PeerMessage::Kind::fetch)
    serve_fetch(got.routing_id, known->second, m.fetch);
  else if (m.kind == PeerMessage::Kind::ack)
    take_acks(known->second, m.ack);
}

// A hello: refused (and the connection forgotten), or the peer (re)starts from nothing known,
// and is answered with this node's hello and an advert.
void PeerServer::Loop::accept_hello(const ReceivedPeer& got, const PeerHello& hello) {
  auto known = i.peers.find(got.routing_id);
  if (auto refused = check_peer_hello(hello, i.ours)) {
    i.refuse(refused->reason);
    i.log("peer: refused " + to_hex(hello.instance) + " (key " + got.user_id + "): " + refused->message);
    send_peer(sock, peer_refused(refused->reason, refused->message), &got.routing_id);
    if (known != i.peers.end()) i.peers.erase(known);
    return;
  }
  const bool fresh = known == i.peers.end();
  Impl::Peer& peer = i.peers[got.routing_id];
  peer = Impl::Peer{};
  peer.instance = hello.instance;
  peer.key = got.user_id;
  peer.last_heard = Clock::now();
  if (fresh) i.log("peer: " + to_hex(hello.instance) + " connected");
  send_peer(sock, peer_hello(i.ours), &got.routing_id);
  i.send_advert(got.routing_id, peer, i.heads->all());
}

// A fetch: answered with a chunk of what this node holds of that writer, up to its head.
void PeerServer::Loop::serve_fetch(const std::string& rid, Impl::Peer& peer, const PeerFetch& fetch) {
  const auto head = i.heads->get(fetch.writer);
  PeerChunk c = read_chunk(i.dir, head, fetch, fetch.max_bytes);
  server.fetches_++;
  server.bytes_ += c.bytes.size();
  i.send_chunk(rid, peer, head, std::move(c));
}

// Acks: each goes to the ack callback, as the peer's.
void PeerServer::Loop::take_acks(const Impl::Peer& peer, const PeerAck& ack) {
  server.acks_++;
  for (const StreamHead& h : ack.heads) i.ack(peer.instance, h.writer, h.last_seqno);
}

// Pushes, then adverts to the peers that have news: at once when this node's own writer moved
// past what a peer was told (it is behind, or in a new segment), at most every
// kRelayAdvertGap for other writers' copies (a peer that reaches their origin has them
// already; one that does not fetches them from here), and every advert_interval to every
// peer (anti-entropy). A peer's own writer is never news to it. While relay news is
// flowing (an advert of it went out, or waits for its gap), other writers' moves do not wake
// this thread: it looks again kRelayAdvertGap later anyway, and a wake-up per mirrored op is
// a thread switch per op on this node. (The mutex is held.)
void PeerServer::Loop::advertise() {
  seen = i.heads->version();
  const std::vector<StreamHead> heads = i.heads->all();
  const auto own_head = i.heads->get(own);
  std::optional<PeerChunk> last_read;
  const auto now = Clock::now();
  next_check = now + i.options.advert_interval;
  bool relaying = false;
  for (auto it = i.peers.begin(); it != i.peers.end();) {
    Impl::Peer& peer = it->second;
    i.push_tail(it->first, peer, own_head, &last_read);
    const News news = news_for(peer, heads);
    relaying = relaying || news.relay_news;
    const bool due = news.own_news || now - peer.last_advert >= i.options.advert_interval ||
                     (news.relay_news && now - peer.last_advert >= kRelayAdvertGap);
    if (!due) {
      next_check = std::min(next_check, peer.last_advert + i.options.advert_interval);
      if (news.relay_news) next_check = std::min(next_check, peer.last_advert + kRelayAdvertGap);
      ++it;
      continue;
    }
    // A peer that cannot take it (gone: router_mandatory) is forgotten; it says hello again.
    if (!i.send_advert(it->first, peer, heads) && now - peer.last_heard > i.options.peer_timeout)
      it = i.peers.erase(it);
    else
      ++it;
  }
  if (relaying) {
    watch_relays(false);
    next_check = std::min(next_check, now + kRelayAdvertGap);
  } else {
    watch_relays(true);
    if (i.heads->version() != seen) next_check = now;  // moved before the watch: look again now
  }
}

// What of heads peer was not told (its own writer never counts).
PeerServer::Loop::News PeerServer::Loop::news_for(const Impl::Peer& peer,
                                                  const std::vector<StreamHead>& heads) const {
  News news;
  for (const StreamHead& h : heads) {
    if (h.writer == peer.instance) continue;
    auto t = peer.told.find(h.writer);
    if (t != peer.told.end() && t->second == Impl::position(h)) continue;
    (h.writer == own ? news.own_news : news.relay_news) = true;
  }
  return news;
}

// Whether other writers' moves wake this thread (through head_moved).
void PeerServer::Loop::watch_relays(bool on) {
  if (on == relays_watched) return;
  i.heads->watch(head_moved, own, false, on);
  relays_watched = on;
}

}  // namespace vasana
