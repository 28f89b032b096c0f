#pragma once
// popdsl emulator: the IPU compiler builtins that codelets written for hardware call
// without including anything (the tile's cycle counter and random number generator), as
// host functions. Not an SDK header: the codelet compiler includes it before every codelet
// source, so such codelets (Monte-Carlo kernels, self-timing vertices) compile and run on
// the emulator. The counter counts host nanoseconds, not IPU cycles; the random bits are
// uniform, from a per-thread xorshift generator, so they are not the hardware's sequence
// and not reproducible from run to run.
//
// It also brings <cstring>: popc compiles with LLVM's libc++, whose <algorithm> includes it,
// so codelets written for popc call std::memcpy having included only <algorithm> (the NMS
// codelets of graphcore/examples do); GCC's libstdc++ does not bring it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace popdsl_codelet {

inline std::uint64_t hostCount() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// xorshift64*: each thread's state starts from a distinct odd constant.
inline std::uint64_t randomBits() {
  static std::atomic<std::uint64_t> streams(0);
  thread_local std::uint64_t state = 0x9E3779B97F4A7C15ull * (2 * streams.fetch_add(1) + 1);
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1Dull;
}

} // namespace popdsl_codelet

inline unsigned __builtin_ipu_get_scount_l() { return static_cast<unsigned>(::popdsl_codelet::hostCount()); }
inline unsigned __builtin_ipu_get_scount_u() { return static_cast<unsigned>(::popdsl_codelet::hostCount() >> 32); }
inline unsigned __builtin_ipu_urand32() { return static_cast<unsigned>(::popdsl_codelet::randomBits() >> 32); }
inline unsigned long long __builtin_ipu_urand64() { return ::popdsl_codelet::randomBits(); }
