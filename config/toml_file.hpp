// Reading the TOML files of the command line (node config, scoring file): a syntax error or an
// unreadable file becomes an InvalidArgument that names the file, line and column.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "protocol/status.hpp"

namespace vasana {

Result<toml::table> parse_toml(const std::string& text, const std::string& path);
// what names the file in messages: "config file", "scoring file".
Result<std::string> read_toml_text(const std::string& path, const char* what);

}  // namespace vasana
