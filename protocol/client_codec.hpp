// The client protocol (protocol/client.capnp) as plain C++ values, so that callers never see
// Cap'n Proto builders. Every message on the client socket is [kClientTag, body].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/ids.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

inline constexpr std::string_view kClientTag = "vasana.client.1";
inline constexpr uint16_t kClientProtocolVersion = 1;

struct ClientRequest {
  enum class Kind { ping, remember };
  uint64_t request_id = 0;
  uint16_t protocol_version = kClientProtocolVersion;
  Kind kind = Kind::ping;
  MemoryInput memory;  // for remember
};

enum class ClientError : uint16_t { bad_input = 0, unavailable = 1, io_failure = 2, protocol_mismatch = 3, internal = 4 };

struct NodeInfo {
  InstanceId instance;
  std::string vector_space;
  Seqno last_seqno;
  bool writable = true;
  std::string read_only_reason;
  uint64_t flushes = 0;
  uint64_t flushed_records = 0;
};

struct ClientResponse {
  enum class Kind { error, pong, remembered };
  uint64_t request_id = 0;
  Kind kind = Kind::error;
  ClientError error = ClientError::internal;  // for error
  std::string message;                        // for error
  NodeInfo info;                              // for pong
  MemoryId id;                                // for remembered
  uint64_t effective_ts = 0;                  // for remembered
};

std::string encode_request(const ClientRequest& r);
Result<ClientRequest> decode_request(std::string_view body);
std::string encode_response(const ClientResponse& r);
Result<ClientResponse> decode_response(std::string_view body);

ClientResponse error_response(uint64_t request_id, ClientError code, std::string message);

}  // namespace vasana
