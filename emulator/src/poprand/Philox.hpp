#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as
// 1, 2, 3", SC 2011): a counter-based generator, so every output word is a pure
// function of (key, counter) and any element can be generated independently, in any
// order, on any thread.
#include <array>
#include <cstdint>

namespace poprand::detail {

using PhiloxBlock = std::array<std::uint32_t, 4>;

inline PhiloxBlock philox4x32(std::uint32_t key0, std::uint32_t key1, PhiloxBlock counter) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u; // key schedule increments
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t(kMultiplier0) * counter[0];
    const std::uint64_t p1 = std::uint64_t(kMultiplier1) * counter[2];
    counter = {std::uint32_t(p1 >> 32) ^ counter[1] ^ key0, std::uint32_t(p1),
               std::uint32_t(p0 >> 32) ^ counter[3] ^ key1, std::uint32_t(p0)};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

} // namespace poprand::detail
