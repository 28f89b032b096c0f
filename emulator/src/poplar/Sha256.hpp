#pragma once
// SHA-256 (FIPS 180-4), for content-addressed caches.
#include <string>

namespace poplar::detail {

// The lowercase hex digest of `data`.
std::string sha256Hex(const std::string &data);

} // namespace poplar::detail
