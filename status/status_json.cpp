#include "status/status_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "status/lag_render.hpp"
#include "sync/writer_lags.hpp"

namespace vasana {

namespace {

// ordered_json: fields are written in the struct's order, which reads better than sorted.
using json = nlohmann::ordered_json;

// ---- reading ------------------------------------------------------------------------------

// Reads one JSON object's fields; the first failure is kept and later reads become no-ops, so a
// caller reads every field and checks ok() once.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string path, Status* failure)
      : obj_(obj), path_(std::move(path)), failure_(failure) {}

  void str(const char* key, std::string* out) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_string()) return fail(key, "expected a string", *v);
    *out = v->get<std::string>();
  }
  void u64(const char* key, uint64_t* out) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_number_unsigned()) {
      return fail(key, v->is_number() ? "expected a non-negative integer" : "expected an unsigned integer", *v);
    }
    *out = v->get<uint64_t>();
  }
  void real(const char* key, double* out) {
    const json* v = find(key);
    if (!v) return;
    if (v->is_null()) {  // status_to_json writes a non-finite value as null
      *out = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    if (!v->is_number()) return fail(key, "expected a number", *v);
    *out = v->get<double>();
  }
  void boolean(const char* key, bool* out) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_boolean()) return fail(key, "expected true or false", *v);
    *out = v->get<bool>();
  }
  // The array under key, or nullptr (failure recorded) when it is missing or not an array.
  const json* array(const char* key) {
    const json* v = find(key);
    if (v && !v->is_array()) {
      fail(key, "expected an array", *v);
      return nullptr;
    }
    return v;
  }
  const json* object(const char* key) {
    const json* v = find(key);
    if (v && !v->is_object()) {
      fail(key, "expected an object", *v);
      return nullptr;
    }
    return v;
  }
  std::string child(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  bool ok() const { return failure_->ok(); }

 private:
  const json* find(const char* key) {
    if (!ok()) return nullptr;
    auto it = obj_.find(key);
    if (it == obj_.end()) {
      *failure_ = Status::InvalidArgument("status JSON: field " + child(key) + " is missing");
      return nullptr;
    }
    return &*it;
  }
  void fail(const char* key, const char* what, const json& got) {
    *failure_ = Status::InvalidArgument("status JSON: field " + child(key) + ": " + what + ", got " +
                                        std::string(got.type_name()));
  }

  const json& obj_;
  std::string path_;
  Status* failure_;
};

// Checks that element i of an array at path is an object; records the failure otherwise.
bool element_is_object(const json& e, const std::string& path, size_t i, Status* failure) {
  if (e.is_object()) return true;
  *failure = Status::InvalidArgument("status JSON: " + path + "[" + std::to_string(i) + "]: expected an object, got " +
                                     std::string(e.type_name()));
  return false;
}

