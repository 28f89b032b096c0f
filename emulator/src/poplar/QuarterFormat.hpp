#pragma once
// Quarter (fp8) values to and from their device bytes, and the QUARTER_METADATA byte.
#include <cstdint>

#include <poplar/Quarter.hpp>

namespace poplar::detail {

// The value of a quarter code under `metadata` (0x80 is NaN).
double quarterToDouble(std::uint8_t code, const QuarterMetadata &metadata);
// `value` rounded to the nearest quarter of `metadata` (ties to the even code); NaN and
// infinities become NaN, and magnitudes past the largest become NaN when nanOnOverflow,
// else the largest of their sign.
std::uint8_t doubleToQuarter(double value, const QuarterMetadata &metadata, bool nanOnOverflow);

// The byte a QUARTER_METADATA element holds (QuarterMetadata(std::uint8_t) reads it back).
std::uint8_t metadataByte(const QuarterMetadata &metadata);

} // namespace poplar::detail
