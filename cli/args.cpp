#include "cli/args.hpp"

namespace vasana {

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
  auto it = options.find(name);
  return it == options.end() ? std::vector<std::string>{} : it->second;
}

Result<Args> parse_args(const std::vector<std::string>& words, const std::set<std::string>& valued,
                        const std::set<std::string>& flags) {
  Args a;
  bool options_done = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (options_done || w.size() < 3 || w.rfind("--", 0) != 0) {
      if (w == "--") {
        options_done = true;
        continue;
      }
      a.positional.push_back(w);
      continue;
    }
    std::string name = w.substr(2), value;
    bool inline_value = false;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(name)) {
      if (inline_value) return Status::InvalidArgument("--" + name + " takes no value");
      a.flags.insert(name);
    } else if (valued.count(name)) {
      if (!inline_value) {
        if (i + 1 >= words.size()) return Status::InvalidArgument("--" + name + " needs a value");
        value = words[++i];
      }
      a.options[name].push_back(value);
    } else {
      return Status::InvalidArgument("unknown option --" + name);
    }
  }
  return a;
}

}  // namespace vasana
