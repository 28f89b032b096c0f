#pragma once
// Codelet-side scalar and vector types: `half` and the short vectors of the IPU
// (float2, half4, ...), as the host compiler's _Float16 and vector extensions.
#ifndef __FLT16_MAX__
#error "popdsl codelets need a host compiler with _Float16 (GCC >= 12 or Clang >= 15 on x86-64 or AArch64)"
#endif

typedef _Float16 half;

typedef float float2 __attribute__((vector_size(8)));
typedef float float4 __attribute__((vector_size(16)));
typedef half half2 __attribute__((vector_size(4)));
typedef half half4 __attribute__((vector_size(8)));
typedef half half8 __attribute__((vector_size(16)));
typedef int int2 __attribute__((vector_size(8)));
typedef int int4 __attribute__((vector_size(16)));
typedef unsigned int uint2 __attribute__((vector_size(8)));
typedef unsigned int uint4 __attribute__((vector_size(16)));
typedef short short2 __attribute__((vector_size(4)));
typedef short short4 __attribute__((vector_size(8)));
typedef unsigned short ushort2 __attribute__((vector_size(4)));
typedef unsigned short ushort4 __attribute__((vector_size(8)));
typedef signed char char2 __attribute__((vector_size(2)));
typedef signed char char4 __attribute__((vector_size(4)));
typedef unsigned char uchar2 __attribute__((vector_size(2)));
typedef unsigned char uchar4 __attribute__((vector_size(4)));
