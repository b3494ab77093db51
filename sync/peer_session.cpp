#include "sync/peer_session.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "sync/catch_up_tracker.hpp"
#include "sync/log_limiter.hpp"
#include "sync/peer_limits.hpp"
#include "sync/peer_wire.hpp"

namespace vasana {

namespace {
using Clock = std::chrono::steady_clock;
// Until the connection (and its CurveZMQ handshake) is up, hello cannot be queued (the socket is
// "immediate"): it is tried again after 5 ms, then twice as long each time up to kHelloRetry, so
// a session starts within a few ms of its link and a peer that is down costs few wake-ups.
constexpr auto kHelloConnectPoll = std::chrono::milliseconds(5);
constexpr auto kHelloRetry = std::chrono::milliseconds(200);  // also: a hello sent and not answered
constexpr auto kRefusedRetry = std::chrono::seconds(5);
// libzmq retries a refused or reset connection by itself, at most this far apart; a connection
// that failed with a protocol error (a CURVE handshake or message that did not decode: bytes
// garbled on the way, a key that did not match) it never retries. So a socket that has had no
// connection for this long (or peer_timeout, when longer) is replaced: with the peer down that
// costs a new socket now and then, with the connection given up it is the only way back.
constexpr auto kReconnectIvlMax = std::chrono::milliseconds(5000);
// A fetch the peer has not answered in this long (as long as MirrorSet's claim timeout: the
// fetch would be sent again then) means nothing this node sends reaches it, although its adverts
// still arrive: a byte garbled on the way can leave a ZMTP frame length that the peer's end
// waits to fill, swallowing every later message on that connection. Only a new connection
// helps, and the session makes one.
constexpr auto kFetchAnswerTimeout = std::chrono::seconds(10);
// At most this many fetches are remembered as unanswered (one per writer is in flight).
constexpr size_t kMaxUnanswered = 4096;

// A refusal's reason as a metric label: the ones nodes send, anything else "other" (a peer
// cannot add labels).
std::string refusal_label(const std::string& reason) {
  for (const char* known : {"protocol version", "cluster id", "vector space", "same instance", "unknown key",
                            "bad message", "removed"})
    if (reason == known) return reason;
  return "other";
}

// The entry of writer in heads, added (only the writer set) when missing.
StreamHead& head_in(std::vector<StreamHead>& heads, InstanceId writer) {
  auto h = std::find_if(heads.begin(), heads.end(), [&](const StreamHead& x) { return x.writer == writer; });
  if (h != heads.end()) return *h;
  heads.push_back(StreamHead{});
  heads.back().writer = writer;
  return heads.back();
}
}  // namespace

struct PeerSession::Impl {
  uint64_t id = 0;
  PeerConfig peer;
  SyncOptions options;
  PeerHello ours;
  zmq::context_t* ctx = nullptr;
  std::string public_key;  // this node's
  std::unique_ptr<zmq::socket_t> socket;
  MirrorSet* mirrors = nullptr;
  const StreamHeads* heads = nullptr;
  LogFn log;
  RefuseFn refuse;
  BadMessageFn bad;
  LogLimiter limiter;  // lines the peer's bad messages cause: one a minute

  // A new DEALER connected to the peer (the old one, if any, is closed: its queue dropped).
  Status open_socket();
  // Seconds this node has not been caught up with what the peer told it of writer, holding held
  // of it (sync/catch_up_tracker.hpp), less one advert interval: the peer re-advertises that
  // often, so a node that keeps up reads 0. Counted from the session's start when it never was.
  // Call under mutex.
  double lag_seconds(InstanceId writer, uint64_t held, Clock::time_point now) const;