std::string indexed(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// ---- text ---------------------------------------------------------------------------------

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string status_to_json(const NodeStatus& s) {
  json j = json::object();
  j["instance"] = s.instance;
  j["public_key"] = s.public_key;
  j["cluster"] = s.cluster;
  j["vector_space"] = s.vector_space;
  j["memories"] = s.memories;
  j["conflicts"] = s.conflicts;
  j["digest"] = s.digest;
  j["digest_vector"] = s.digest_vector;
  j["applied_remote_ops"] = s.applied_remote_ops;
  j["lanes_backlog"] = s.lanes_backlog;
  j["client_replies_dropped"] = s.client_replies_dropped;
  j["own_writer"] = {{"state", s.own_writer.state},
                     {"reason", s.own_writer.reason},
                     {"io_failures", s.own_writer.io_failures}};
  json writers = json::array();
  for (const WriterApplied& w : s.writers) {
    writers.push_back({{"writer", w.writer}, {"applied_seqno", w.applied_seqno}, {"own", w.own}});
  }
  j["writers"] = std::move(writers);
  json problems = json::array();
  for (const WriterProblem& p : s.problems)
    problems.push_back({{"writer", p.writer}, {"problem", p.problem}, {"seqno", p.seqno}, {"detail", p.detail}});
  j["problems"] = std::move(problems);
  j["clock_holds"] = s.clock_holds;
  j["copy_failures"] = s.copy_failures;
  {
    json covered = json::array();
    for (const WriterApplied& w : s.checkpoint.covered) covered.push_back({{"writer", w.writer}, {"seqno", w.applied_seqno}});
    j["checkpoint"] = {{"generation", s.checkpoint.generation},
                       {"delta_of", s.checkpoint.delta_of},
                       {"created_ms", s.checkpoint.created_ms},
                       {"ops", s.checkpoint.ops},
                       {"covered", std::move(covered)},
                       {"write_failures", s.checkpoint.write_failures},
                       {"set_aside", s.checkpoint.set_aside}};
  }
  j["embedding"] = {{"provider", s.embedding.provider},         {"pending", s.embedding.pending},
                     {"failed", s.embedding.failed},             {"dropped", s.embedding.dropped},
                     {"vectors", s.embedding.vectors},           {"requests", s.embedding.requests},
                     {"cache_hits", s.embedding.cache_hits},     {"queries_skipped", s.embedding.queries_skipped},
                     {"last_error", s.embedding.last_error}};
  json peers = json::array();
  for (const PeerStatus& p : s.peers) {
    json lags = json::array();
    for (const WriterLag& l : p.writers) {
      lags.push_back({{"writer", l.writer},
                      {"peer_seqno", l.peer_seqno},
                      {"applied_seqno", l.applied_seqno},
                      {"lag_ops", l.lag_ops},
                      {"lag_seconds", number_or_null(l.lag_seconds)}});
    }
    json reported = json::array();
    for (const PeerReport& r : p.reported)
      reported.push_back({{"public_key", r.public_key},
                          {"instance", r.instance},
                          {"up", r.up},
                          {"last_heard_s", number_or_null(r.last_heard_s)}});
    peers.push_back({{"address", p.address},
                     {"instance", p.instance},
                     {"public_key", p.public_key},
                     {"origin", p.origin},
                     {"up", p.up},
                     {"last_heard_s", number_or_null(p.last_heard_s)},
                     {"chunks_received", p.chunks_received},
                     {"chunks_refused", p.chunks_refused},
                     {"writers", std::move(lags)},
                     {"reported", std::move(reported)}});
  }
  j["peers"] = std::move(peers);
  json members = json::array();
  for (const MemberStatus& m : s.members)
    members.push_back({{"public_key", m.public_key},
                       {"address", m.address},
                       {"name", m.name},
                       {"admitted", m.admitted},
                       {"by", m.by}});
  j["members"] = std::move(members);
  // Derived from peers (sync/writer_lags.hpp); status_from_json derives it again.
  j["writer_lags"] = writer_lags_json(writer_lags(s.peers));
  json refused = json::object();
  for (const auto& [reason, count] : s.refused) refused[reason] = count;
  j["refused"] = std::move(refused);
  json integrity = json::object();
  for (const auto& [kind, count] : s.integrity_failures) integrity[kind] = count;
  j["integrity_failures"] = std::move(integrity);
  // replace: a string that is not valid UTF-8 (an address from a hand-edited configuration)
  // must not make dump() throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// The "peers" array of a status, each with its lag per writer, into *out; the first error into
// *failure.
void read_peers(FieldReader& top, std::vector<PeerStatus>* out, Status* failure) {
  if (const json* peers = top.array("peers")) {
    const std::string path = top.child("peers");
    for (size_t i = 0; i < peers->size() && failure->ok(); ++i) {
      const json& e = (*peers)[i];
      if (!element_is_object(e, path, i, failure)) break;
      PeerStatus p;
      FieldReader r(e, indexed(path, i), failure);
      r.str("address", &p.address);
      r.str("instance", &p.instance);
      // Written by nodes with membership; older ones leave them out.
      if (e.contains("public_key")) r.str("public_key", &p.public_key);
      if (e.contains("origin")) r.str("origin", &p.origin);
      r.boolean("up", &p.up);
      r.real("last_heard_s", &p.last_heard_s);
      r.u64("chunks_received", &p.chunks_received);
      r.u64("chunks_refused", &p.chunks_refused);
      if (const json* lags = r.array("writers")) {
        const std::string lpath = r.child("writers");
        for (size_t k = 0; k < lags->size() && failure->ok(); ++k) {
          const json& le = (*lags)[k];
          if (!element_is_object(le, lpath, k, failure)) break;
          WriterLag l;
          FieldReader lr(le, indexed(lpath, k), failure);
          lr.str("writer", &l.writer);
          lr.u64("peer_seqno", &l.peer_seqno);
          lr.u64("applied_seqno", &l.applied_seqno);
          lr.u64("lag_ops", &l.lag_ops);
          lr.real("lag_seconds", &l.lag_seconds);
          p.writers.push_back(std::move(l));
        }
      }
      if (const json* reported = e.contains("reported") ? r.array("reported") : nullptr) {
        const std::string rpath = r.child("reported");
        for (size_t k = 0; k < reported->size() && failure->ok(); ++k) {
          const json& re = (*reported)[k];
          if (!element_is_object(re, rpath, k, failure)) break;
          PeerReport x;
          FieldReader rr(re, indexed(rpath, k), failure);
          rr.str("public_key", &x.public_key);
          rr.str("instance", &x.instance);
          rr.boolean("up", &x.up);
          rr.real("last_heard_s", &x.last_heard_s);
          p.reported.push_back(std::move(x));
        }
      }
      out->push_back(std::move(p));
    }
  }
}

// The "members" array of a status (written by nodes with membership) into *out.
void read_members(FieldReader& top, std::vector<MemberStatus>* out, Status* failure) {
  const json* members = top.array("members");
  if (!members) return;
  const std::string path = top.child("members");
  for (size_t i = 0; i < members->size() && failure->ok(); ++i) {
    const json& e = (*members)[i];
    if (!element_is_object(e, path, i, failure)) break;
    MemberStatus m;
    FieldReader r(e, indexed(path, i), failure);
    r.str("public_key", &m.public_key);
    r.str("address", &m.address);
    r.str("name", &m.name);
    r.boolean("admitted", &m.admitted);
    r.str("by", &m.by);
    out->push_back(std::move(m));
  }
}

}  // namespace

Result<NodeStatus> status_from_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    std::string what = e.what();
    if (auto pos = what.find("] "); what.rfind("[json.exception", 0) == 0 && pos != std::string::npos) {
      what.erase(0, pos + 2);
    }
    return Status::InvalidArgument("status JSON is not valid JSON: " + what);
  }
  if (!j.is_object()) {
    return Status::InvalidArgument("status JSON: expected an object, got " + std::string(j.type_name()));
  }

  NodeStatus s;
  Status failure;
  FieldReader top(j, "", &failure);
  top.str("instance", &s.instance);
  top.str("cluster", &s.cluster);
  top.str("vector_space", &s.vector_space);
  top.u64("memories", &s.memories);
  top.u64("conflicts", &s.conflicts);  // absent from older nodes' status
  top.str("digest", &s.digest);
  top.str("digest_vector", &s.digest_vector);  // absent from older nodes' status
  top.u64("applied_remote_ops", &s.applied_remote_ops);
  top.u64("lanes_backlog", &s.lanes_backlog);
  top.u64("client_replies_dropped", &s.client_replies_dropped);
  if (const json* own = top.object("own_writer")) {
    FieldReader r(*own, top.child("own_writer"), &failure);
    r.str("state", &s.own_writer.state);
    r.str("reason", &s.own_writer.reason);
    r.u64("io_failures", &s.own_writer.io_failures);
  }

  if (const json* writers = top.array("writers")) {
    const std::string path = top.child("writers");
    for (size_t i = 0; i < writers->size() && failure.ok(); ++i) {
      const json& e = (*writers)[i];
      if (!element_is_object(e, path, i, &failure)) break;
      WriterApplied w;
      FieldReader r(e, indexed(path, i), &failure);
      r.str("writer", &w.writer);
      r.u64("applied_seqno", &w.applied_seqno);
      r.boolean("own", &w.own);
      s.writers.push_back(std::move(w));
    }
  }

  if (const json* problems = top.array("problems")) {
    const std::string path = top.child("problems");
    for (size_t i = 0; i < problems->size() && failure.ok(); ++i) {
      const json& e = (*problems)[i];
      if (!element_is_object(e, path, i, &failure)) break;
      WriterProblem p;
      FieldReader r(e, indexed(path, i), &failure);
      r.str("writer", &p.writer);
      r.str("problem", &p.problem);
      r.u64("seqno", &p.seqno);
      r.str("detail", &p.detail);
      s.problems.push_back(std::move(p));
    }
  }
  top.u64("clock_holds", &s.clock_holds);
  top.u64("copy_failures", &s.copy_failures);
  // Written by nodes that know an embedding provider; older ones leave it out.
  if (j.contains("embedding"))
    if (const json* e = top.object("embedding")) {
      FieldReader r(*e, top.child("embedding"), &failure);
      r.str("provider", &s.embedding.provider);
      r.u64("pending", &s.embedding.pending);
      r.u64("failed", &s.embedding.failed);
      r.u64("dropped", &s.embedding.dropped);
      r.u64("vectors", &s.embedding.vectors);
      r.u64("requests", &s.embedding.requests);
      r.u64("cache_hits", &s.embedding.cache_hits);
      r.u64("queries_skipped", &s.embedding.queries_skipped);
      r.str("last_error", &s.embedding.last_error);
    }
  if (const json* c = top.object("checkpoint")) {
    FieldReader r(*c, top.child("checkpoint"), &failure);
    r.u64("generation", &s.checkpoint.generation);
    r.u64("delta_of", &s.checkpoint.delta_of);
    r.u64("created_ms", &s.checkpoint.created_ms);
    r.u64("ops", &s.checkpoint.ops);
    if (const json* covered = r.array("covered")) {
      const std::string path = r.child("covered");
      for (size_t i = 0; i < covered->size() && failure.ok(); ++i) {
        const json& e = (*covered)[i];
        if (!element_is_object(e, path, i, &failure)) break;
        WriterApplied w;
        FieldReader wr(e, indexed(path, i), &failure);
        wr.str("writer", &w.writer);
        wr.u64("seqno", &w.applied_seqno);
        s.checkpoint.covered.push_back(std::move(w));
      }
    }
    // Written by nodes that count checkpoint failures; older ones leave them out.
    if (c->contains("write_failures")) r.u64("write_failures", &s.checkpoint.write_failures);
    if (c->contains("set_aside")) r.u64("set_aside", &s.checkpoint.set_aside);
  }

  read_peers(top, &s.peers, &failure);
  if (j.contains("public_key")) top.str("public_key", &s.public_key);
  if (j.contains("members")) read_members(top, &s.members, &failure);

  auto counts = [&](const char* field, std::map<std::string, uint64_t>* out) {
    const json* m = top.object(field);
    if (!m) return;
    for (auto it = m->begin(); it != m->end() && failure.ok(); ++it) {
      if (!it.value().is_number_unsigned()) {
        failure = Status::InvalidArgument("status JSON: field " + std::string(field) + "." + it.key() +
                                          ": expected an unsigned integer, got " + std::string(it.value().type_name()));
        break;
      }
      (*out)[it.key()] = it.value().get<uint64_t>();
    }
  };
  counts("refused", &s.refused);
  counts("integrity_failures", &s.integrity_failures);

  if (!failure.ok()) return failure;
  return s;
}

