#pragma once
// The __builtin_ipu_* intrinsics that have exact host equivalents; the others
// (register access, the AMP and exchange instructions) fail to compile with an
// error naming them, since the emulator cannot run them.
#include <cmath>
#include <ipudef.h>

inline int __builtin_ipu_isnan(float x) { return std::isnan(x); }
inline int __builtin_ipu_isinf(float x) { return std::isinf(x); }
inline int __builtin_ipu_isfinite(float x) { return std::isfinite(x); }
inline float __builtin_ipu_exp2(float x) { return std::exp2(x); }

namespace popdsl_codelet_detail {
template <class... A> struct AlwaysFalse {
  static const bool value = false;
};
} // namespace popdsl_codelet_detail

#define POPDSL_NO_HOST_EQUIVALENT(NAME)                                                   \
  template <class... A> inline int NAME(A...) {                                           \
    static_assert(popdsl_codelet_detail::AlwaysFalse<A...>::value,                        \
                  #NAME " has no exact host equivalent: the popdsl emulator cannot run it "  \
                        "(keep it under #ifdef __IPU__ with a C++ fallback)");          \
    return 0;                                                                             \
  }
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_put)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_get)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_uput)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_uget)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_cmplt)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_andc_f32)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_shuf8x8lo)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_tapack)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_ld64putcs)
POPDSL_NO_HOST_EQUIVALENT(__builtin_ipu_ld128putcs)
#undef POPDSL_NO_HOST_EQUIVALENT