  mutable std::mutex mutex;  // guards what status() reads
  bool up = false;
  bool advert_heard = false;  // an advert came since start
  std::vector<PeerReach> reach;  // the peer's links, from its latest advert
  std::string peer_instance;
  Clock::time_point last_heard{};
  bool heard = false;
  std::vector<StreamHead> advertised;
  mutable CatchUpTracker catch_up;  // every advert's heads, for lag in seconds (status() settles it)
  Clock::time_point started = Clock::now();
  uint64_t chunks_received = 0;
  uint64_t chunks_refused = 0;
};

Status PeerSession::Impl::open_socket() {
  try {
    auto s = std::make_unique<zmq::socket_t>(*ctx, zmq::socket_type::dealer);
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::maxmsgsize, kMaxSessionMessageBytes);
    s->set(zmq::sockopt::curve_serverkey, peer.public_key);
    s->set(zmq::sockopt::curve_publickey, public_key);
    s->set(zmq::sockopt::curve_secretkey, options.secret_key);
    s->set(zmq::sockopt::reconnect_ivl, 100);
    s->set(zmq::sockopt::reconnect_ivl_max, int(kReconnectIvlMax.count()));
    s->set(zmq::sockopt::sndhwm, 1000);
    s->set(zmq::sockopt::rcvhwm, 1000);
    // Queue nothing for a peer that is not connected: hello is repeated until it answers.
    s->set(zmq::sockopt::immediate, 1);
    if (peer.address.find("://[") != std::string::npos) s->set(zmq::sockopt::ipv6, 1);
    s->connect(peer.address);
    socket = std::move(s);
  } catch (const zmq::error_t& e) {
    return Status::InvalidArgument("peer " + peer.address + ": " + e.what());
  }
  return Status::Ok();
}

Result<std::unique_ptr<PeerSession>> PeerSession::start(zmq::context_t& ctx, uint64_t id, PeerConfig peer,
                                                        const SyncOptions& options, PeerHello ours,
                                                        const std::string& public_key, MirrorSet* mirrors,
                                                        const StreamHeads* heads, LogFn log, RefuseFn refuse,
                                                        BadMessageFn bad) {
  const size_t hello_bytes = encode_peer_message(peer_hello(ours)).size();
  if (hello_bytes > kMaxHelloBytes)
    return Status::InvalidArgument("sync.cluster '" + ours.cluster + "' with vector space " + ours.vector_space +
                                   " makes a hello of " + std::to_string(hello_bytes) + " bytes, more than " +
                                   std::to_string(kMaxHelloBytes) + ": use a shorter cluster id");
  std::unique_ptr<PeerSession> s(new PeerSession());
  s->impl_ = std::make_unique<Impl>();
  Impl& i = *s->impl_;
  i.id = id;
  i.peer = std::move(peer);
  i.options = options;
  i.ours = std::move(ours);
  i.ctx = &ctx;
  i.public_key = public_key;
  i.mirrors = mirrors;
  i.heads = heads;
  i.log = std::move(log);
  i.refuse = std::move(refuse);
  i.bad = bad ? std::move(bad) : [](const std::string&) {};
  if (Status st = i.open_socket(); !st.ok()) return st;
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  return s;
}

double PeerSession::Impl::lag_seconds(InstanceId writer, uint64_t held, Clock::time_point now) const {
  const Clock::time_point since = catch_up.caught_up(writer, held).value_or(started);
  const double behind = std::chrono::duration<double>(now - since - options.advert_interval).count();
  return std::max(0.0, behind);
}

PeerSession::~PeerSession() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  // A session stopped for good (its member removed) must not keep a writer claimed.
  if (impl_ && impl_->mirrors) impl_->mirrors->release(impl_->id);
}

PeerStatus PeerSession::status() const {
  const Impl& i = *impl_;
  PeerStatus st;
  std::lock_guard<std::mutex> g(i.mutex);
  st.address = i.peer.address;
  st.instance = i.peer_instance;
  st.up = i.up;
  st.advert_heard = i.advert_heard;
  for (const PeerReach& r : i.reach)
    st.reported.push_back(PeerReport{r.public_key, r.instance.value ? to_hex(r.instance) : std::string(), r.up,
                                     r.last_heard_ms < 0 ? -1.0 : double(r.last_heard_ms) / 1000.0});
  st.last_heard_s = i.heard ? std::chrono::duration<double>(Clock::now() - i.last_heard).count() : -1;
  st.chunks_received = i.chunks_received;
  st.chunks_refused = i.chunks_refused;
  const Clock::time_point now = Clock::now();
  for (const StreamHead& h : i.advertised) {
    auto mine = i.heads->get(h.writer);
    // This node is its own writer's origin: that writer is shown only when the peer holds more
    // of it than this node does (its stream was cut back here after a crash or corruption).
    const Seqno own_held = mine ? mine->last_seqno : Seqno(0);
    if (h.writer == i.ours.instance && h.last_seqno <= own_held) continue;
    WriterLag l;
    l.writer = to_hex(h.writer);
    l.peer_seqno = h.last_seqno.value;
    l.applied_seqno = mine ? mine->last_seqno.value : 0;
    l.lag_ops = l.peer_seqno > l.applied_seqno ? l.peer_seqno - l.applied_seqno : 0;
    l.lag_seconds = i.lag_seconds(h.writer, l.applied_seqno, now);
    // Ops stamped ahead of this clock and held by the clock bound: behind since the hold.
    if (l.lag_ops > 0)
      if (auto held = i.mirrors->held_seconds(h.writer)) l.lag_seconds = std::max(l.lag_seconds, *held);
    st.writers.push_back(l);
  }
  return st;
}

