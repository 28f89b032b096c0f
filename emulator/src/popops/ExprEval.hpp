#pragma once
// Evaluates a typed popops expression over engine memory, a chunk of elements at
// a time: each node computes its chunk into a small buffer (float for FLOAT and
// HALF, with HALF results rounded to half precision after every operation).
#include <functional>
#include <vector>

#include "ExprTypes.hpp"
#include "poplar/Access.hpp"

namespace popops::detail {

// Returns the runner for `root` reading `inputs` (broadcast to the output's element
// count) and writing `output`, whose type must be root's type.
std::function<void()> compileExpression(const TypedExpr &root,
                                        std::vector<poplar::detail::Access> inputs,
                                        poplar::detail::Access output);

// y[i] = e^x[i] for n floats, x and y apart: a map's EXPONENT, in the widest vector clone the
// CPU runs (within 2 ulp), for kernels of other libraries (popnn's softmax).
void expFloats(const float *x, float *y, std::size_t n);

} // namespace popops::detail
