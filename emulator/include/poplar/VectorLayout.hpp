#pragma once
#include <string>

namespace poplar {
namespace layout {

// How a vertex's vector field is laid out in memory, as the profiler reports it.
enum class Vector { NotAVector, Span, ShortSpan, OnePtr, ScaledPtr32, ScaledPtr64, ScaledPtr128 };
// The same for a vector-of-vectors field.
enum class VectorList { NotAVector, OnePtr, ScaledPtr32, ScaledPtr64, ScaledPtr128, DeltaN, DeltaNElements };

// The enumerator's name ("ShortSpan").
std::string to_string(const Vector v);
std::string to_string(const VectorList v);

} // namespace layout
} // namespace poplar