// The session thread's state: what run() keeps between its steps, and one method per step.
// Everything here is used by that thread only (the socket too); what status() reads is under
// i.mutex.
struct PeerSession::Loop {
  Loop(Impl& impl, const std::atomic<bool>& stop_flag);

  void run();

  // Steps of one turn of the loop, in order.
  bool replace_unanswering(Clock::time_point now);
  void say_hello(Clock::time_point now);
  bool wait(bool* heads_moved);
  void heads_moved_here();
  void take_messages();
  void check_liveness();

  // Taking one message from the peer.
  void take_bad(const ReceivedPeer& got);
  void take(const PeerMessage& m);
  void take_hello(const PeerHello& hello);
  void take_refused(const PeerRefused& refused);
  void take_advert(const PeerAdvert& advert);
  void take_chunk(const PeerChunk& chunk);

  // What the steps share.
  void send_acks();
  void set_up(bool up);
  void raise_advertised(const PeerChunk& c);
  void raise_status_head(const StreamHead& got);
  void fetch_more();
  void answered(const PeerChunk& c);
  void reconnect(const std::string& key, const std::string& why);

  Impl& i;
  const std::atomic<bool>& stop;
  zmq::socket_t* sock;  // replaced by reconnect()
  Clock::time_point next_hello = Clock::now();
  // When the first hello not answered yet was queued (nothing heard since): a peer that takes
  // the connection but answers nothing within peer_timeout gets a new one.
  std::optional<Clock::time_point> waiting_since;
  // Since when hello could not be queued (the socket has no connection): see kReconnectIvlMax.
  std::optional<Clock::time_point> unconnected_since;
  const std::chrono::milliseconds unconnected_limit;
  std::chrono::milliseconds connect_poll = kHelloConnectPoll;
  bool established = false;
  std::vector<StreamHead> advertised;  // the peer's latest advert (this thread's copy)
  // Acknowledgements follow this node's durable heads (MirrorSet's syncer moves them after its
  // fdatasync), not deliveries: an ack promises the peer that the op is synced here.
  // It wakes this thread only for the peer's own writer, and only once the peer asked for acks.
  const int head_moved;
  std::map<InstanceId, Seqno> acked;  // what this session last acknowledged, per writer
  // Acks go only to a server that asked for them (its node acknowledges writes replicated:N),
  // and only for its own writer: a node counts acks for no other (sync/ack_gate.hpp).
  bool acks_wanted = false;
  InstanceId server_writer;
  // The fetches sent on this connection and not answered yet, oldest first. The peer answers
  // them in the order they came, each with a chunk at the position asked for.
  struct Sent {
    InstanceId writer;
    SegmentIndex segment;
    uint64_t offset = 0;
    Clock::time_point at;
  };
  std::deque<Sent> unanswered;
};

PeerSession::Loop::Loop(Impl& impl, const std::atomic<bool>& stop_flag)
    : i(impl),
      stop(stop_flag),
      sock(impl.socket.get()),
      unconnected_limit(std::max<std::chrono::milliseconds>(impl.options.peer_timeout, kReconnectIvlMax)),
      head_moved(impl.heads->subscribe()) {
  i.heads->watch(head_moved, InstanceId(), false, false);
}

// The session thread: its Loop until the destructor sets stop_.
void PeerSession::run() {
  pthread_setname_np(pthread_self(), "vasana.peer");
  Loop(*impl_, stop_).run();
}

// Until stopped: replace a connection that does not answer, say hello, wait, take what came,
// and check that the peer is still heard.
void PeerSession::Loop::run() {
  while (!stop.load(std::memory_order_relaxed)) {
    const auto now = Clock::now();
    if (replace_unanswering(now)) continue;
    say_hello(now);
    bool heads_moved = false;
    if (!wait(&heads_moved)) continue;
    if (heads_moved) heads_moved_here();
    take_messages();
    check_liveness();
    if (!established) i.mirrors->release(i.id);
  }
}

