// SHA-256 digests as lowercase hexadecimal, of bytes in memory and of a file's bytes: what a run's
// source records (the file a client read) and what a validation's request digest is made of.

#ifndef WASSERWARP_SHA256_H_
#define WASSERWARP_SHA256_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace wasserwarp {

// SHA-256 of `bytes` as 64 lowercase hexadecimal digits.
std::string Sha256Hex(std::string_view bytes);

// SHA-256 of the file's bytes, read in pieces so that a large run file is never held whole;
// errors (from errno) name the path.
absl::StatusOr<std::string> FileSha256(const std::string& path);

// Whether `text` is 64 lowercase hexadecimal digits, as Sha256Hex writes them.
bool IsSha256Hex(std::string_view text);

}  // namespace wasserwarp

#endif  // WASSERWARP_SHA256_H_
