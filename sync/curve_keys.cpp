#include "sync/curve_keys.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <initializer_list>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "store/file_io.hpp"

namespace vasana {

namespace {

constexpr const char* kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr off_t kMaxKeyFileBytes = 64 * 1024;

std::string errno_text(int err) { return std::strerror(err); }

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

Status curve_unsupported() {
  int major = 0, minor = 0, patch = 0;
  zmq_version(&major, &minor, &patch);
  return Status::FailedPrecondition("this libzmq (" + std::to_string(major) + "." + std::to_string(minor) + "." +
                                    std::to_string(patch) +
                                    ") was built without CURVE security (zmq_has(\"curve\") is false); peer links "
                                    "need a libzmq built with libsodium or its bundled TweetNaCl");
}

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

Status write_all(int fd, const std::string& data, const std::string& what) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError("cannot write " + what + ": " + errno_text(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Creates path with text and mode; never replaces an existing file. The temporary file is
// fully written and synced before it is given its name, so a reader never sees half a key.
Status write_new_file(const std::string& path, const std::string& text, mode_t mode) {
  const std::string dir = parent_dir(path);
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());  // created 0600: the secret is never readable by others, not even briefly
  if (fd < 0) return Status::IoError("cannot create a temporary file next to " + path + ": " + errno_text(errno));
  Status s = Status::Ok();
  if (::fchmod(fd, mode) != 0) s = Status::IoError("cannot set the mode of " + tmp + ": " + errno_text(errno));
  if (s.ok()) s = write_all(fd, text, tmp);
  if (s.ok() && ::fsync(fd) != 0) s = Status::IoError("cannot sync " + tmp + ": " + errno_text(errno));
  if (::close(fd) != 0 && s.ok()) s = Status::IoError("cannot close " + tmp + ": " + errno_text(errno));
  if (s.ok()) {
    // rename(2) would replace an existing file; RENAME_NOREPLACE and link(2) refuse to.
    int rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
      rc = ::link(tmp.c_str(), path.c_str());  // file systems without RENAME_NOREPLACE
      if (rc == 0) ::unlink(tmp.c_str());
    }
    if (rc != 0) {
      s = errno == EEXIST ? Status::FailedPrecondition(path + " already exists; refusing to overwrite it")
                          : Status::IoError("cannot create " + path + ": " + errno_text(errno));
    }
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync_directory(dir);
}

// Reads a key file whole. A secret file must not let group or others in.
Result<std::string> read_key_file(const std::string& path, bool secret) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such key file");
    return Status::IoError("cannot open key file " + path + ": " + errno_text(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IoError("cannot stat key file " + path + ": " + errno_text(err));
  }
  Status s = Status::Ok();
  if (!S_ISREG(st.st_mode)) {
    s = Status::InvalidArgument(path + " is not a regular file");
  } else if (secret && (st.st_mode & 077) != 0) {
    s = Status::FailedPrecondition(path + " has mode " + mode_text(st.st_mode) +
                                   ": a secret key file must not be accessible by group or others (chmod 600 " +
                                   path + ")");
  } else if (st.st_size > kMaxKeyFileBytes) {
    s = Status::InvalidArgument(path + " is " + std::to_string(st.st_size) + " bytes: too large to be a key file");
  }
  std::string text;
  while (s.ok()) {
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) s = Status::IoError("cannot read key file " + path + ": " + errno_text(errno));
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > static_cast<size_t>(kMaxKeyFileBytes))
      s = Status::InvalidArgument(path + " is too large to be a key file");
  }
  ::close(fd);
  if (!s.ok()) return s;
  return text;
}

// The `name = "value"` lines of a key file; only the names in allowed are accepted.
Result<std::map<std::string, std::string>> parse_key_text(const std::string& path, const std::string& text,
                                                          std::initializer_list<const char*> allowed) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(path + ": line " + std::to_string(line_no) + ": " + why);
    };
    auto eq = line.find('=');
    if (eq == std::string::npos) return bad("expected name = \"key\"");
    const std::string name = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    bool known = false;
    for (const char* a : allowed) known = known || name == a;
    if (!known) {
      if (name == "secret") return bad("a public key file must not hold a secret key");
      std::string names;
      for (const char* a : allowed) names += std::string(names.empty() ? "" : " and ") + a;
      return bad("unknown name '" + name + "' (a key file holds " + names + ")");
    }
    if (value.size() < 2 || value.front() != '"' || value.back() != '"' ||
        value.find('"', 1) != value.size() - 1)
      return bad("the value of " + name + " must be in double quotes");
    if (out.count(name)) return bad(name + " is given twice");
    out[name] = value.substr(1, value.size() - 2);
  }
  return out;
}

Result<std::string> take_key(const std::string& path, std::map<std::string, std::string>& entries,
                             const std::string& name) {
  auto it = entries.find(name);
  if (it == entries.end()) return Status::InvalidArgument(path + ": no " + name + " key (expected a line " + name + " = \"...\")");
  Status s = check_curve_key_z85(it->second);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + name + " key " + s.message());
  return it->second;
}

}  // namespace