// Before the session is up: a hello unanswered for peer_timeout, or a socket without a
// connection for unconnected_limit, gets a new socket. True when it did.
bool PeerSession::Loop::replace_unanswering(Clock::time_point now) {
  if (!established && waiting_since && now - *waiting_since > i.options.peer_timeout) {
    reconnect("unanswered", "hello unanswered for " + std::to_string(i.options.peer_timeout.count()) + " ms");
    return true;
  }
  if (!established && unconnected_since && now - *unconnected_since > unconnected_limit) {
    reconnect("unconnected", "no connection for " + std::to_string(unconnected_limit.count()) +
                                 " ms (down, or its handshake failed)");
    return true;
  }
  return false;
}

// Before the session is up, when it is time: hello, or (it could not be queued: no connection)
// the next try sooner, backing off up to kHelloRetry.
void PeerSession::Loop::say_hello(Clock::time_point now) {
  if (!established && now >= next_hello) {
    if (send_peer(*sock, peer_hello(i.ours))) {
      if (!waiting_since) waiting_since = now;
      unconnected_since.reset();
      next_hello = now + kHelloRetry;
      connect_poll = kHelloConnectPoll;  // for the next time the link is down
    } else {
      if (!unconnected_since) unconnected_since = now;
      next_hello = now + connect_poll;
      connect_poll = std::min<std::chrono::milliseconds>(connect_poll * 2, kHelloRetry);
    }
  }
}

// Waits for the peer's messages or a move of the heads, at most 100 ms (until the next hello
// when the session is not up). False when the poll failed (interrupted); *heads_moved tells of
// a move.
bool PeerSession::Loop::wait(bool* heads_moved) {
  zmq::pollitem_t items[] = {{static_cast<void*>(*sock), 0, ZMQ_POLLIN, 0},
                             {nullptr, head_moved, ZMQ_POLLIN, 0}};
  auto timeout = std::chrono::milliseconds(100);
  if (!established)
    timeout = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next_hello - Clock::now()),
                         std::chrono::milliseconds(0), timeout);
  try {
    zmq::poll(items, 2, timeout);
  } catch (const zmq::error_t&) {
    return false;
  }
  *heads_moved = (items[1].revents & ZMQ_POLLIN) != 0;
  return true;
}

// This node's durable heads moved: acks for what is synced now.
void PeerSession::Loop::heads_moved_here() {
  StreamHeads::drain(head_moved);
  if (established) send_acks();
}

// Takes up to 256 queued messages of the peer; a bad one replaces the socket and ends the turn.
void PeerSession::Loop::take_messages() {
  for (int n = 0; n < 256; ++n) {
    auto got = receive_peer(*sock, /*router=*/false);
    if (!got) break;
    if (!got->message.ok()) {
      take_bad(*got);
      break;
    }
    take(*got->message);
  }
}

// A message that did not decode or was past a limit: counted, logged, and the socket replaced.
void PeerSession::Loop::take_bad(const ReceivedPeer& got) {
  const std::string reason = got.oversized ? "oversized" : "malformed";
  i.bad(reason);
  if (auto line = i.limiter.admit("bad message", "peer " + i.peer.address + ": bad message: " +
                                                     got.message.status().message()))
    i.log(*line);
  reconnect("bad message", "after a " + reason + " message");
}

// The peer was heard; the message goes to its step.
void PeerSession::Loop::take(const PeerMessage& m) {
  waiting_since.reset();
  {
    std::lock_guard<std::mutex> g(i.mutex);
    i.last_heard = Clock::now();
    i.heard = true;
  }
  switch (m.kind) {
    case PeerMessage::Kind::hello:
      take_hello(m.hello);
      break;
    case PeerMessage::Kind::refused:
      take_refused(m.refused);
      break;
    case PeerMessage::Kind::advert:
      take_advert(m.advert);
      break;
    case PeerMessage::Kind::chunk:
      take_chunk(m.chunk);
      break;
    case PeerMessage::Kind::fetch:
    case PeerMessage::Kind::ack:
      break;  // a session only asks
  }
}

