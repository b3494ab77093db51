#include "frontends/embedded_files.hpp"

#include <algorithm>

namespace vasana {

const EmbeddedFile* find_embedded_file(std::string_view path) {
  static const std::vector<EmbeddedFile> files = embedded_files();
  auto it = std::find_if(files.begin(), files.end(), [&](const EmbeddedFile& f) { return f.path == path; });
  return it == files.end() ? nullptr : &*it;
}

std::optional<HttpResponse> console_file_response(const std::string& method, const std::string& path) {
  // A browser asks every host for its icon by itself, without the page's token: answered here, so
  // that it never counts as a failed login.
  if (path == "/favicon.ico") return json_error(404, "not_found", "no icon here; the console is at /ui/");
  if (path != "/ui" && path.rfind("/ui/", 0) != 0) return std::nullopt;
  if (method != "GET" && method != "HEAD") {
    HttpResponse res = json_error(405, "method_not_allowed", "the console's files are read with GET");
    res.set_header("Allow", "GET, HEAD");
    return res;
  }
  const std::string wanted = path == "/ui" || path == "/ui/" ? "/ui/index.html" : path;
  const EmbeddedFile* file = find_embedded_file(wanted);
  if (!file) return json_error(404, "not_found", "no console file at " + path);
  HttpResponse res;
  res.set_content(std::string(file->bytes), std::string(file->content_type));
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-cache");
  return res;
}

}  // namespace vasana
