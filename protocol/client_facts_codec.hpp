// Cap'n Proto side of protocol/client_facts.hpp, for protocol/client_codec.cpp only (includes
// generated code: keep it out of widely used headers).
#pragma once

#include "protocol/client.capnp.h"
#include "protocol/client_facts.hpp"

namespace vasana {

void fill_facts_request(schema::FactsRequest::Builder out, const FactsRequest& r);
FactsRequest read_facts_request(schema::FactsRequest::Reader in);
void fill_facts_page(schema::FactsPage::Builder out, const FactsPage& p);
FactsPage read_facts_page(schema::FactsPage::Reader in);

}  // namespace vasana
