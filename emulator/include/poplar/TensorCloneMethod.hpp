#pragma once
namespace poplar {
enum class TensorCloneMethod {
  PRESERVE_ORDER_AND_ALIASES,
  CREATE_NEW_ORDER,
  PRESERVE_ORDER_UNLESS_ALIASES,
  GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES,
};
enum class TensorCloneDuplicationMethod {
  DUPLICATE_BY_OUTER_DIMENSION,
  DUPLICATE_BY_TILE_CONTIGUOUS_REGION,
};
} // namespace poplar
