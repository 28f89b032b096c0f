/* The machine's float multiply-add peak, for benchmarks/fma_peak.py: independent chains
   of vector multiply-adds, enough of them to hide the instruction's latency, and nothing
   else (no memory traffic). Compiled with -march=native, so the vectors are as wide as
   the CPU's widest registers (GCC splits the 64-byte vectors into narrower ones where
   there are none that wide). */
typedef float Vector __attribute__((vector_size(64)));
enum { kChains = 12, kLanes = sizeof(Vector) / sizeof(float) };

/* Runs `rounds` rounds of kChains multiply-adds of 16 lanes each; returns a value
   that depends on every chain, so the compiler keeps them all. */
float multiply_adds(long rounds) {
  Vector chains[kChains];
  for (int c = 0; c < kChains; ++c)
    for (int lane = 0; lane < kLanes; ++lane) chains[c][lane] = (float)(c + lane);
  const Vector zero = {0}, x = zero + 0.999999f, y = zero + 1e-7f;
  for (long r = 0; r < rounds; ++r)
    for (int c = 0; c < kChains; ++c) chains[c] = chains[c] * x + y;
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int lane = 0; lane < kLanes; ++lane) sum += chains[c][lane];
  return sum;
}

long multiply_adds_per_round(void) { return (long)kChains * kLanes; }
