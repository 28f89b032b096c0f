#pragma once
// 8x8 blocks of 2- or 4-byte elements transposed in registers, for the tiled copies of
// Access.cpp. One side of a block is 8 rows of 8 contiguous elements, anywhere; the other
// is 8 columns of 8 contiguous elements, colStride bytes apart. On the Zen3 machine a
// 512x1024 float transpose took 195 us this way against 980 us an element at a time (in C++, one
// thread); through pd.copy, half 272-304 us against 337-392 us.
#include <cstddef>
#include <cstdint>

namespace poplar::detail {

// Whether this CPU runs the blocks (AVX2, checked once) and elemSize is 2 or 4.
bool transposeBlocksSupported(std::size_t elemSize);

// Column m of the block (rows[0][m], ..., rows[7][m]) to cols + m * colStride.
void rowsToColumns(std::size_t elemSize, const std::uint8_t *const rows[8], std::uint8_t *cols,
                   std::ptrdiff_t colStride);

// The 8 elements at cols + m * colStride to column m of the block (rows[0][m], ..., rows[7][m]).
void columnsToRows(std::size_t elemSize, const std::uint8_t *cols, std::ptrdiff_t colStride,
                   std::uint8_t *const rows[8]);

} // namespace poplar::detail
