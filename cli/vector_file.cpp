#include "cli/vector_file.hpp"

#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "frontends/bounded_json.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

Result<std::vector<float>> read_vector_file(const std::string& path) {
  const std::string name = path == "-" ? "standard input" : path;
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::InvalidArgument("--vector: cannot read " + name);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto parsed = parse_bounded_json(text);
  const std::string form = "--vector: " + name + " must hold one JSON array of numbers ([0.12, -0.5, ...])";
  if (!parsed.ok()) return Status::InvalidArgument(form + "; it is " + parsed.status().message());
  const nlohmann::json& j = *parsed;
  if (!j.is_array()) return Status::InvalidArgument(form);
  if (j.empty()) return Status::InvalidArgument("--vector: the array in " + name + " is empty");
  if (j.size() > kMaxVectorDim)
    return Status::InvalidArgument("--vector: " + name + " holds " + std::to_string(j.size()) +
                                   " numbers; the limit is " + std::to_string(kMaxVectorDim));
  std::vector<float> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number()) return Status::InvalidArgument(form + "; item " + std::to_string(i) + " is not a number");
    const float f = j[i].get<float>();
    if (!std::isfinite(f))
      return Status::InvalidArgument("--vector: item " + std::to_string(i) + " of " + name + " is not a finite float");
    out.push_back(f);
  }
  return out;
}

size_t vector_space_dim(const std::string& space_id) {
  const size_t last = space_id.rfind('/');
  if (last == std::string::npos || last == 0) return 0;
  const size_t mid = space_id.rfind('/', last - 1);
  if (mid == std::string::npos) return 0;
  const std::string dim = space_id.substr(mid + 1, last - mid - 1);
  if (dim.empty() || dim.size() > 9 || dim.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoul(dim);
}

}  // namespace vasana
