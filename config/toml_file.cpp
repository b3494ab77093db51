#include "config/toml_file.hpp"

#include <sstream>

#include "store/file_io.hpp"

namespace vasana {

Result<toml::table> parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    std::ostringstream o;
    o << path << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
    return Status::InvalidArgument(o.str());
  }
}

Result<std::string> read_toml_text(const std::string& path, const char* what) {
  auto text = read_whole_file(path);
  if (!text.ok()) return Status::InvalidArgument(std::string("cannot read ") + what + " " + path + ": " + text.status().message());
  return text;
}

}  // namespace vasana
