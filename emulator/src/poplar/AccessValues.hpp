#pragma once
// Whole-operand value access for kernels that are not on a hot path (losses, random
// generation): every element of an Access as a double, in the tensor's flat order; and
// row by row, for kernels that work on rows over the thread pool (sorts, arg-max, top-k).
#include <cstdint>
#include <functional>
#include <vector>

#include "Access.hpp"

namespace poplar::detail {

// Reads every element (integers up to 2^53 exactly, half widened).
void readValues(const Access &access, std::vector<double> &values);
// Stores every element with C++ conversion rules (integers truncate, half rounds).
void writeValues(const Access &access, const std::vector<double> &values);

// An operand's elements as rows of `length` doubles: gathered once a run (read in place
// when the operand is dense) into a buffer kept from run to run, each row widened as a
// thread reads it.
class ValueRows {
public:
  ValueRows(const Access &access, std::size_t length);
  std::size_t rows() const { return rows_; }
  // Calls fn(row, values) for every row, on the thread pool (blocks of rows the same
  // whatever the thread count), values pointing to the row's `length` doubles.
  void forEachRow(const std::function<void(std::size_t row, const double *values)> &fn);

private:
  Access access_;
  std::size_t length_, rows_;
  std::vector<std::uint8_t> gathered_;
};

} // namespace poplar::detail
