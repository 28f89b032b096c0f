#pragma once
// The variables (and constants) of a graph: storage facts and tile mapping.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Type.hpp>

#include "DebugRecord.hpp"

namespace poplar::detail {

struct Variable {
  Type type;
  std::vector<std::size_t> shape;
  std::size_t numElements = 0;
  std::string name;
  DebugRecord debug; // the DebugContext it was made with, for libpva's report
  bool isConstant = false;
  // Constant values or initial values, in device format; empty when none were given.
  std::vector<std::uint8_t> data;
  // Tile mapping: begin element -> (end element, tile), non-overlapping.
  std::map<std::size_t, std::pair<std::size_t, unsigned>> mapping;
  // A quarter variable's format and scale: element metadataElement of variable
  // metadataVar (of type QUARTER_METADATA); kNoMetadata for other types.
  static constexpr unsigned kNoMetadata = ~0u;
  unsigned metadataVar = kNoMetadata;
  std::size_t metadataElement = 0;

  void mapRange(std::size_t begin, std::size_t end, unsigned tile);
  // Elements in [begin, end) with no tile, as ranges.
  std::vector<std::pair<std::size_t, std::size_t>> unmapped(std::size_t begin,
                                                            std::size_t end) const;
};

// A new graph's number (1, 2, ...): how errors name graphs, which have no names.
unsigned newGraphNumber();

// The variables of one graph; tensors share it, so it also says which graph they belong to.
struct VarTable {
  const unsigned graphNumber = newGraphNumber();
  std::vector<Variable> vars;
};

} // namespace poplar::detail
