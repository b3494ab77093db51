// Files the HTTP server answers from the binary itself: the web console's static files (served
// at /ui/ without authentication: they hold no data; everything they show comes from /v1 with the
// signed-in client's token) and the OpenAPI document (/v1/openapi.json, authenticated like every
// /v1 route). The build writes their bytes into a generated source (cmake/embed_files.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontends/http_message.hpp"

namespace vasana {

struct EmbeddedFile {
  std::string_view path;          // the URL path it is served at, e.g. "/ui/index.html"
  std::string_view content_type;  // from the path's extension
  std::string_view bytes;
};

// Every embedded file (generated).
std::vector<EmbeddedFile> embedded_files();

// The file served at `path`, or null.
const EmbeddedFile* find_embedded_file(std::string_view path);

// The web console's answer to a GET or HEAD of a path under /ui (its file, "/ui" and "/ui/"
// giving index.html; 404 when none), with headers that keep the page to its own origin's
// scripts and styles; 404 for /favicon.ico (asked for by browsers without a token); nullopt for
// any other path.
std::optional<HttpResponse> console_file_response(const std::string& method, const std::string& path);

}  // namespace vasana
