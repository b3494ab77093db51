#include "frontends/http_routes.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "frontends/analogy_json.hpp"
#include "frontends/bounded_json.hpp"
#include "frontends/embedded_files.hpp"
#include "frontends/memory_view_text.hpp"
#include "frontends/request_json.hpp"
#include "frontends/response_json.hpp"
#include "protocol/json_text.hpp"

namespace vasana {

using nlohmann::json;

namespace {

constexpr const char* kJson = "application/json";

int http_status_of(ClientError e) {
  switch (e) {
    case ClientError::bad_input: return 400;
    case ClientError::permission_denied: return 403;
    case ClientError::not_found: return 404;
    case ClientError::conflict: return 409;
    case ClientError::unavailable: return 503;
    default: return 500;
  }
}

void set_json_error(HttpResponse& res, int status, const std::string& code, const std::string& message) {
  res = json_error(status, code, message);
}

void bad_request(HttpResponse& res, const std::string& message) { res = json_error(400, "bad_input", message); }

// The request body as a JSON value; an empty body is an empty object. nullopt after answering 400.
std::optional<json> body_json(const HttpRequest& req, HttpResponse& res) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto body = parse_bounded_json(req.body);  // nesting bounded: a deep body cannot overflow the stack
  if (!body.ok()) {
    bad_request(res, "the body is " + body.status().message());
    return std::nullopt;
  }
  return std::move(*body);
}

// The memory (or triplet) id of the path; nullopt after answering 400.
std::optional<MemoryId> path_id(const HttpRequest& req, HttpResponse& res) {
  const std::string text = req.matches.size() > 1 ? req.matches[1] : "";
  auto id = MemoryId::parse(text);
  if (!id || id->seqno.value == 0) {
    bad_request(res, "id '" + text + "' is not an id (16 hex digits, '-', a seqno from 1: 9f3c2a1b4d5e6f70-42)");
    return std::nullopt;
  }
  return *id;
}

// Refuses query parameters other than `allowed`; false after answering 400.
bool only_params(const HttpRequest& req, HttpResponse& res, std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : req.params) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      bad_request(res, "unknown query parameter '" + key + "'");
      return false;
    }
  }
  return true;
}

