// The read requests' parts of the client codec: called by protocol/client_codec.cpp only.
// Includes generated code: keep it out of widely used headers.
#pragma once

#include "protocol/client.capnp.h"
#include "protocol/client_codec.hpp"

namespace vasana {

// Request: get's id, a list request, recall's tags and known_at.
void fill_get_request(schema::ClientRequest::Builder req, const MemoryId& id);
MemoryId read_get_request(schema::ClientRequest::Reader req);
void fill_list_request(schema::ListRequest::Builder out, const ListRequest& r);
Status read_list_request(schema::ListRequest::Reader in, ListRequest& out);
void fill_recall_query_reads(schema::RecallQuery::Builder out, const RecallQuery& q);
void read_recall_query_reads(schema::RecallQuery::Reader in, RecallQuery& out);

// Response: a memory (get), a page (list), a hit's tags and valid time, recall's corrections.
void fill_memory_view(schema::MemoryView::Builder out, const MemoryView& v);
Status read_memory_view(schema::MemoryView::Reader in, MemoryView& out);
void fill_memory_page(schema::MemoryPage::Builder out, const MemoryPage& p);
Status read_memory_page(schema::MemoryPage::Reader in, MemoryPage& out);
void fill_recall_hit_reads(schema::RecallHit::Builder out, const RecallHit& h);
void read_recall_hit_reads(schema::RecallHit::Reader in, RecallHit& out);
void fill_corrections(schema::RecallAnswer::Builder out, const std::vector<CorrectionHit>& c);
void read_corrections(schema::RecallAnswer::Reader in, std::vector<CorrectionHit>& out);

}  // namespace vasana
