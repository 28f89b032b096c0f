#include <poputil/Broadcast.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

namespace {
std::string shapeText(const std::vector<std::size_t> &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

poplar::Tensor withRank(const poplar::Tensor &t, std::size_t rank) {
  const std::vector<std::size_t> leading(rank - t.rank(), 0);
  return t.expand(leading);
}

std::vector<std::size_t> broadcastShape(const std::vector<std::vector<std::size_t>> &shapes) {
  std::size_t rank = 0;
  for (const auto &s : shapes) rank = std::max(rank, s.size());
  std::vector<std::size_t> out(rank, 1);
  for (const auto &s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::size_t &d = out[rank - s.size() + i];
      if (d == 1) d = s[i];
      else if (s[i] != 1 && s[i] != d) {
        std::string all;
        for (const auto &x : shapes) all += (all.empty() ? "" : " and ") + shapeText(x);
        throw poplibs_error("Cannot broadcast shapes " + all + " to a common shape");
      }
    }
  return out;
}
} // namespace

void expandToMatchRanks(poplar::Tensor &a, poplar::Tensor &b) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  a = withRank(a, rank);
  b = withRank(b, rank);
}

void broadcastToMatch(poplar::Tensor &a, const std::vector<std::size_t> &shape) {
  if (a.rank() > shape.size() || broadcastShape({a.shape(), shape}) != shape)
    throw poplibs_error("Cannot broadcast tensor of shape " + shapeText(a.shape()) +
                        " to shape " + shapeText(shape));
  poplar::Tensor t = withRank(a, shape.size());
  for (unsigned d = 0; d < shape.size(); ++d)
    if (t.dim(d) != shape[d]) t = t.broadcast(static_cast<unsigned>(shape[d]), d);
  a = t;
}

void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b) {
  const auto shape = broadcastShape({a.shape(), b.shape()});
  broadcastToMatch(a, shape);
  broadcastToMatch(b, shape);
}

void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b, poplar::Tensor &c) {
  const auto shape = broadcastShape({a.shape(), b.shape(), c.shape()});
  broadcastToMatch(a, shape);
  broadcastToMatch(b, shape);
  broadcastToMatch(c, shape);
}

bool canBroadcastToMatch(const poplar::Tensor &a, const poplar::Tensor &b) {
  try {
    broadcastShape({a.shape(), b.shape()});
    return true;
  } catch (const poplibs_error &) {
    return false;
  }
}

} // namespace poputil