// The peer's hello: refused (tried again after kRefusedRetry), or the session is up, with acks
// for what this node holds of the peer's writer when it asked for them.
void PeerSession::Loop::take_hello(const PeerHello& hello) {
  if (auto refused = check_peer_hello(hello, i.ours)) {
    i.refuse(refused->reason);
    i.log("peer " + i.peer.address + ": refused: " + refused->message);
    established = false;
    set_up(false);
    next_hello = Clock::now() + kRefusedRetry;
    return;
  }
  if (!established) {
    i.log("peer " + i.peer.address + ": session up with " + to_hex(hello.instance));
    acked.clear();  // a restarted peer forgot what it was told
  }
  established = true;
  acks_wanted = hello.acks_wanted;
  server_writer = hello.instance;
  i.heads->watch(head_moved, server_writer, acks_wanted, false);
  send_acks();  // what moved before the watch: no wake-up told of it
  std::lock_guard<std::mutex> g(i.mutex);
  i.up = true;
  i.peer_instance = to_hex(hello.instance);
}

// The peer refused this node: the session is down until the next hello (at once after "no
// hello", else after kRefusedRetry); refused as bad or as removed, the socket is replaced.
void PeerSession::Loop::take_refused(const PeerRefused& refused) {
  // Rate-limited: refusals come when the peer sends them, not only in answer to a hello.
  if (established || i.up) {
    if (auto line = i.limiter.admit("refused", "peer " + i.peer.address + ": it refused this node: " +
                                                   refused.message))
      i.log(*line);
  } else if (refused.reason != "no hello") {
    if (auto line = i.limiter.admit("refused", "peer " + i.peer.address + ": refused: " + refused.message))
      i.log(*line);
  }
  if (refused.reason != "no hello") i.refuse("refused by peer: " + refusal_label(refused.reason));
  if (refused.reason == "bad message" || refused.reason == "removed") {
    // A new connection: the peer ignores the old one, and asks its allowlist about the new one.
    reconnect("refused", refused.reason == "removed" ? "this node was removed from the cluster"
                                                     : "it refused a message of this node as bad");
    return;
  }
  established = false;
  set_up(false);
  i.mirrors->release(i.id);
  next_hello = Clock::now() + (refused.reason == "no hello" ? std::chrono::seconds(0) : kRefusedRetry);
}

// The peer's version vector: kept (for status() too), then acks and fetches follow it.
void PeerSession::Loop::take_advert(const PeerAdvert& advert) {
  if (!established) return;
  advertised = advert.heads;
  {
    std::lock_guard<std::mutex> g(i.mutex);
    i.advertised = advertised;
    i.advert_heard = true;
    i.reach = advert.reach;
    const Clock::time_point now = Clock::now();
    for (const StreamHead& h : advertised) {
      const auto held = i.heads->get(h.writer);
      i.catch_up.caught_up(h.writer, held ? held->last_seqno.value : 0);  // settles the notes held already
      i.catch_up.told(h.writer, h.last_seqno.value, now);
    }
  }
  send_acks();  // ops this node holds already (from another peer) wait for no move here
  fetch_more();
}

// Bytes the peer sent, fetched or pushed: they answer a fetch, go to the mirrors, and the next
// fetch follows.
void PeerSession::Loop::take_chunk(const PeerChunk& chunk) {
  // Bytes the server sent show its head is at least where they end, advert or not: a
  // push this node cannot take (it is elsewhere in that writer's stream) then makes it
  // fetch from where it is, at once.
  if (established && !chunk.missing && !chunk.bytes.empty()) raise_advertised(chunk);
  answered(chunk);
  auto accepted = i.mirrors->accept(i.id, chunk);
  if (!accepted.ok()) {
    i.log("peer " + i.peer.address + ": cannot store writer " + to_hex(chunk.writer) + ": " +
          accepted.status().to_string());
    return;
  }
  const MirrorSet::Delivery& d = *accepted;
  if (d.refused) {
    {
      std::lock_guard<std::mutex> g(i.mutex);
      i.chunks_refused++;
    }
    i.log("peer " + i.peer.address + ": refused bad bytes: " + d.problem +
          "; fetching that writer from other peers");
    return;
  }
  if (d.bytes > 0) {
    std::lock_guard<std::mutex> g(i.mutex);
    i.chunks_received++;
    // A pushed chunk comes without an advert: what the peer has of that writer is at
    // least what the chunk held, for the lag this node shows (lag_ops counts what is
    // received and not yet applied too).
    if (d.records > 0) raise_status_head(d.head);
  }
  // More of the same writer, if the peer has it, while the set's applier applies this
  // chunk: fetching, verifying and storing the next overlap applying this one. (A small
  // chunk with nothing queued before it, a live push, is applied already: d.applied.)
  fetch_more();
}

