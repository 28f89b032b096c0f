#include <poplar/TensorRearranger.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>

namespace poplar {

namespace {

using Order = std::vector<std::pair<std::size_t, std::size_t>>;

// Each run of `order` as (begin before, begin after, length): `forward` maps
// original positions to new ones, otherwise the reverse.
struct Move {
  std::size_t from, to, length;
};
std::vector<Move> movesOf(const Order &order, bool forward) {
  std::vector<Move> moves;
  std::size_t next = 0;
  for (const auto &run : order) {
    moves.push_back(forward ? Move{run.first, next, run.second} : Move{next, run.first, run.second});
    next += run.second;
  }
  std::sort(moves.begin(), moves.end(), [](const Move &a, const Move &b) { return a.to < b.to; });
  return moves;
}

std::size_t totalLength(const Order &order) {
  std::size_t n = 0;
  for (const auto &run : order) n += run.second;
  return n;
}

// The elements of t (flattened), moved: output element moves[i].to + k is input element moves[i].from + k.
Tensor apply(const std::vector<Move> &moves, std::size_t total, const Tensor &t, const char *op) {
  if (t.numElements() != total)
    throw poplar_error(std::string("TensorRearranger::") + op + ": the tensor has " +
                       std::to_string(t.numElements()) + " elements but the rearrangement is of " +
                       std::to_string(total));
  const Tensor flat = t.flatten();
  if (moves.empty()) return flat;
  std::vector<Tensor> pieces;
  for (const Move &m : moves) pieces.push_back(flat.slice(m.from, m.from + m.length));
  return concat(pieces);
}

std::vector<Interval> applyToIntervals(const std::vector<Move> &moves, std::size_t total,
                                       ArrayRef<Interval> intervals, const char *op) {
  std::vector<Interval> out;
  for (const Interval &i : intervals) {
    if (i.begin() > i.end() || i.end() > total)
      throw poplar_error(std::string("TensorRearranger::") + op + ": interval " + std::to_string(i.begin()) + ".." +
                         std::to_string(i.end()) + " is outside the " + std::to_string(total) + " elements rearranged");
    for (const Move &m : moves) {
      const std::size_t lo = std::max(i.begin(), m.from), hi = std::min(i.end(), m.from + m.length);
      if (lo < hi) out.emplace_back(m.to + (lo - m.from), m.to + (hi - m.from));
    }
  }
  std::sort(out.begin(), out.end(), [](const Interval &a, const Interval &b) { return a.begin() < b.begin(); });
  std::vector<Interval> merged;
  for (const Interval &i : out) {
    if (!merged.empty() && merged.back().end() >= i.begin())
      merged.back() = Interval(merged.back().begin(), std::max(merged.back().end(), i.end()));
    else
      merged.push_back(i);
  }
  return merged;
}

} // namespace

TensorRearranger::TensorRearranger() : valid_(false) {}
TensorRearranger::TensorRearranger(Order order) : order_(std::move(order)), valid_(true) {}

bool TensorRearranger::valid() const { return valid_; }

#define POPLAR_CHECK_VALID(op)                                                                          \
  if (!valid_) throw poplar_error("TensorRearranger::" op ": the rearranger is not valid (default-constructed)")

Tensor TensorRearranger::rearrange(const Tensor &t) const {
  POPLAR_CHECK_VALID("rearrange");
  return apply(movesOf(order_, true), totalLength(order_), t, "rearrange");
}

Tensor TensorRearranger::undoRearrangement(const Tensor &t) const {
  POPLAR_CHECK_VALID("undoRearrangement");
  return apply(movesOf(order_, false), totalLength(order_), t, "undoRearrangement");
}

std::vector<Interval> TensorRearranger::rearrange(ArrayRef<Interval> intervals) const {
  POPLAR_CHECK_VALID("rearrange");
  return applyToIntervals(movesOf(order_, true), totalLength(order_), intervals, "rearrange");
}

std::vector<Interval> TensorRearranger::undoRearrangement(ArrayRef<Interval> intervals) const {
  POPLAR_CHECK_VALID("undoRearrangement");
  return applyToIntervals(movesOf(order_, false), totalLength(order_), intervals, "undoRearrangement");
}

#undef POPLAR_CHECK_VALID

} // namespace poplar
