// CurveZMQ key pairs of a node (DESIGN.md "Replication": peer links are authenticated and
// encrypted with CurveZMQ): generation, and the two key files `vasana keygen` writes.
//
// Key file format: text, one `name = "value"` line per key, a valid subset of TOML. Lines that
// are empty or whose first non-blank character is '#' are comments. Keys are Z85 text of 40
// characters (32 bytes); Z85 has no '"', so the quotes delimit the value unambiguously (Z85
// does have '#' and '=': a comment is a whole line, never the end of a key line).
//
//   node.secret (mode 0600; anything readable or writable by group or others is refused):
//     # vasana CurveZMQ secret key. Keep it private: whoever has it can act as this node.
//     public = "<40 Z85 characters>"
//     secret = "<40 Z85 characters>"
//
//   node.public (give it to the peers; they put it in their allowlist):
//     # vasana CurveZMQ public key.
//     public = "<40 Z85 characters>"
//
// Loading checks every key (length, alphabet, decoding), refuses unknown or repeated names,
// and checks that the public key of a secret file is the one its secret key derives. A public
// file that also holds a secret key is refused (a secret is never meant to travel). Every
// error names the file and what is wrong.
//
// Thread safety: the functions are stateless and safe from any thread.
#pragma once

#include <string>

#include "protocol/status.hpp"

namespace vasana {

// Both keys as Z85 text, 40 characters each.
struct CurveKeyPair {
  std::string public_z85;
  std::string secret_z85;
};

// Length of a Z85-encoded CURVE key.
constexpr size_t kCurveKeyZ85Chars = 40;

// Ok when key is 40 characters of Z85 that decode to a 32-byte key; otherwise InvalidArgument
// saying what is wrong (length, the first character outside the alphabet and its position).
Status check_curve_key_z85(const std::string& key);

// A new random key pair (zmq_curve_keypair). FailedPrecondition when this libzmq was built
// without CURVE (zmq_has("curve") is false).
Result<CurveKeyPair> generate_curve_keys();

// The public key that secret_z85 derives (zmq_curve_public).
Result<std::string> curve_public_key_of(const std::string& secret_z85);

// Writes the secret file (mode 0600) and the public file, each atomically: a temporary file in
// the same directory, fsync, a rename that never replaces an existing file, fsync of the
// directory. Refuses with FailedPrecondition ("... already exists") when either file exists,
// and then writes nothing; the directories must exist. If the public file cannot be written,
// the secret file just written is removed again.
Status save_curve_keys(const CurveKeyPair& keys, const std::string& secret_path, const std::string& public_path);

// Reads a secret key file. Errors: NotFound (no file), FailedPrecondition (mode lets group or
// others in: the message names the mode), InvalidArgument (bad text or key, public key not
// derived from the secret key), IoError.
Result<CurveKeyPair> load_secret_key_file(const std::string& path);

// Reads a public key file; returns the key as Z85. Errors as load_secret_key_file, without
// the mode check.
Result<std::string> load_public_key_file(const std::string& path);

}  // namespace vasana
