// What an import's answers add up to: memories written, refs already held with the same content,
// lines refused because the realm holds their ref with other content (ClientError::conflict,
// the message naming the memory that holds it), and the answer that stopped the import, if any.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "protocol/client_codec.hpp"

namespace vasana {

class ImportReport {
 public:
  // Counts the answer to the memory of input line `line`. False when the import must stop (an
  // error other than a conflict, or an unexpected answer): failure() says why.
  bool take(size_t line, const ClientResponse& r);

  size_t written() const { return written_; }
  size_t existed() const { return existed_; }
  // (line, message) of each line refused as a conflict, in the order the answers came.
  const std::vector<std::pair<size_t, std::string>>& conflicts() const { return conflicts_; }
  const std::string& failure() const { return failure_; }

  // "imported N new, M already present[, K refused as conflicts], B bad line(s) skipped"
  std::string summary(size_t bad_lines) const;
  // One line per conflict (at most `max`, then "... and N more"), for stderr; sorted by line.
  std::vector<std::string> conflict_lines(size_t max) const;

 private:
  size_t written_ = 0, existed_ = 0;
  std::vector<std::pair<size_t, std::string>> conflicts_;
  std::string failure_;
};

}  // namespace vasana