Status check_curve_key_z85(const std::string& key) {
  if (key.size() != kCurveKeyZ85Chars)
    return Status::InvalidArgument("is " + std::to_string(key.size()) + " characters long; a CURVE key in Z85 has " +
                                   std::to_string(kCurveKeyZ85Chars));
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::strchr(kZ85Alphabet, key[i]) == nullptr || key[i] == '\0') {
      const unsigned char c = static_cast<unsigned char>(key[i]);
      char shown[16];
      if (c >= 0x21 && c < 0x7f) std::snprintf(shown, sizeof shown, "'%c'", c);
      else std::snprintf(shown, sizeof shown, "byte 0x%02x", c);
      return Status::InvalidArgument("has " + std::string(shown) + " at position " + std::to_string(i + 1) +
                                     ", which is not a Z85 character");
    }
  }
  uint8_t bytes[32];
  if (zmq_z85_decode(bytes, key.c_str()) == nullptr)
    return Status::InvalidArgument("is not valid Z85 (a 5-character group exceeds 32 bits)");
  return Status::Ok();
}

Result<CurveKeyPair> generate_curve_keys() {
  if (!zmq_has("curve")) return curve_unsupported();
  char pub[kCurveKeyZ85Chars + 1] = {0};
  char sec[kCurveKeyZ85Chars + 1] = {0};
  if (zmq_curve_keypair(pub, sec) != 0) {
    if (errno == ENOTSUP) return curve_unsupported();
    return Status::IoError(std::string("zmq_curve_keypair failed: ") + zmq_strerror(errno));
  }
  CurveKeyPair keys{pub, sec};
  std::memset(sec, 0, sizeof sec);
  return keys;
}

Result<std::string> curve_public_key_of(const std::string& secret_z85) {
  if (!zmq_has("curve")) return curve_unsupported();
  Status s = check_curve_key_z85(secret_z85);
  if (!s.ok()) return Status::InvalidArgument("secret key " + s.message());
  char pub[kCurveKeyZ85Chars + 1] = {0};
  if (zmq_curve_public(pub, secret_z85.c_str()) != 0)
    return Status::InvalidArgument(std::string("cannot derive the public key: ") + zmq_strerror(errno));
  return std::string(pub);
}

Status save_curve_keys(const CurveKeyPair& keys, const std::string& secret_path, const std::string& public_path) {
  Status s = check_curve_key_z85(keys.public_z85);
  if (!s.ok()) return Status::InvalidArgument("public key " + s.message());
  s = check_curve_key_z85(keys.secret_z85);
  if (!s.ok()) return Status::InvalidArgument("secret key " + s.message());
  if (secret_path == public_path) return Status::InvalidArgument("the secret and the public key file are both " + secret_path);
  for (const auto* p : {&secret_path, &public_path})
    if (exists(*p)) return Status::FailedPrecondition(*p + " already exists; refusing to overwrite it");

  const std::string secret_text =
      "# vasana CurveZMQ secret key. Keep it private (mode 0600): whoever has it can act as this node.\n"
      "public = \"" + keys.public_z85 + "\"\n"
      "secret = \"" + keys.secret_z85 + "\"\n";
  const std::string public_text =
      "# vasana CurveZMQ public key. Give it to the peers: they list it in their allowlist.\n"
      "public = \"" + keys.public_z85 + "\"\n";
  s = write_new_file(secret_path, secret_text, 0600);
  if (!s.ok()) return s;
  s = write_new_file(public_path, public_text, 0644);
  if (!s.ok()) {
    ::unlink(secret_path.c_str());  // no half-written pair
    sync_directory(parent_dir(secret_path));
    return s;
  }
  return Status::Ok();
}

Result<CurveKeyPair> load_secret_key_file(const std::string& path) {
  auto text = read_key_file(path, true);
  if (!text.ok()) return text.status();
  auto entries = parse_key_text(path, *text, {"public", "secret"});
  if (!entries.ok()) return entries.status();
  auto pub = take_key(path, *entries, "public");
  if (!pub.ok()) return pub.status();
  auto sec = take_key(path, *entries, "secret");
  if (!sec.ok()) return sec.status();
  auto derived = curve_public_key_of(*sec);
  if (!derived.ok()) {
    if (derived.status().code() != Code::invalid_argument) return derived.status();
    return Status::InvalidArgument(path + ": " + derived.status().message());
  }
  if (*derived != *pub)
    return Status::InvalidArgument(path + ": the public key is not the one the secret key derives (the two lines come from different key pairs)");
  return CurveKeyPair{std::move(pub.value()), std::move(sec.value())};
}

Result<std::string> load_public_key_file(const std::string& path) {
  auto text = read_key_file(path, false);
  if (!text.ok()) return text.status();
  auto entries = parse_key_text(path, *text, {"public"});
  if (!entries.ok()) return entries.status();
  return take_key(path, *entries, "public");
}

}  // namespace vasana