// Once up: a peer silent for peer_timeout is down, and one that leaves a fetch unanswered for
// kFetchAnswerTimeout while its adverts arrive does not hear this node: either gets a new socket.
void PeerSession::Loop::check_liveness() {
  if (!established) return;
  bool silent = false;
  {
    std::lock_guard<std::mutex> g(i.mutex);
    silent = Clock::now() - i.last_heard > i.options.peer_timeout;
  }
  if (silent)
    reconnect("silent", "silent for " + std::to_string(i.options.peer_timeout.count()) + " ms: down");
  else if (!unanswered.empty() && Clock::now() - unanswered.front().at > kFetchAnswerTimeout)
    reconnect("unanswered fetch", "a fetch unanswered for " + std::to_string(kFetchAnswerTimeout.count()) +
                                      " s while its adverts arrive: what this node sends does not reach it");
}

// Acks of the server's own writer, as far as this node has it durable and has not acked yet,
// when the server asked for acks.
void PeerSession::Loop::send_acks() {
  if (!acks_wanted) return;
  PeerAck ack;
  for (const StreamHead& theirs : advertised) {
    if (theirs.writer != server_writer) continue;
    auto mine = i.heads->get(theirs.writer);
    if (!mine || mine->last_seqno.value == 0) continue;
    auto it = acked.find(theirs.writer);
    if (it != acked.end() && !(it->second < mine->last_seqno)) continue;
    acked[theirs.writer] = mine->last_seqno;
    ack.heads.push_back(*mine);
  }
  if (!ack.heads.empty()) send_peer(*sock, peer_ack(std::move(ack)));
}

// Whether status() shows the peer up.
void PeerSession::Loop::set_up(bool up) {
  std::lock_guard<std::mutex> g(i.mutex);
  i.up = up;
}

// The peer's head of c's writer, in this thread's copy of its advert, is at least where c ends.
void PeerSession::Loop::raise_advertised(const PeerChunk& c) {
  // No more writers than an advert may name: a chunk of an unnamed one is taken (and verified)
  // all the same, only not remembered here.
  const bool named = std::any_of(advertised.begin(), advertised.end(),
                                 [&](const StreamHead& x) { return x.writer == c.writer; });
  if (!named && advertised.size() >= kMaxAdvertHeads) return;
  StreamHead& h = head_in(advertised, c.writer);
  const auto end = std::make_pair(c.segment, c.offset + c.bytes.size());
  if (std::make_pair(h.segment, h.segment_bytes) < end) std::tie(h.segment, h.segment_bytes) = end;
}

// The peer's head of got's writer, as status() shows it, is at least got. (i.mutex held)
void PeerSession::Loop::raise_status_head(const StreamHead& got) {
  StreamHead& h = head_in(i.advertised, got.writer);
  if (h.last_seqno < got.last_seqno) h = got;
}

// Fetches what the mirrors let this session claim of the advertised writers; remembered as
// unanswered. A fetch that could not be queued releases the claims.
void PeerSession::Loop::fetch_more() {
  for (const PeerFetch& f : i.mirrors->claim(i.id, advertised, i.options.fetch_bytes)) {
    if (!send_peer(*sock, peer_fetch(f))) {
      i.mirrors->release(i.id);
      break;
    }
    if (unanswered.size() < kMaxUnanswered) unanswered.push_back(Sent{f.writer, f.segment, f.offset, Clock::now()});
  }
}

// A chunk at the position of the oldest fetch answers it (a push at that very position stands
// in for the answer: the peer heard this node recently enough either way).
void PeerSession::Loop::answered(const PeerChunk& c) {
  if (!unanswered.empty() && unanswered.front().writer == c.writer && unanswered.front().segment == c.segment &&
      unanswered.front().offset == c.offset)
    unanswered.pop_front();
}

// Marks the peer down and replaces the socket (what was queued for the old connection is
// dropped; the peer sees that connection close).
void PeerSession::Loop::reconnect(const std::string& key, const std::string& why) {
  if (auto line = i.limiter.admit(key, "peer " + i.peer.address + ": " + why + "; reconnecting"))
    i.log(*line);
  established = false;
  set_up(false);
  i.mirrors->release(i.id);
  unanswered.clear();
  Status st = i.open_socket();
  if (!st.ok()) i.log("peer " + i.peer.address + ": cannot make a new socket, keeping the old one: " + st.message());
  sock = i.socket.get();
  next_hello = Clock::now();
  connect_poll = kHelloConnectPoll;
  waiting_since.reset();
  unconnected_since.reset();
}

}  // namespace vasana
