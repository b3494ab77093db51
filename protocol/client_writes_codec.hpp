// Encoding and decoding of the write requests and their responses (protocol/client_writes.hpp),
// called by protocol/client_codec.cpp. Includes generated code: include only from the codecs.
#pragma once

#include "protocol/client.capnp.h"
#include "protocol/client_codec.hpp"

namespace vasana {

// Sets the union member of r.kind (one of the write kinds) and, for a remember with options
// other than the defaults, rememberOptions.
void encode_write_request(schema::ClientRequest::Builder req, const ClientRequest& r);
// Reads the write member req holds (and a remember's options) into out. Ok for every write kind.
Status decode_write_request(schema::ClientRequest::Reader req, ClientRequest& out);

// Remembered's fields beyond id, effectiveTs and existed.
void encode_remembered_writes(schema::Remembered::Builder m, const ClientResponse& r);
void decode_remembered_writes(schema::Remembered::Reader m, ClientResponse& out);
// The written response.
void encode_written(schema::ClientResponse::Builder res, const ClientResponse& r);
void decode_written(schema::ClientResponse::Reader res, ClientResponse& out);

}  // namespace vasana
