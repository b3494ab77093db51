// Checks a tools/call's arguments against the tool's input schema (the JSON Schema subset the
// tools of frontends/mcp_tools.cpp use: an object with "properties" and "required"; property types
// string, integer, number, boolean, array of strings, array of objects with their own
// properties; enum, minimum, maximum, minItems). Unknown properties are refused, so a misspelt
// field is reported instead of ignored.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vasana {

// "" when args fit schema; otherwise what is wrong, naming the field ("missing required field
// 'realm'", "field 'limit' must be an integer", "unknown field 'realmz'").
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& args);

}  // namespace vasana
