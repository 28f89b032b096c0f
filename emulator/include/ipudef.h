#pragma once
// The IPU's native types for codelets: `half` and the short vectors, as the host
// compiler's _Float16 and vector extensions. As in the SDK, poplar/Vertex.hpp does
// not include this header: a host-side codelet compile sees the vector types only
// when it includes ipudef.h (or an IPU header that does), so codelet libraries can
// define their own under #ifndef __IPU__ (docs/codelet_headers.rst).
#ifndef __FLT16_MAX__
#error "popdsl codelets need a host compiler with _Float16 (GCC >= 12 or Clang >= 15 on x86-64 or AArch64)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef _Float16 half;
typedef half half2 __attribute__((vector_size(sizeof(half) * 2)));
typedef half half4 __attribute__((vector_size(sizeof(half) * 4)));
typedef half half8 __attribute__((vector_size(sizeof(half) * 8)));
typedef float float2 __attribute__((vector_size(sizeof(float) * 2)));
typedef float float4 __attribute__((vector_size(sizeof(float) * 4)));
typedef char char2 __attribute__((vector_size(sizeof(char) * 2)));
typedef unsigned char uchar2 __attribute__((vector_size(sizeof(unsigned char) * 2)));
typedef char char4 __attribute__((vector_size(sizeof(char) * 4)));
typedef unsigned char uchar4 __attribute__((vector_size(sizeof(unsigned char) * 4)));
typedef short short2 __attribute__((vector_size(sizeof(short) * 2)));
typedef unsigned short ushort2 __attribute__((vector_size(sizeof(unsigned short) * 2)));
typedef short short4 __attribute__((vector_size(sizeof(short) * 4)));
typedef unsigned short ushort4 __attribute__((vector_size(sizeof(unsigned short) * 4)));
typedef int int2 __attribute__((vector_size(sizeof(int) * 2)));
typedef unsigned int uint2 __attribute__((vector_size(sizeof(unsigned int) * 2)));
typedef int int4 __attribute__((vector_size(sizeof(int) * 4)));
typedef unsigned int uint4 __attribute__((vector_size(sizeof(unsigned int) * 4)));
typedef long long2 __attribute__((vector_size(sizeof(long) * 2)));
typedef long long4 __attribute__((vector_size(sizeof(long) * 4)));
typedef long long longlong2 __attribute__((vector_size(sizeof(long long) * 2)));
typedef long long longlong4 __attribute__((vector_size(sizeof(long long) * 4)));

#ifdef __cplusplus
} // extern "C"
#endif
