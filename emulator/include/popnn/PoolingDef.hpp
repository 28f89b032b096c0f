#pragma once

namespace popnn {

// MAX and SUM pool the elements of each window; AVG divides the sum by the number
// of input elements in the window (padding does not count).
enum class PoolingType { MAX, AVG, SUM };

} // namespace popnn
