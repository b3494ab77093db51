// Cap'n Proto side of protocol/client_analogy.hpp, for protocol/client_codec.cpp only (includes
// generated code: keep it out of widely used headers).
#pragma once

#include "protocol/client.capnp.h"
#include "protocol/client_analogy.hpp"

namespace vasana {

void fill_analogy_request(schema::AnalogyRequest::Builder out, const AnalogyRequest& r);
AnalogyRequest read_analogy_request(schema::AnalogyRequest::Reader in);
void fill_analogy_answer(schema::AnalogyAnswer::Builder out, const AnalogyView& v);
AnalogyView read_analogy_answer(schema::AnalogyAnswer::Reader in);

}  // namespace vasana