// Every value of a repeatable query parameter, commas splitting values too.
std::vector<std::string> param_list(const HttpRequest& req, const char* key) {
  std::vector<std::string> out;
  for (size_t i = 0; i < req.param_count(key); ++i) {
    const std::string v = req.param(key, i);
    size_t start = 0;
    while (start <= v.size()) {
      const size_t comma = std::min(v.find(',', start), v.size());
      if (comma > start) out.push_back(v.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

// A true/false query parameter; false after answering 400.
bool param_flag(const HttpRequest& req, HttpResponse& res, const char* key, bool& out) {
  if (!req.has_param(key)) return true;
  const std::string v = req.param(key);
  if (v == "true" || v == "1" || v.empty()) {
    out = true;
  } else if (v == "false" || v == "0") {
    out = false;
  } else {
    bad_request(res, std::string(key) + " must be true or false (got '" + v + "')");
    return false;
  }
  return true;
}

// The `limit` query parameter, a number from 1 to max, into *out; false after answering 400.
bool limit_param(const HttpRequest& req, HttpResponse& res, uint32_t max, uint32_t& out) {
  const std::string v = req.param("limit");
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos || std::stoul(v) < 1 ||
      std::stoul(v) > max) {
    bad_request(res, "limit must be a number from 1 to " + std::to_string(max) + " (got '" + v + "')");
    return false;
  }
  out = uint32_t(std::stoul(v));
  return true;
}

class Routes {
 public:
  explicit Routes(const HttpRouteEnv& env) : env_(env) {}

  // Calls the node as `who`; on an answer of kind `expected` writes body(answer) with 200,
  // otherwise the error's status. A node that does not answer is 503.
  void call(HttpResponse& res, const ClientGrant& who, ClientRequest request, ClientResponse::Kind expected,
            const std::function<std::string(const ClientResponse&)>& body) const {
    request.acting_as = who.name;
    request.via = "http";
    auto answer = env_.call(std::move(request));
    if (!answer.ok())
      return set_json_error(res, 503, "unavailable",
                            answer.status().message() + "; the outcome of a write is unknown");
    if (answer->kind == ClientResponse::Kind::error && answer->error == ClientError::not_replicated) {
      // Written here, not yet on as many peers as sync.ack asks: accepted, with the id.
      res.status = 202;
      res.set_content(not_replicated_json(*answer), kJson);
      return;
    }
    if (answer->kind == ClientResponse::Kind::error)
      return set_json_error(res, http_status_of(answer->error), client_error_name(answer->error), answer->message);
    if (answer->kind != expected) return set_json_error(res, 500, "internal", "unexpected answer from the node");
    res.status = 200;
    res.set_content(body(*answer), kJson);
  }

  void add(HttpRouter& router) const {
    router.add("GET", "/healthz", [this](const HttpRequest&, HttpResponse& res, const ClientGrant& who) {
      ClientRequest r;
      r.kind = ClientRequest::Kind::ping;
      call(res, who, std::move(r), ClientResponse::Kind::pong, [](const ClientResponse& a) {
        return JsonObject()
            .boolean("ok", true)
            .str("instance", to_hex(a.info.instance))
            .boolean("writable", a.info.writable)
            .str("read_only_reason", a.info.read_only_reason)
            .unum("last_seqno", a.info.last_seqno.value)
            .done();
      });
    });
    router.add("GET", "/v1/openapi.json", [](const HttpRequest& req, HttpResponse& res, const ClientGrant&) {
      if (!only_params(req, res, {})) return;
      const EmbeddedFile* doc = find_embedded_file("/v1/openapi.json");
      if (!doc) return set_json_error(res, 500, "internal", "this build holds no OpenAPI document");
      res.status = 200;
      res.set_content(std::string(doc->bytes), std::string(doc->content_type));
    });
    router.add("GET", "/v1/status", [this](const HttpRequest&, HttpResponse& res, const ClientGrant& who) {
      ClientRequest r;
      r.kind = ClientRequest::Kind::status;
      call(res, who, std::move(r), ClientResponse::Kind::status, [this](const ClientResponse& a) {
        json out = json::parse(a.status_json, nullptr, false);
        if (out.is_discarded() || !out.is_object()) out = json::object();
        const HttpCounts c = env_.counts();
        out["http"] = {{"requests", c.requests},
                       {"unauthorized", c.unauthorized},
                       {"throttled", c.throttled},
                       {"client_errors", c.client_errors},
                       {"server_errors", c.server_errors},
                       {"connections_refused", c.connections_refused},
                       {"timeouts", c.timeouts}};
        return out.dump();
      });
    });
    router.add("GET", "/v1/realms", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      if (!only_params(req, res, {})) return;
      ClientRequest r;
      r.kind = ClientRequest::Kind::realms;
      call(res, who, std::move(r), ClientResponse::Kind::realms, [](const ClientResponse& a) {
        std::string list = "[";
        for (const RealmView& v : a.realms)
          list += (list.size() > 1 ? "," : "") + JsonObject().str("realm", v.name).unum("memories", v.memories).done();
        return JsonObject().raw("realms", list + "]").done();
      });
    });
    router.add("POST", "/v1/remember", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto body = body_json(req, res);
      if (!body) return;
      auto r = remember_from_json(*body, env_.limits, "vasana-http");
      if (!r.ok()) return bad_request(res, r.status().message());
      call(res, who, std::move(r.value()), ClientResponse::Kind::remembered, remembered_json);
    });
    router.add("POST", "/v1/recall", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto body = body_json(req, res);
      if (!body) return;
      bool explain = false;
      if (body->is_object() && body->contains("explain")) {
        if (!(*body)["explain"].is_boolean()) return bad_request(res, "explain must be true or false");
        explain = (*body)["explain"].get<bool>();
        body->erase("explain");
      }
      auto q = recall_query_from_json(*body, {}, env_.limits);
      if (!q.ok()) return bad_request(res, q.status().message());
      ClientRequest r;
      r.kind = ClientRequest::Kind::recall;
      r.recall = std::move(q.value());
      call(res, who, std::move(r), ClientResponse::Kind::recalled,
           [explain](const ClientResponse& a) { return recall_answer_json(a.answer, explain); });
    });
    router.add("GET", "/v1/memories", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      list(req, res, who);
    });
    router.add("POST", "/v1/analogy", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto body = body_json(req, res);
      if (!body) return;
      auto r = analogy_from_json(*body);
      if (!r.ok()) return bad_request(res, r.status().message());
      call(res, who, std::move(r.value()), ClientResponse::Kind::analogy,
           [](const ClientResponse& a) { return analogy_json(a.analogy); });
    });
    router.add("GET", R"(/v1/memories/([^/]+))", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id) return;
      ClientRequest r;
      r.kind = ClientRequest::Kind::get;
      r.get = *id;
      call(res, who, std::move(r), ClientResponse::Kind::memory,
           [](const ClientResponse& a) { return memory_view_json(a.memory); });
    });
    router.add("GET", R"(/v1/memories/([^/]+)/history)", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id) return;
      ClientRequest r;
      r.kind = ClientRequest::Kind::history;
      r.history_of = *id;
      call(res, who, std::move(r), ClientResponse::Kind::history, [](const ClientResponse& a) {
        std::string entries = "[";
        for (size_t i = 0; i < a.history.size(); ++i) entries += (i ? "," : "") + history_entry_json(a.history[i]);
        return JsonObject().raw("history", entries + "]").done();
      });
    });
    removal(router, "DELETE", R"(/v1/memories/([^/]+))", ClientRequest::Kind::forget, &ClientRequest::forget);
    removal(router, "POST", R"(/v1/memories/([^/]+)/erase)", ClientRequest::Kind::erase, &ClientRequest::erase);
    memory_write(router, "update", update_from_json);
    memory_write(router, "status", set_status_from_json);
    memory_write(router, "pin", pin_from_json);
    router.add("POST", R"(/v1/memories/([^/]+)/review)", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id) return;
      auto body = body_json(req, res);
      if (!body) return;
      auto r = review_from_json(*body, *id, who.name);
      if (!r.ok()) return bad_request(res, r.status().message());
      call(res, who, std::move(r.value()), ClientResponse::Kind::written, written_json);
    });
    body_write(router, "/v1/facts", fact_from_json);
    router.add("GET", "/v1/facts", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      facts(req, res, who);
    });
    body_write(router, "/v1/corrections", correction_from_json);
    router.add("DELETE", R"(/v1/facts/([^/]+))", [this](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id) return;
      ClientRequest r;
      r.kind = ClientRequest::Kind::retract;
      r.retract = *id;
      call(res, who, std::move(r), ClientResponse::Kind::written, written_json);
    });
    realm_listing(router, "/v1/contradictions", ClientRequest::Kind::contradictions,
                  ClientResponse::Kind::contradictions, "contradictions", &ClientResponse::contradictions,
                  contradiction_json);
    realm_listing(router, "/v1/conflicts", ClientRequest::Kind::conflicts, ClientResponse::Kind::conflicts,
                  "conflicts", &ClientResponse::conflicts, conflict_json);
  }

 private:
  using MemoryBody = Result<ClientRequest> (*)(const json&, const MemoryId&);
  using Body = Result<ClientRequest> (*)(const json&);

  // GET path?realm=R (repeated or comma-separated): what the node lists in those realms for
  // review, answered {"<key>": [...]} with item_json of each of the answer's items.
  template <class Item>
  void realm_listing(HttpRouter& router, const std::string& path, ClientRequest::Kind kind, ClientResponse::Kind want,
                     const char* key, std::vector<Item> ClientResponse::*items,
                     std::string (*item_json)(const Item&)) const {
    router.add("GET", path, [=](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      if (!only_params(req, res, {"realm"})) return;
      ClientRequest r;
      r.kind = kind;
      r.listed_realms = param_list(req, "realm");
      if (r.listed_realms.empty()) return bad_request(res, "realm is required (repeat it for several realms)");
      call(res, who, std::move(r), want, [=](const ClientResponse& a) {
        std::string list = "[";
        for (const Item& item : a.*items) list += (list.size() > 1 ? "," : "") + item_json(item);
        return JsonObject().raw(key, list + "]").done();
      });
    });
  }

  // A forget or erase of the memory in the path, with an optional `reason` query parameter.
  void removal(HttpRouter& router, const std::string& method, const std::string& path, ClientRequest::Kind kind,
               ForgetRequest ClientRequest::*field) const {
    router.add(method, path, [this, kind, field](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id || !only_params(req, res, {"reason"})) return;
      ClientRequest r;
      r.kind = kind;
      (r.*field).memory = *id;
      (r.*field).reason = req.param("reason");
      call(res, who, std::move(r), ClientResponse::Kind::written, written_json);
    });
  }

  // POST /v1/memories/{id}/<what> with a JSON body: a write answered {"id", "seqno", "effective_ts"}.
  void memory_write(HttpRouter& router, const std::string& what, MemoryBody parse) const {
    router.add("POST", "/v1/memories/([^/]+)/" + what, [this, parse](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto id = path_id(req, res);
      if (!id) return;
      auto body = body_json(req, res);
      if (!body) return;
      auto r = parse(*body, *id);
      if (!r.ok()) return bad_request(res, r.status().message());
      call(res, who, std::move(r.value()), ClientResponse::Kind::written, written_json);
    });
  }

  void body_write(HttpRouter& router, const std::string& path, Body parse) const {
    router.add("POST", path, [this, parse](const HttpRequest& req, HttpResponse& res, const ClientGrant& who) {
      auto body = body_json(req, res);
      if (!body) return;
      auto r = parse(*body);
      if (!r.ok()) return bad_request(res, r.status().message());
      call(res, who, std::move(r.value()), ClientResponse::Kind::written, written_json);
    });
  }

  // GET /v1/facts?realm=R&after=ID&limit=N: a page of the realm's live triplets and corrections
  // in op id order.
  void facts(const HttpRequest& req, HttpResponse& res, const ClientGrant& who) const {
    if (!only_params(req, res, {"realm", "after", "limit"})) return;
    ClientRequest r;
    r.kind = ClientRequest::Kind::facts;
    FactsRequest& f = r.facts;
    f.realm = req.param("realm");
    if (f.realm.empty()) return bad_request(res, "realm is required");
    if (req.has_param("after")) {
      auto id = MemoryId::parse(req.param("after"));
      if (!id) return bad_request(res, "after '" + req.param("after") + "' is not an id");
      f.after = *id;
    }
    if (req.has_param("limit") && !limit_param(req, res, kMaxFactsPage, f.limit)) return;
    if (Status v = validate_facts_request(f); !v.ok()) return bad_request(res, v.message());
    call(res, who, std::move(r), ClientResponse::Kind::facts, [](const ClientResponse& a) {
      std::string items = "[";
      for (size_t i = 0; i < a.facts.entries.size(); ++i) items += (i ? "," : "") + fact_entry_json(a.facts.entries[i]);
      return JsonObject()
          .raw("facts", items + "]")
          .str("next", a.facts.next.seqno.value ? a.facts.next.to_string() : "")
          .done();
    });
  }

  // GET /v1/memories?realm=R&kind=..&status=..&tag=..&deleted=..&unreviewed=..&after=ID&limit=N
  void list(const HttpRequest& req, HttpResponse& res, const ClientGrant& who) const {
    if (!only_params(req, res, {"realm", "kind", "status", "tag", "deleted", "unreviewed", "after", "limit"})) return;
    ClientRequest r;
    r.kind = ClientRequest::Kind::list;
    ListRequest& l = r.list;
    l.realm = req.param("realm");
    if (l.realm.empty()) return bad_request(res, "realm is required");
    for (const auto& k : param_list(req, "kind")) {
      MemoryKind kind{};
      if (!parse_kind_name(k, kind)) return bad_request(res, "kind '" + k + "' is not a memory kind");
      l.kinds.push_back(kind);
    }
    for (const auto& st : param_list(req, "status")) {
      MemoryStatus status{};
      if (!parse_status_name(st, status)) return bad_request(res, "status '" + st + "' is not a memory status");
      l.statuses.push_back(status);
    }
    l.tags = param_list(req, "tag");
    if (!param_flag(req, res, "deleted", l.include_deleted) || !param_flag(req, res, "unreviewed", l.unreviewed)) return;
    if (req.has_param("after")) {
      auto id = MemoryId::parse(req.param("after"));
      if (!id) return bad_request(res, "after '" + req.param("after") + "' is not a memory id");
      l.after = *id;
    }
    if (req.has_param("limit") && !limit_param(req, res, kMaxListLimit, l.limit)) return;
    if (Status v = validate_list(l); !v.ok()) return bad_request(res, v.message());
    call(res, who, std::move(r), ClientResponse::Kind::listed, [](const ClientResponse& a) {
      std::string items = "[";
      for (size_t i = 0; i < a.page.memories.size(); ++i) items += (i ? "," : "") + memory_view_json(a.page.memories[i]);
      return JsonObject()
          .raw("memories", items + "]")
          .str("next", a.page.next.seqno.value ? a.page.next.to_string() : "")
          .done();
    });
  }

  HttpRouteEnv env_;
};

}  // namespace

std::shared_ptr<const void> add_http_routes(HttpRouter& router, const HttpRouteEnv& env) {
  auto routes = std::make_shared<const Routes>(env);
  routes->add(router);
  return routes;
}

}  // namespace vasana
