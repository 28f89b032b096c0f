#pragma once
// Codelet-side `half`: IEEE binary16 storage with arithmetic in float (the host
// compiler's _Float16). poplar/Vertex.hpp includes it; the IPU's vector types are in
// ipudef.h, which neither header includes.
#ifndef __FLT16_MAX__
#error "popdsl codelets need a host compiler with _Float16 (GCC >= 12 or Clang >= 15 on x86-64 or AArch64)"
#endif

typedef _Float16 half;
