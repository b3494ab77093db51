// The checks of a list request (protocol/client_reads.hpp), on the client and again on the node.
#include <algorithm>

#include "protocol/client_reads.hpp"

namespace vasana {

Status tag_filter_status(const std::vector<std::string>& tags) {
  if (tags.size() > kMaxTags)
    return Status::InvalidArgument("too many tags: " + std::to_string(tags.size()) + "; the limit is " +
                                   std::to_string(kMaxTags));
  for (const auto& t : tags) {
    Status s = check_text("tag", t, kMaxTagBytes, true);
    if (!s.ok()) return s;
    if (std::any_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      return Status::InvalidArgument("tag contains control characters");
  }
  return Status::Ok();
}

Status validate_list(const ListRequest& r) {
  Status s = check_realm(r.realm);
  if (!s.ok()) return s;
  s = tag_filter_status(r.tags);
  if (!s.ok()) return s;
  if (r.limit < 1 || r.limit > kMaxListLimit)
    return Status::InvalidArgument("limit must be from 1 to " + std::to_string(kMaxListLimit) + " (got " +
                                   std::to_string(r.limit) + ")");
  if (r.kinds.size() > memory_kinds().size() * 4 || r.statuses.size() > memory_statuses().size() * 4)
    return Status::InvalidArgument("a list names more kinds or statuses than there are");
  return Status::Ok();
}

}  // namespace vasana
