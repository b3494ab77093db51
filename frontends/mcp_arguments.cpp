#include "frontends/mcp_arguments.hpp"

namespace vasana {

using nlohmann::json;

namespace {

std::string check_value(const std::string& name, const json& schema, const json& v);

std::string check_object(const std::string& prefix, const json& schema, const json& obj) {
  if (!obj.is_object()) return "field '" + prefix + "' must be an object";
  const json& props = schema.contains("properties") ? schema["properties"] : json::object();
  if (schema.contains("required"))
    for (const auto& r : schema["required"]) {
      const std::string key = r.get<std::string>();
      if (!obj.contains(key)) return "missing required field '" + (prefix.empty() ? key : prefix + "." + key) + "'";
    }
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (!props.contains(it.key())) return "unknown field '" + name + "'";
    if (std::string e = check_value(name, props[it.key()], it.value()); !e.empty()) return e;
  }
  return "";
}

std::string check_value(const std::string& name, const json& schema, const json& v) {
  const std::string type = schema.value("type", "");
  if (type == "string") {
    if (!v.is_string()) return "field '" + name + "' must be a string";
    if (schema.contains("enum")) {
      for (const auto& e : schema["enum"])
        if (e == v) return "";
      std::string choices;
      for (const auto& e : schema["enum"]) choices += (choices.empty() ? "" : ", ") + e.get<std::string>();
      return "field '" + name + "' is '" + v.get<std::string>() + "'; it must be one of " + choices;
    }
    return "";
  }
  if (type == "integer" || type == "number") {
    if (type == "integer" ? !v.is_number_integer() : !v.is_number())
      return "field '" + name + "' must be " + (type == "integer" ? "an integer" : "a number");
    const double x = v.get<double>();
    if (schema.contains("minimum") && x < schema["minimum"].get<double>())
      return "field '" + name + "' must be at least " + schema["minimum"].dump();
    if (schema.contains("maximum") && x > schema["maximum"].get<double>())
      return "field '" + name + "' must be at most " + schema["maximum"].dump();
    return "";
  }
  if (type == "boolean") return v.is_boolean() ? "" : "field '" + name + "' must be true or false";
  if (type == "object") return check_object(name, schema, v);
  if (type == "array") {
    if (!v.is_array()) return "field '" + name + "' must be an array";
    if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>())
      return "field '" + name + "' needs at least " + schema["minItems"].dump() + " item(s)";
    if (schema.contains("items"))
      for (size_t i = 0; i < v.size(); ++i)
        if (std::string e = check_value(name + "[" + std::to_string(i) + "]", schema["items"], v[i]); !e.empty()) return e;
    return "";
  }
  return "";
}

}  // namespace

std::string check_arguments(const json& schema, const json& args) { return check_object("", schema, args); }

}  // namespace vasana
