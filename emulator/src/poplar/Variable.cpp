#include "Variable.hpp"

namespace poplar::detail {

void Variable::mapRange(std::size_t begin, std::size_t end, unsigned tile) {
  if (begin >= end) return;
  // Past everything mapped so far, the usual order when mapping a new variable: append.
  if (mapping.empty() || mapping.rbegin()->second.first <= begin) {
    if (!mapping.empty() && mapping.rbegin()->second == std::make_pair(begin, tile))
      mapping.rbegin()->second.first = end; // joins the last range
    else
      mapping.emplace_hint(mapping.end(), begin, std::make_pair(end, tile));
    return;
  }
  // Cut any existing range that straddles begin or end, then replace the middle.
  auto split = [&](std::size_t at) {
    auto it = mapping.upper_bound(at);
    if (it == mapping.begin()) return;
    --it;
    const std::size_t b = it->first, e = it->second.first;
    const unsigned t = it->second.second;
    if (b < at && at < e) {
      it->second.first = at;
      mapping[at] = {e, t};
    }
  };
  split(begin);
  split(end);
  mapping.erase(mapping.lower_bound(begin), mapping.lower_bound(end));
  // Join with neighbours on the same tile so mappings stay compact.
  auto it = mapping.emplace(begin, std::make_pair(end, tile)).first;
  if (it != mapping.begin()) {
    auto prev = std::prev(it);
    if (prev->second.first == begin && prev->second.second == tile) {
      prev->second.first = end;
      mapping.erase(it);
      it = prev;
    }
  }
  auto next = std::next(it);
  if (next != mapping.end() && next->first == it->second.first && next->second.second == tile) {
    it->second.first = next->second.first;
    mapping.erase(next);
  }
}

std::vector<std::pair<std::size_t, std::size_t>> Variable::unmapped(std::size_t begin,
                                                                    std::size_t end) const {
  std::vector<std::pair<std::size_t, std::size_t>> gaps;
  std::size_t pos = begin;
  auto it = mapping.upper_bound(begin);
  if (it != mapping.begin()) --it;
  for (; it != mapping.end() && pos < end; ++it) {
    if (it->second.first <= pos) continue;
    if (it->first > pos) gaps.emplace_back(pos, std::min(it->first, end));
    pos = std::max(pos, it->second.first);
  }
  if (pos < end) gaps.emplace_back(pos, end);
  return gaps;
}

} // namespace poplar::detail