std::string status_to_text(const NodeStatus& s) {
  std::string out;
  auto line = [&out](const std::string& label, const std::string& value) {
    out += pad(label, 14) + value + "\n";
  };
  line("node", s.instance.empty() ? "(unknown)" : s.instance);
  line("cluster", s.cluster.empty() ? "(none: replication off)" : s.cluster);
  line("vector space", s.vector_space);
  line("memories", std::to_string(s.memories));
  line("conflicts", std::to_string(s.conflicts) +
                        (s.conflicts == 0 ? "" : " updates lost to an op that had not seen them (`vasana conflicts`)"));
  line("digest", s.digest + (s.digest_vector.empty() ? std::string() : "  at applied vector " + s.digest_vector));
  line("remote ops", std::to_string(s.applied_remote_ops) + " applied since start");
  line("lane backlog", std::to_string(s.lanes_backlog) +
                           (s.lanes_backlog == 0 ? " (recall sees every applied op)" : " memories not yet indexed by recall"));
  if (s.client_replies_dropped > 0)
    line("dropped", std::to_string(s.client_replies_dropped) + " replies to clients that did not read them, since start");

  std::string own = s.own_writer.state;
  if (!s.own_writer.reason.empty()) own += ": " + s.own_writer.reason;
  if (s.own_writer.io_failures > 0) own += " (" + std::to_string(s.own_writer.io_failures) + " I/O failures since start)";
  line("own writer", own);
  if (s.own_writer.state != "writable") line("writes", "refused (the own writer is " + s.own_writer.state + ")");
  if (!s.embedding.provider.empty()) {
    const EmbeddingStatus& e = s.embedding;
    line("embedding", e.provider + ": " + std::to_string(e.pending) + " pending, " + std::to_string(e.failed) +
                          " failed, " + std::to_string(e.dropped) + " dropped, " + std::to_string(e.vectors) +
                          " vectors written, " + std::to_string(e.queries_skipped) +
                          " recalls without the semantic lane (since start)");
    if (!e.last_error.empty()) line("", "last error: " + e.last_error);
  }
  std::string integrity;
  for (const auto& [kind, count] : s.integrity_failures)
    integrity += (integrity.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  if (!integrity.empty()) line("integrity", integrity + " failures since start");
  if (s.checkpoint.write_failures > 0 || s.checkpoint.set_aside > 0)
    line("checkpoint", "write failures " + std::to_string(s.checkpoint.write_failures) + ", damaged ones set aside " +
                           std::to_string(s.checkpoint.set_aside) + ", since start");

  out += "\nwriters (" + std::to_string(s.writers.size()) + "), applied seqno\n";
  if (s.writers.empty()) out += "  none\n";
  size_t wwidth = 0;
  for (const WriterApplied& w : s.writers) wwidth = std::max(wwidth, w.writer.size());
  for (const WriterApplied& w : s.writers) {
    out += "  " + pad(w.writer, wwidth) + "  " + std::to_string(w.applied_seqno) + (w.own ? "  (own)" : "") + "\n";
  }

  out += "\nwriter problems (" + std::to_string(s.problems.size()) + "; clock-bound holds since start: " +
         std::to_string(s.clock_holds) + ", copy write failures: " + std::to_string(s.copy_failures) + ")\n";
  if (s.problems.empty()) out += "  none\n";
  for (const WriterProblem& p : s.problems) {
    out += "  " + p.writer + "  " + p.problem + (p.seqno ? " at seqno " + std::to_string(p.seqno) : std::string()) +
           (p.detail.empty() ? std::string() : ": " + p.detail) + "\n";
  }

  const std::vector<WriterLag> lags = writer_lags(s.peers);
  out += "\nlag per writer (" + std::to_string(lags.size()) + ", over all peers)\n";
  out += writer_lags_text(lags);

  out += "\npeers (" + std::to_string(s.peers.size()) + ")\n";
  if (s.peers.empty()) out += "  none configured\n";
  for (const PeerStatus& p : s.peers) {
    std::string heard = p.last_heard_s < 0 ? std::string("never heard")
                                           : "last heard " + seconds_text(p.last_heard_s) + " ago";
    out += "  " + p.address + "  " + (p.up ? "up" : "down") + "  instance " +
           (p.instance.empty() ? std::string("unknown") : p.instance) + "  " + heard + "  chunks " +
           std::to_string(p.chunks_received) + " received, " + std::to_string(p.chunks_refused) + " refused\n";
    if (p.writers.empty()) out += "    no writers advertised\n";
    for (const WriterLag& l : p.writers) {
      out += "    lag " + l.writer + ": " + std::to_string(l.lag_ops) + " ops, " + seconds_text(l.lag_seconds) +
             " (peer at " + std::to_string(l.peer_seqno) + ", applied " + std::to_string(l.applied_seqno) + ")\n";
    }
  }

  out += "\nrefused peers, by reason\n";
  if (s.refused.empty()) out += "  none\n";
  for (const auto& [reason, count] : s.refused) out += "  " + reason + ": " + std::to_string(count) + "\n";
  return out;
}

}  // namespace vasana
