#pragma once
#include <vector>

#include <poplar/Tensor.hpp>

namespace poputil {

// numpy broadcasting: ranks are left-padded with 1s, then each dimension must be
// equal or 1. The tensors are rebound to broadcast views.
void expandToMatchRanks(poplar::Tensor &a, poplar::Tensor &b);
void broadcastToMatch(poplar::Tensor &a, const std::vector<std::size_t> &shape);
void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b);
void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b, poplar::Tensor &c);
bool canBroadcastToMatch(const poplar::Tensor &a, const poplar::Tensor &b);

} // namespace poputil
