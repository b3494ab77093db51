#include "actors/client_gateway.hpp"

#include <algorithm>

#include "actors/candidate_join.hpp"
#include "actors/request_labels.hpp"
#include "protocol/recall_input.hpp"

namespace vasana {

namespace {
const ClientGrants kNoClients;
}  // namespace

ClientGateway::ClientGateway(writer_actor writer, std::shared_ptr<const WriterState> writer_state,
                             std::vector<query_actor> queries, std::shared_ptr<const RecallEngine> engine,
                             ClientEndpoint* endpoint, InputLimits limits,
                             InstanceId instance, std::string vector_space_id, AckGate* ack_gate,
                             std::function<void(ClientCall&&)> status)
    : writer_(std::move(writer)),
      writer_state_(std::move(writer_state)),
      queries_(std::move(queries)),
      engine_(std::move(engine)),
      endpoint_(endpoint),
      limits_(limits),
      instance_(instance),
      vector_space_id_(std::move(vector_space_id)),
      ack_gate_(ack_gate),
      status_(std::move(status)),
      lane_names_(engine_ ? engine_->lane_names() : std::vector<std::string>{}),
      grants_(&kNoClients) {}

void ClientGateway::set_grants(const ClientGrants* grants, std::shared_ptr<ClientRefusals> refusals) {
  grants_ = grants ? grants : &kNoClients;
  refusals_ = std::move(refusals);
}

void ClientGateway::set_query_vector(QueryVector query_vector, std::function<void()> skipped) {
  query_vector_ = std::move(query_vector);
  query_skipped_ = std::move(skipped);
}

void ClientGateway::refuse(const ClientCall& call, std::string message) {
  endpoint_->reply(call, refusal_response(refusals_.get(), call, std::move(message)));
}

void ClientGateway::set_write_context(WritePolicy policy, std::shared_ptr<const std::atomic<uint64_t>> acknowledged) {
  write_policy_ = std::move(policy);
  acknowledged_ = std::move(acknowledged);
}

void ClientGateway::handle(std::vector<ClientCall>&& calls) {
  AppendBatch batch;
  for (auto& call : calls) handle_one(std::move(call), batch);
  send(std::move(batch));
  // The remembers' conflict candidates by text, while the writer has their batch.
  if (engine_) run_candidate_lookups(*engine_);
}

void ClientGateway::send(AppendBatch&& batch) {
  if (batch.size() == 1)
    caf::anon_send(writer_, append_atom::value, std::move(batch.front()));
  else if (!batch.empty())
    caf::anon_send(writer_, append_atom::value, std::move(batch));
  batch.clear();
}

void ClientGateway::handle_one(ClientCall&& call, AppendBatch& batch) {
  const uint64_t rid = call.request.request_id;
  if (call.request.protocol_version != kClientProtocolVersion) {
    endpoint_->reply(call, error_response(rid, ClientError::protocol_mismatch,
                                          "client protocol version " + std::to_string(call.request.protocol_version) +
                                              "; this node speaks " + std::to_string(kClientProtocolVersion)));
    return;
  }
  // Who the call acts as, and what it may do with the realms it names itself; the memories it
  // names are checked where the state is read.
  if (auto refused = resolve_identity(*grants_, call)) {
    refuse(call, std::move(*refused));
    return;
  }
  if (auto refused = grant_refusal(call, nullptr)) {
    refuse(call, std::move(*refused));
    return;
  }
  ClientEndpoint* ep = endpoint_;
  switch (call.request.kind) {
    case ClientRequest::Kind::ping: {
      // Answered here, from what the writer last published: no hop to the writer's thread, and
      // a flush held up by the disk does not hold up the answer.
      const WriterInfo info = writer_state_->info();
      ClientResponse r;
      r.request_id = rid;
      r.kind = ClientResponse::Kind::pong;
      r.info = NodeInfo{info.instance, vector_space_id_,      info.last_durable,   info.writable,
                        info.read_only_reason, info.flushes, info.flushed_records};
      ep->reply(call, r);
      return;
    }
    case ClientRequest::Kind::status:
      if (status_)
        status_(std::move(call));
      else
        endpoint_->reply(call, error_response(rid, ClientError::unavailable, "this node answers no status"));
      return;
    case ClientRequest::Kind::recall: {
      const size_t qdim = call.request.recall.vector.size();
      if (qdim != 0 && limits_.vector_dim != 0 && qdim != limits_.vector_dim) {
        endpoint_->reply(call, error_response(rid, ClientError::bad_input,
                                              "query vector has " + std::to_string(qdim) + " dimensions; this store's vector space " +
                                                  vector_space_id_ + " has " + std::to_string(limits_.vector_dim)));
        return;
      }
      Status v = validate_recall(call.request.recall, limits_, lane_names_);
      if (!v.ok()) {
        endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message()));
        return;
      }
      const auto& lanes = call.request.recall.lanes;
      const bool semantic = lanes.empty() || std::find(lanes.begin(), lanes.end(), "semantic") != lanes.end();
      if (query_vector_ && semantic && call.request.recall.vector.empty() && !queries_.empty()) {
        // The query actor is picked here (next_query_ is the endpoint thread's); the call goes
        // to it from whichever thread the vector comes on.
        auto target = queries_[next_query_++ % queries_.size()];
        auto held = std::make_shared<ClientCall>(std::move(call));
        const std::string text = held->request.recall.text;
        query_vector_(text, [held, target, skipped = query_skipped_](Result<std::vector<float>> vec) {
          if (vec.ok()) {
            held->request.recall.vector = std::move(vec.value());
          } else {
            held->recall_notes.push_back("semantic lane skipped: no query vector from the embedding provider: " +
                                         vec.status().message());
            if (skipped) skipped();
          }
          caf::anon_send(target, std::move(*held));
        });
        return;
      }
      to_query_actor(std::move(call));
      return;
    }
    case ClientRequest::Kind::remember:
    case ClientRequest::Kind::update: case ClientRequest::Kind::forget: case ClientRequest::Kind::set_status:
    case ClientRequest::Kind::pin: case ClientRequest::Kind::fact: case ClientRequest::Kind::correct:
    case ClientRequest::Kind::retract: case ClientRequest::Kind::review: case ClientRequest::Kind::member:
    case ClientRequest::Kind::erase:
      handle_checked_write(std::move(call), batch);
      return;
    case ClientRequest::Kind::get: handle_read(std::move(call)); return;
    case ClientRequest::Kind::list: handle_read(std::move(call)); return;
    case ClientRequest::Kind::analogy: handle_read(std::move(call)); return;
    case ClientRequest::Kind::facts: handle_read(std::move(call)); return;
    case ClientRequest::Kind::realms: handle_read(std::move(call)); return;
    case ClientRequest::Kind::history:
    case ClientRequest::Kind::contradictions:
    case ClientRequest::Kind::conflicts: {
      // Answered by a query actor: history reads segment files, which must not hold up the
      // endpoint thread; all see every write acknowledged before them (read-your-writes).
      if (call.request.kind != ClientRequest::Kind::history) {
        if (call.request.listed_realms.empty()) {
          endpoint_->reply(call, error_response(rid, ClientError::bad_input,
                                                std::string(request_kind_label(call.request.kind)) +
                                                    ": name at least one realm"));
          return;
        }
        for (const auto& realm : call.request.listed_realms)
          if (Status v = check_realm(realm); !v.ok()) {
            endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message()));
            return;
          }
      }
      to_query_actor(std::move(call));
      return;
    }
  }
}

void ClientGateway::to_query_actor(ClientCall&& call) {
  if (queries_.empty()) {
    endpoint_->reply(call, error_response(call.request.request_id, ClientError::unavailable,
                                          "this node runs no query actors"));
    return;
  }
  caf::anon_send(queries_[next_query_++ % queries_.size()], std::move(call));
}

}  // namespace vasana
