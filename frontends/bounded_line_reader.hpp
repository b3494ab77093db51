// Lines of a stream read in bounded pieces: a line longer than the bound is read to its end
// and dropped, never held, so a line of any length costs at most the bound plus one 64 KiB
// piece of memory. Used for the JSON-lines inputs (MCP messages, import files, recall --batch).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

class BoundedLineReader {
 public:
  enum class Got {
    line,      // a line (without its '\n'; a last line without one counts too)
    too_long,  // a line over the bound, skipped: line is empty, length() says how long it was
    end,       // the stream ended (or failed) before another line
  };

  // in must outlive the reader; max_bytes is the longest line returned whole.
  BoundedLineReader(std::istream& in, size_t max_bytes);

  Got next(std::string& line);

  // The length in bytes of the line next() returned last, over the bound too.
  size_t length() const { return length_; }
  // The number of lines returned so far (line or too_long): the line number of the last one.
  size_t number() const { return number_; }
  // After too_long: InvalidArgument "line of N bytes is over the limit of M".
  Status too_long_status() const;

 private:
  std::istream& in_;
  size_t max_;
  std::vector<char> piece_;
  size_t length_ = 0;
  size_t number_ = 0;
};

}  // namespace vasana
