#include "actors/client_gateway.hpp"

#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/recall_input.hpp"
#include "sync/status_json.hpp"

namespace vasana {

namespace {

ClientError client_error_for(const Status& s) {
  switch (s.code()) {
    case Code::invalid_argument: return ClientError::bad_input;
    case Code::failed_precondition: return ClientError::unavailable;
    case Code::io_error: return ClientError::io_failure;
    default: return ClientError::internal;
  }
}

}  // namespace

ClientGateway::ClientGateway(writer_actor writer, std::vector<query_actor> queries,
                             std::shared_ptr<const RecallEngine> engine, ClientEndpoint* endpoint, InputLimits limits,
                             InstanceId instance, std::string vector_space_id, AckGate* ack_gate,
                             std::function<NodeStatus()> status)
    : writer_(std::move(writer)),
      queries_(std::move(queries)),
      engine_(std::move(engine)),
      endpoint_(endpoint),
      limits_(limits),
      instance_(instance),
      vector_space_id_(std::move(vector_space_id)),
      ack_gate_(ack_gate),
      status_(std::move(status)),
      lane_names_(engine_ ? engine_->lane_names() : std::vector<std::string>{}) {}

void ClientGateway::handle(std::vector<ClientCall>&& calls) {
  AppendBatch batch;
  for (auto& call : calls) handle_one(std::move(call), batch);
  if (batch.size() == 1)
    caf::anon_send(writer_, append_atom::value, std::move(batch.front()));
  else if (!batch.empty())
    caf::anon_send(writer_, append_atom::value, std::move(batch));
}

void ClientGateway::handle_one(ClientCall&& call, AppendBatch& batch) {
  const uint64_t rid = call.request.request_id;
  if (call.request.protocol_version != kClientProtocolVersion) {
    endpoint_->reply(call, error_response(rid, ClientError::protocol_mismatch,
                                          "client protocol version " + std::to_string(call.request.protocol_version) +
                                              "; this node speaks " + std::to_string(kClientProtocolVersion)));
    return;
  }
  ClientEndpoint* ep = endpoint_;
  switch (call.request.kind) {
    case ClientRequest::Kind::ping: {
      std::string space = vector_space_id_;
      caf::anon_send(writer_, caf::get_atom::value, WriterInfoReply{[ep, call, space](const WriterInfo& info) {
                       ClientResponse r;
                       r.request_id = call.request.request_id;
                       r.kind = ClientResponse::Kind::pong;
                       r.info = NodeInfo{info.instance,         space,        info.last_durable,
                                         info.writable,         info.read_only_reason, info.flushes,
                                         info.flushed_records};
                       ep->reply(call, r);
                     }});
      return;
    }
    case ClientRequest::Kind::status: {
      ClientResponse r;
      r.request_id = rid;
      r.kind = ClientResponse::Kind::status;
      r.status_json = status_to_json(status_ ? status_() : NodeStatus{});
      endpoint_->reply(call, r);
      return;
    }
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
      if (queries_.empty()) {
        endpoint_->reply(call, error_response(rid, ClientError::unavailable, "this node runs no query actors"));
        return;
      }
      caf::anon_send(queries_[next_query_++ % queries_.size()], std::move(call));
      return;
    }
    case ClientRequest::Kind::history:
    case ClientRequest::Kind::contradictions: {
      // Answered by a query actor: history reads segment files, which must not hold up the
      // endpoint thread; both see every write acknowledged before them (read-your-writes).
      if (queries_.empty()) {
        endpoint_->reply(call, error_response(rid, ClientError::unavailable, "this node runs no query actors"));
        return;
      }
      if (call.request.kind == ClientRequest::Kind::contradictions) {
        if (call.request.contradiction_realms.empty()) {
          endpoint_->reply(call, error_response(rid, ClientError::bad_input, "contradictions: name at least one realm"));
          return;
        }
        for (const auto& realm : call.request.contradiction_realms)
          if (Status v = check_realm(realm); !v.ok()) {
            endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message()));
            return;
          }
      }
      caf::anon_send(queries_[next_query_++ % queries_.size()], std::move(call));
      return;
    }
    case ClientRequest::Kind::remember: {
      Status v = validate_memory(call.request.memory, limits_);
      if (!v.ok()) {
        endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message() + "; nothing was written"));
        return;
      }
      if (!call.request.memory.ref.empty() && engine_) {
        std::optional<MemoryId> held;
        engine_->read([&](const ReplicaState& st) { held = st.by_ref(call.request.memory.realm, call.request.memory.ref); });
        if (held) {
          ClientResponse r;
          r.request_id = rid;
          r.kind = ClientResponse::Kind::remembered;
          r.id = *held;
          r.existed = true;
          endpoint_->reply(call, r);
          return;
        }
      }
      AppendRequest req;
      req.op_type = static_cast<uint16_t>(OpType::put_memory);
      req.payload = encode_put_memory(call.request.memory);
      call.request.memory = MemoryInput{};  // the reply needs only the address
      InstanceId instance = instance_;
      AckGate* gate = ack_gate_;
      req.done = [ep, call = std::move(call), instance, gate](const AppendResult& res) {
        const uint64_t id = call.request.request_id;
        if (!res.status.ok()) {
          ep->reply(call, error_response(id, client_error_for(res.status), res.status.message()));
          return;
        }
        ClientResponse r;
        r.request_id = id;
        r.kind = ClientResponse::Kind::remembered;
        r.id = MemoryId{instance, res.seqno};
        r.effective_ts = res.ts.value;
        if (!gate) {
          ep->reply(call, r);
          return;
        }
        // replicated:N: answered once N peers synced it, or with an error after the deadline.
        gate->wait(res.seqno, [ep, call, r](bool replicated) {
          if (replicated) {
            ep->reply(call, r);
            return;
          }
          ep->reply(call, error_response(r.request_id, ClientError::unavailable,
                                         "memory " + r.id.to_string() + " is durable on this node but was not synced "
                                         "by enough peers in time (sync.ack); it will replicate when they return"));
        });
      };
      batch.push_back(std::move(req));
      return;
    }
  }
}

}  // namespace vasana
