#include "protocol/client_codec.hpp"

#include "protocol/capnp_bytes.hpp"
#include "protocol/client.capnp.h"
#include "protocol/put_memory_fields.hpp"

namespace vasana {

std::string encode_request(const ClientRequest& r) {
  capnp::MallocMessageBuilder mb;
  auto req = mb.initRoot<schema::ClientRequest>();
  req.setRequestId(r.request_id);
  req.setProtocolVersion(r.protocol_version);
  switch (r.kind) {
    case ClientRequest::Kind::ping: req.setPing(); break;
    case ClientRequest::Kind::remember: fill_put_memory(req.initRemember(), r.memory); break;
  }
  return message_bytes(mb);
}

Result<ClientRequest> decode_request(std::string_view body) {
  ClientRequest out;
  Status s = read_message<schema::ClientRequest>(body, [&](schema::ClientRequest::Reader req) {
    out.request_id = req.getRequestId();
    out.protocol_version = req.getProtocolVersion();
    switch (req.which()) {
      case schema::ClientRequest::PING: out.kind = ClientRequest::Kind::ping; break;
      case schema::ClientRequest::REMEMBER:
        out.kind = ClientRequest::Kind::remember;
        out.memory = memory_from_reader(req.getRemember());
        break;
      default: return Status::InvalidArgument("unknown request type");
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

std::string encode_response(const ClientResponse& r) {
  capnp::MallocMessageBuilder mb;
  auto res = mb.initRoot<schema::ClientResponse>();
  res.setRequestId(r.request_id);
  switch (r.kind) {
    case ClientResponse::Kind::error: {
      auto e = res.initError();
      e.setCode(static_cast<schema::ErrorCode>(r.error));
      e.setMessage(r.message);
      break;
    }
    case ClientResponse::Kind::pong: {
      auto i = res.initPong();
      i.setInstance(r.info.instance.value);
      i.setVectorSpace(r.info.vector_space);
      i.setLastSeqno(r.info.last_seqno.value);
      i.setWritable(r.info.writable);
      i.setReadOnlyReason(r.info.read_only_reason);
      i.setFlushes(r.info.flushes);
      i.setFlushedRecords(r.info.flushed_records);
      break;
    }
    case ClientResponse::Kind::remembered: {
      auto m = res.initRemembered();
      m.initId().setInstance(r.id.instance.value);
      m.getId().setSeqno(r.id.seqno.value);
      m.setEffectiveTs(r.effective_ts);
      break;
    }
  }
  return message_bytes(mb);
}

Result<ClientResponse> decode_response(std::string_view body) {
  ClientResponse out;
  Status s = read_message<schema::ClientResponse>(body, [&](schema::ClientResponse::Reader res) {
    out.request_id = res.getRequestId();
    switch (res.which()) {
      case schema::ClientResponse::ERROR: {
        auto e = res.getError();
        out.kind = ClientResponse::Kind::error;
        auto code = static_cast<uint16_t>(e.getCode());
        out.error = code <= static_cast<uint16_t>(ClientError::internal) ? static_cast<ClientError>(code)
                                                                          : ClientError::internal;
        out.message = e.getMessage();
        break;
      }
      case schema::ClientResponse::PONG: {
        auto i = res.getPong();
        out.kind = ClientResponse::Kind::pong;
        out.info.instance = InstanceId(i.getInstance());
        out.info.vector_space = i.getVectorSpace();
        out.info.last_seqno = Seqno(i.getLastSeqno());
        out.info.writable = i.getWritable();
        out.info.read_only_reason = i.getReadOnlyReason();
        out.info.flushes = i.getFlushes();
        out.info.flushed_records = i.getFlushedRecords();
        break;
      }
      case schema::ClientResponse::REMEMBERED: {
        auto m = res.getRemembered();
        out.kind = ClientResponse::Kind::remembered;
        out.id = MemoryId{InstanceId(m.getId().getInstance()), Seqno(m.getId().getSeqno())};
        out.effective_ts = m.getEffectiveTs();
        break;
      }
      default: return Status::InvalidArgument("unknown response type");
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

ClientResponse error_response(uint64_t request_id, ClientError code, std::string message) {
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::error;
  r.error = code;
  r.message = std::move(message);
  return r;
}

}  // namespace vasana
