#include "frontends/bounded_line_reader.hpp"

#include <istream>

namespace vasana {

BoundedLineReader::BoundedLineReader(std::istream& in, size_t max_bytes)
    : in_(in), max_(max_bytes), piece_(size_t(64) << 10) {}

BoundedLineReader::Got BoundedLineReader::next(std::string& line) {
  line.clear();
  length_ = 0;
  bool read_any = false;
  for (;;) {
    in_.getline(piece_.data(), std::streamsize(piece_.size()));
    const size_t got = size_t(in_.gcount());
    read_any = read_any || got > 0;
    // getline stops at the '\n' (read and counted in gcount, not stored), at the end of the
    // stream (eofbit), or with a full piece and the line going on (failbit alone).
    const bool at_newline = !in_.eof() && !in_.fail();
    const size_t chars = at_newline ? got - 1 : got;
    length_ += chars;
    if (length_ <= max_) {
      line.append(piece_.data(), chars);
    } else if (!line.empty()) {
      std::string().swap(line);  // over the bound: give back what was held
    }
    if (at_newline) break;
    if (in_.eof() || in_.bad()) {
      if (!read_any) return Got::end;
      break;
    }
    in_.clear();  // a full piece: the line continues
  }
  ++number_;
  return length_ > max_ ? Got::too_long : Got::line;
}

Status BoundedLineReader::too_long_status() const {
  return Status::InvalidArgument("line of " + std::to_string(length_) + " bytes is over the limit of " +
                                 std::to_string(max_));
}

}  // namespace vasana
