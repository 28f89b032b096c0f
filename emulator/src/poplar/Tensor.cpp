#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <set>
#include <sstream>

#include "TensorImpl.hpp"
#include "TypeInfo.hpp"

namespace poplar {
namespace detail {

namespace {

std::size_t product(const Dims &d, std::size_t begin = 0, std::size_t end = ~std::size_t(0)) {
  const auto first = d.begin() + static_cast<std::ptrdiff_t>(std::min(begin, d.size()));
  const auto last = d.begin() + static_cast<std::ptrdiff_t>(std::min(end, d.size()));
  return first < last ? std::accumulate(first, last, std::size_t(1), std::multiplies<>()) : 1;
}

Strides rowMajorStrides(const Dims &dims) {
  Strides s(dims.size());
  std::int64_t acc = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    s[i] = acc;
    acc *= static_cast<std::int64_t>(dims[i]);
  }
  return s;
}

// Appends runs, merging each into the previous one when the elements continue it.
class RunBuilder {
public:
  void add(const Run &r) {
    if (r.count == 0) return;
    if (!runs_.empty()) {
      Run &last = runs_.back();
      if (last.var == r.var) {
        const std::int64_t gap = r.start - (last.start + static_cast<std::int64_t>(last.count - 1) * last.stride);
        // A one-element run takes its stride from the gap to the next element.
        const std::int64_t stride = last.count > 1 ? last.stride : gap;
        if (gap == stride && (r.count == 1 || r.stride == stride)) {
          last.stride = stride;
          last.count += r.count;
          return;
        }
      }
    }
    Run copy = r;
    if (copy.count == 1) copy.stride = 1;
    runs_.push_back(copy);
  }
  std::vector<Run> take() { return std::move(runs_); }

private:
  std::vector<Run> runs_;
};

// Dims of size 1 dropped and dims that step contiguously into each other merged.
void collapse(const Block &b, Dims &dims, Strides &strides) {
  dims.clear();
  strides.clear();
  for (std::size_t i = 0; i < b.dims.size(); ++i) {
    if (b.dims[i] == 1) continue;
    if (!dims.empty() && strides.back() == b.strides[i] * static_cast<std::int64_t>(b.dims[i])) {
      dims.back() *= b.dims[i];
      strides.back() = b.strides[i];
    } else {
      dims.push_back(b.dims[i]);
      strides.push_back(b.strides[i]);
    }
  }
}

void forEachBlockRun(const Block &b, const std::function<void(const Run &)> &fn) {
  if (b.numElements() == 0) return;
  Dims dims;
  Strides strides;
  collapse(b, dims, strides);
  if (dims.empty()) {
    fn(Run{b.var, b.offset, 1, 1});
    return;
  }
  const std::size_t inner = dims.back();
  const std::int64_t innerStride = strides.back();
  const std::size_t outerRank = dims.size() - 1;
  std::vector<std::size_t> idx(outerRank, 0);
  std::int64_t offset = b.offset;
  for (;;) {
    fn(Run{b.var, offset, inner, innerStride});
    std::size_t d = outerRank;
    while (d > 0) {
      --d;
      if (++idx[d] < dims[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * static_cast<std::int64_t>(dims[d] - 1);
      idx[d] = 0;
      if (d == 0) return;
    }
    if (outerRank == 0) return;
  }
}

// numpy's no-copy reshape: strides for `newDims` over the same flat order, if any.
bool reshapeBlock(const Block &in, const Dims &newDims, Block &out) {
  out.var = in.var;
  out.offset = in.offset;
  out.dims = newDims;
  out.strides.assign(newDims.size(), 0);
  if (product(newDims) == 0) return true;
  Dims od;
  Strides os;
  for (std::size_t i = 0; i < in.dims.size(); ++i)
    if (in.dims[i] != 1) { od.push_back(in.dims[i]); os.push_back(in.strides[i]); }
  std::vector<std::size_t> newIdx; // positions of new dims that are not 1
  for (std::size_t i = 0; i < newDims.size(); ++i)
    if (newDims[i] != 1) newIdx.push_back(i);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newIdx.size() && oi < od.size()) {
    std::size_t np = newDims[newIdx[ni]], op = od[oi];
    while (np != op) {
      if (np < op) np *= newDims[newIdx[nj++]];
      else op *= od[oj++];
    }
    for (std::size_t k = oi; k + 1 < oj; ++k)
      if (os[k] != os[k + 1] * static_cast<std::int64_t>(od[k + 1])) return false;
    out.strides[newIdx[nj - 1]] = os[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k)
      out.strides[newIdx[k - 1]] = out.strides[newIdx[k]] * static_cast<std::int64_t>(newDims[newIdx[k]]);
    ni = nj++;
    oi = oj++;
  }
  return true;
}

// Maps a block over flat positions of `in` to runs of in's variables.
std::vector<Block> compose(const Block &positions, const TensorImpl &in) {
  const std::vector<Run> inRuns = in.runs();
  std::vector<std::size_t> firstPos(inRuns.size() + 1, 0);
  for (std::size_t i = 0; i < inRuns.size(); ++i) firstPos[i + 1] = firstPos[i] + inRuns[i].count;
  auto runAt = [&](std::size_t pos) {
    return static_cast<std::size_t>(std::upper_bound(firstPos.begin(), firstPos.end(), pos) - firstPos.begin()) - 1;
  };
  RunBuilder out;
  forEachBlockRun(positions, [&](const Run &p) {
    if (p.stride == 1 || p.count == 1) {
      std::size_t pos = static_cast<std::size_t>(p.start), left = p.count;
      std::size_t r = runAt(pos);
      while (left) {
        const Run &src = inRuns[r];
        const std::size_t within = pos - firstPos[r];
        const std::size_t take = std::min(left, src.count - within);
        out.add(Run{src.var, src.start + static_cast<std::int64_t>(within) * src.stride, take, src.stride});
        pos += take;
        left -= take;
        ++r;
      }
      return;
    }
    // Element by element. Consecutive elements often lie a fixed number of runs apart (a
    // transpose of rows cut into pieces: concatenating four [512,256] panels along their
    // columns took 13.4 ms searching for every element's run, 2.8 ms so), so the run that
    // distance on is tried before the search.
    std::size_t r = 0, step = 0;
    for (std::size_t k = 0; k < p.count; ++k) {
      const std::size_t pos = static_cast<std::size_t>(p.start + static_cast<std::int64_t>(k) * p.stride);
      const std::size_t guess = r + step; // modulo 2^64: a step back wraps round
      const std::size_t next = k > 0 && guess < inRuns.size() && firstPos[guess] <= pos && pos < firstPos[guess + 1]
                                   ? guess : runAt(pos);
      step = next - r;
      r = next;
      const Run &src = inRuns[r];
      out.add(Run{src.var, src.start + static_cast<std::int64_t>(pos - firstPos[r]) * src.stride, 1, 1});
    }
  });
  std::vector<Block> blocks;
  for (const Run &r : out.take())
    blocks.push_back(Block{r.var, r.start, Dims{r.count}, Strides{r.stride}});
  return blocks;
}

// Makes the layout aligned (one block shaped like the tensor) when that is possible.
void normalize(TensorImpl &t) {
  if (t.blocks.size() == 1 && t.blocks[0].dims != t.shape) {
    Block reshaped;
    if (reshapeBlock(t.blocks[0], t.shape, reshaped)) t.blocks[0] = std::move(reshaped);
  }
}

// A view operation on an aligned layout: it edits the shape and the block.
using ViewOp = std::function<void(Dims &shape, Block &block)>;

std::shared_ptr<const TensorImpl> applyView(const TensorImpl &in, const ViewOp &op) {
  auto out = std::make_shared<TensorImpl>();
  out->type = in.type;
  out->vars = in.vars;
  out->shape = in.shape;
  if (in.aligned()) {
    Block b = in.blocks[0];
    op(out->shape, b);
    out->blocks = {std::move(b)};
  } else {
    Block positions{0, 0, in.shape, rowMajorStrides(in.shape)};
    op(out->shape, positions);
    out->blocks = compose(positions, in);
  }
  normalize(*out);
  return out;
}

// (var, begin, end) element intervals covering a tensor, sorted.
struct ElementInterval {
  unsigned var;
  std::int64_t begin, end;
  bool operator<(const ElementInterval &o) const {
    return std::tie(var, begin, end) < std::tie(o.var, o.begin, o.end);
  }
};

std::vector<ElementInterval> elementIntervals(const TensorImpl &t) {
  std::vector<ElementInterval> out;
  t.forEachRun([&](const Run &r) {
    if (r.count == 1 || r.stride == 1) {
      out.push_back({r.var, r.start, r.start + static_cast<std::int64_t>(r.count)});
    } else if (r.stride == -1) {
      out.push_back({r.var, r.start - static_cast<std::int64_t>(r.count) + 1, r.start + 1});
    } else {
      for (std::size_t k = 0; k < r.count; ++k) {
        const std::int64_t e = r.start + static_cast<std::int64_t>(k) * r.stride;
        out.push_back({r.var, e, e + 1});
      }
    }
  });
  std::sort(out.begin(), out.end());
  return out;
}

bool sortedIntervalsOverlap(const std::vector<ElementInterval> &v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].var == v[i - 1].var && v[i].begin < v[i - 1].end) return true;
  return false;
}

// The elements [begin, end) of its variable that a non-empty block lies within.
ElementInterval blockSpan(const Block &b) {
  ElementInterval span{b.var, b.offset, b.offset + 1};
  for (std::size_t k = 0; k < b.dims.size(); ++k) {
    const std::int64_t reach = b.strides[k] * static_cast<std::int64_t>(b.dims[k] - 1);
    (reach < 0 ? span.begin : span.end) += reach;
  }
  return span;
}

// True when the block's strides, smallest first, each step past everything the smaller
// ones reach: then it holds each element once, as every transpose, slice, subsample and
// reverse of a variable does. False proves nothing.
bool blockSurelyDistinct(const Block &b) {
  std::vector<std::pair<std::uint64_t, std::size_t>> axes; // (|stride|, size) of axes with size > 1
  for (std::size_t k = 0; k < b.dims.size(); ++k)
    if (b.dims[k] > 1) axes.emplace_back(static_cast<std::uint64_t>(std::abs(b.strides[k])), b.dims[k]);
  std::sort(axes.begin(), axes.end());
  std::uint64_t reach = 0;
  for (const auto &[stride, size] : axes) {
    if (stride <= reach) return false;
    reach += stride * (size - 1);
  }
  return true;
}

// Whether an interval of list a overlaps one of list b, both sorted.
bool intervalsMeet(const std::vector<ElementInterval> &a, const std::vector<ElementInterval> &b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].var == b[j].var && a[i].begin < b[j].end && b[j].begin < a[i].end) return true;
    if (std::tie(a[i].var, a[i].end) < std::tie(b[j].var, b[j].end)) ++i;
    else ++j;
  }
  return false;
}

// The union of a tensor's block spans as sorted, disjoint intervals: elements outside
// it are surely not in the tensor.
std::vector<ElementInterval> spanUnion(const TensorImpl &t) {
  std::vector<ElementInterval> spans;
  for (const Block &block : t.blocks)
    if (block.numElements()) spans.push_back(blockSpan(block));
  std::sort(spans.begin(), spans.end());
  std::vector<ElementInterval> merged;
  for (const ElementInterval &span : spans) {
    if (!merged.empty() && merged.back().var == span.var && span.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, span.end);
    else
      merged.push_back(span);
  }
  return merged;
}

// Whether any element appears twice; per block when blocks are surely distinct and
// their spans apart (large transposed views would otherwise list every element).
bool containsAliases(const TensorImpl &t) {
  std::vector<ElementInterval> spans;
  for (const Block &b : t.blocks) {
    if (b.numElements() == 0) continue;
    if (!blockSurelyDistinct(b)) return sortedIntervalsOverlap(elementIntervals(t));
    spans.push_back(blockSpan(b));
  }
  std::sort(spans.begin(), spans.end());
  return sortedIntervalsOverlap(spans) && sortedIntervalsOverlap(elementIntervals(t));
}

} // namespace

std::size_t Block::numElements() const { return product(dims); }

std::size_t TensorImpl::numElements() const { return product(shape); }

void TensorImpl::forEachRun(const std::function<void(const Run &)> &fn) const {
  RunBuilder builder;
  for (const Block &b : blocks) forEachBlockRun(b, [&](const Run &r) { builder.add(r); });
  for (const Run &r : builder.take()) fn(r);
}

std::vector<Run> TensorImpl::runs() const {
  std::vector<Run> out;
  forEachRun([&](const Run &r) { out.push_back(r); });
  return out;
}

std::string shapeString(const Dims &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::size_t checkedNumElements(const Dims &shape, const Type &type, const std::function<std::string()> &what) {
  if (std::find(shape.begin(), shape.end(), std::size_t(0)) != shape.end()) return 0;
  const std::size_t limit = static_cast<std::size_t>(PTRDIFF_MAX) / std::max(typeSize(type), 1u);
  std::size_t n = 1;
  for (std::size_t d : shape)
    if (__builtin_mul_overflow(n, d, &n) || n > limit)
      throw tensor_creation_error(what() + ": shape " + shapeString(shape) + " of " + type.toString().str() +
                                  " has too many elements (more than " + std::to_string(limit) + ")");
  return n;
}

std::string TensorImpl::describe() const {
  std::set<unsigned> seen;
  std::string names;
  for (const Block &b : blocks) {
    if (!seen.insert(b.var).second) continue;
    if (seen.size() > 3) { names += ", ..."; break; }
    names += (names.empty() ? "" : ", ") + vars->vars[b.var].name;
  }
  if (names.empty()) names = "<empty>";
  return "'" + names + "' " + shapeString(shape) + " " + type.toString().str();
}

std::shared_ptr<const TensorImpl> makeVariableView(std::shared_ptr<VarTable> vars, unsigned var,
                                                   Type type, const Dims &shape) {
  auto t = std::make_shared<TensorImpl>();
  t->type = type;
  t->shape = shape;
  t->blocks = {Block{var, 0, shape, rowMajorStrides(shape)}};
  t->vars = std::move(vars);
  return t;
}

} // namespace detail

using detail::Block;
using detail::Dims;
using detail::TensorImpl;

namespace {

const TensorImpl &checkedImpl(const std::shared_ptr<const TensorImpl> &impl) {
  if (!impl) throw poplar_error("Tensor is not valid: it was default-constructed and refers to no variable");
  return *impl;
}

void checkDim(const TensorImpl &t, unsigned dim, const char *op) {
  if (dim >= t.shape.size())
    throw poplar_error(std::string("Tensor::") + op + ": dimension " + std::to_string(dim) +
                       " is out of range for tensor " + t.describe() + " of rank " +
                       std::to_string(t.shape.size()));
}

} // namespace

namespace detail {
const TensorImpl &tensorImpl(const Tensor &t) { return checkedImpl(Internals::tensorImpl(t)); }
} // namespace detail

Tensor::Tensor() = default;
Tensor::Tensor(std::shared_ptr<const TensorImpl> impl) : impl_(std::move(impl)) {}

bool Tensor::valid() const { return impl_ != nullptr; }
Type Tensor::elementType() const { return detail::tensorImpl(*this).type; }

bool Tensor::hasMetadata() const {
  const detail::TensorImpl &impl = detail::tensorImpl(*this);
  return impl.type.requiresMetadata() && !impl.blocks.empty() &&
         impl.vars->vars[impl.blocks[0].var].metadataVar != detail::Variable::kNoMetadata;
}

Tensor Tensor::getMetadata() const {
  if (!hasMetadata())
    throw tensor_metadata_error("getMetadata: tensor " + detail::tensorImpl(*this).describe() + " has no metadata");
  const detail::TensorImpl &impl = detail::tensorImpl(*this);
  const detail::Variable &var = impl.vars->vars[impl.blocks[0].var];
  const detail::Variable &metadata = impl.vars->vars[var.metadataVar];
  return detail::makeTensor(detail::makeVariableView(impl.vars, var.metadataVar, QUARTER_METADATA, metadata.shape))
      .flatten()
      .slice(var.metadataElement, var.metadataElement + 1);
}
std::size_t Tensor::dim(unsigned i) const {
  checkDim(detail::tensorImpl(*this), i, "dim");
  return detail::tensorImpl(*this).shape[i];
}
unsigned Tensor::rank() const { return static_cast<unsigned>(detail::tensorImpl(*this).shape.size()); }
std::vector<std::size_t> Tensor::shape() const { return detail::tensorImpl(*this).shape; }
std::size_t Tensor::numElements() const { return detail::tensorImpl(*this).numElements(); }
std::string Tensor::shapeToString() const { return detail::shapeString(detail::tensorImpl(*this).shape); }

Tensor Tensor::slice(std::size_t begin, std::size_t end, unsigned dimension) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  checkDim(t, dimension, "slice");
  if (begin > end || end > t.shape[dimension])
    throw index_error("Tensor::slice: range [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") is invalid for dimension " + std::to_string(dimension) + " of size " +
                      std::to_string(t.shape[dimension]) + " of tensor " + t.describe());
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    b.offset += static_cast<std::int64_t>(begin) * b.strides[dimension];
    shape[dimension] = b.dims[dimension] = end - begin;
  }));
}

Tensor Tensor::slice(const Interval &region, unsigned dimension) const {
  return slice(region.begin(), region.end(), dimension);
}

Tensor Tensor::slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  if (begin.size() != t.shape.size() || end.size() != t.shape.size())
    throw poplar_error("Tensor::slice: begin and end must each have one entry per dimension (" +
                       std::to_string(t.shape.size()) + ") of tensor " + t.describe() + "; got " +
                       std::to_string(begin.size()) + " and " + std::to_string(end.size()));
  Tensor out = *this;
  for (unsigned d = 0; d < begin.size(); ++d) out = out.slice(begin[d], end[d], d);
  return out;
}

std::vector<Tensor> Tensor::slices(ArrayRef<Interval> intervals, unsigned dimension) const {
  std::vector<Tensor> out;
  for (const Interval &i : intervals) out.push_back(slice(i, dimension));
  return out;
}

std::vector<Tensor> Tensor::slices(const std::vector<std::vector<Interval>> &intervals,
                                   unsigned dimension) const {
  std::vector<Tensor> out;
  for (const auto &group : intervals) {
    if (group.empty()) throw poplar_error("Tensor::slices: an interval group is empty");
    out.push_back(concat(slices(group, dimension), dimension));
  }
  return out;
}

std::vector<Tensor> Tensor::slices(const ArrayRef<unsigned> &indices, unsigned dimension) const {
  std::vector<Tensor> out;
  for (unsigned i : indices) out.push_back(slice(i, i + 1, dimension));
  return out;
}

Tensor Tensor::operator[](std::size_t i) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  if (t.shape.empty())
    throw poplar_error("Tensor::operator[]: cannot index the scalar tensor " + t.describe());
  if (i >= t.shape[0])
    throw index_error("Tensor::operator[]: index " + std::to_string(i) + " is out of range for dimension 0 of tensor " + t.describe());
  return slice(i, i + 1, 0).squeeze({0});
}

Tensor Tensor::index(ArrayRef<std::size_t> indices) const {
  Tensor out = *this;
  for (std::size_t i : indices) out = out[i];
  return out;
}

Tensor Tensor::reshape(ArrayRef<std::size_t> newShape) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  Dims shape(newShape.begin(), newShape.end());
  if (detail::checkedNumElements(shape, t.type, [&] { return "Tensor::reshape of " + t.describe(); }) != t.numElements())
    throw poplar_error("Tensor::reshape: cannot reshape tensor " + t.describe() + " (" +
                       std::to_string(t.numElements()) + " elements) to shape " +
                       detail::shapeString(shape));
  auto out = std::make_shared<TensorImpl>(t);
  out->shape = std::move(shape);
  if (out->blocks.size() == 1) {
    Block reshaped;
    if (detail::reshapeBlock(t.blocks[0], out->shape, reshaped)) out->blocks[0] = std::move(reshaped);
  }
  return Tensor(out);
}

Tensor Tensor::flatten() const { return reshape({numElements()}); }

Tensor Tensor::flatten(unsigned dimBegin, unsigned dimEnd) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  if (dimBegin >= dimEnd || dimEnd > t.shape.size())
    throw poplar_error("Tensor::flatten: invalid dimension range [" + std::to_string(dimBegin) +
                       ", " + std::to_string(dimEnd) + ") for tensor " + t.describe());
  return reshapePartial(dimBegin, dimEnd, {detail::product(t.shape, dimBegin, dimEnd)});
}

Tensor Tensor::reshapePartial(unsigned beginIndex, unsigned endIndex,
                              ArrayRef<std::size_t> newDims) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  if (beginIndex > endIndex || endIndex > t.shape.size())
    throw poplar_error("Tensor::reshapePartial: invalid dimension range [" +
                       std::to_string(beginIndex) + ", " + std::to_string(endIndex) +
                       ") for tensor " + t.describe());
  Dims middle(newDims.begin(), newDims.end());
  if (detail::product(middle) != detail::product(t.shape, beginIndex, endIndex))
    throw poplar_error("Tensor::reshapePartial: dimensions " + detail::shapeString(middle) +
                       " do not have as many elements as dimensions [" +
                       std::to_string(beginIndex) + ", " + std::to_string(endIndex) +
                       ") of tensor " + t.describe());
  Dims shape(t.shape.begin(), t.shape.begin() + beginIndex);
  shape.insert(shape.end(), middle.begin(), middle.end());
  shape.insert(shape.end(), t.shape.begin() + endIndex, t.shape.end());
  return reshape(shape);
}

Tensor Tensor::dimShuffle(ArrayRef<unsigned> permutation) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  std::vector<unsigned> perm(permutation.begin(), permutation.end());
  std::vector<unsigned> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == t.shape.size();
  for (unsigned i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == i;
  if (!ok) {
    std::string p;
    for (unsigned i : perm) p += (p.empty() ? "" : ",") + std::to_string(i);
    throw poplar_error("Tensor::dimShuffle: {" + p + "} is not a permutation of the " +
                       std::to_string(t.shape.size()) + " dimensions of tensor " + t.describe());
  }
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    const Block in = b;
    for (unsigned i = 0; i < perm.size(); ++i) {
      b.dims[i] = in.dims[perm[i]];
      b.strides[i] = in.strides[perm[i]];
    }
    shape = b.dims;
  }));
}

Tensor Tensor::dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  const unsigned rank = static_cast<unsigned>(t.shape.size());
  if (source.size() != destination.size())
    throw poplar_error("Tensor::dimShufflePartial: source and destination have different lengths");
  std::vector<int> perm(rank, -1);
  std::vector<bool> used(rank, false);
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] >= rank || destination[i] >= rank || used[source[i]] || perm[destination[i]] != -1)
      throw poplar_error("Tensor::dimShufflePartial: invalid or repeated dimension for tensor " + t.describe());
    perm[destination[i]] = static_cast<int>(source[i]);
    used[source[i]] = true;
  }
  unsigned next = 0;
  for (unsigned i = 0; i < rank; ++i) {
    if (perm[i] != -1) continue;
    while (used[next]) ++next;
    perm[i] = static_cast<int>(next++);
  }
  return dimShuffle(std::vector<unsigned>(perm.begin(), perm.end()));
}

Tensor Tensor::dimRoll(unsigned dimIdx, unsigned newIdx) const {
  return dimShufflePartial({dimIdx}, {newIdx});
}

Tensor Tensor::transpose() const {
  if (rank() != 2)
    throw poplar_error("Tensor::transpose: tensor " + detail::tensorImpl(*this).describe() + " is not 2-dimensional");
  return dimShuffle({1, 0});
}

Tensor Tensor::expand(ArrayRef<std::size_t> indices) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (indices[i] > t.shape.size() || (i && indices[i] < indices[i - 1]))
      throw poplar_error("Tensor::expand: indices must be in increasing order and at most the rank (" +
                         std::to_string(t.shape.size()) + ") of tensor " + t.describe());
  std::vector<std::size_t> idx(indices.begin(), indices.end());
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    for (std::size_t k = idx.size(); k-- > 0;) {
      b.dims.insert(b.dims.begin() + idx[k], 1);
      b.strides.insert(b.strides.begin() + idx[k], 0);
    }
    shape = b.dims;
  }));
}

Tensor Tensor::squeeze(ArrayRef<std::size_t> indices) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  std::vector<std::size_t> idx(indices.begin(), indices.end());
  std::sort(idx.begin(), idx.end());
  for (std::size_t i = 0; i < idx.size(); ++i)
    if (idx[i] >= t.shape.size() || t.shape[idx[i]] != 1 || (i && idx[i] == idx[i - 1]))
      throw poplar_error("Tensor::squeeze: dimension " + std::to_string(idx[i]) +
                         " of tensor " + t.describe() + " is not a distinct dimension of size 1");
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    for (std::size_t k = idx.size(); k-- > 0;) {
      b.dims.erase(b.dims.begin() + idx[k]);
      b.strides.erase(b.strides.begin() + idx[k]);
    }
    shape = b.dims;
  }));
}

namespace {
// Throws unless t with dimension `dim` scaled by `factor` is still addressable.
void checkGrownShape(const TensorImpl &t, unsigned dim, unsigned factor, const char *op) {
  const auto what = [&] { return std::string("Tensor::") + op + " of " + t.describe() + " by " + std::to_string(factor); };
  Dims shape = t.shape;
  if (__builtin_mul_overflow(shape[dim], factor, &shape[dim]))
    throw tensor_creation_error(what() + ": dimension " + std::to_string(dim) + " overflows");
  detail::checkedNumElements(shape, t.type, what);
}
} // namespace

Tensor Tensor::broadcast(unsigned N, unsigned dimension) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  checkDim(t, dimension, "broadcast");
  checkGrownShape(t, dimension, N, "broadcast");
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    shape[dimension] *= N;
    b.dims.insert(b.dims.begin() + dimension, N);
    b.strides.insert(b.strides.begin() + dimension, 0);
  }));
}

Tensor Tensor::upsample(unsigned scale, unsigned dimension, UpsampleMethod) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  checkDim(t, dimension, "upsample");
  checkGrownShape(t, dimension, scale, "upsample");
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    shape[dimension] *= scale;
    b.dims.insert(b.dims.begin() + dimension + 1, scale);
    b.strides.insert(b.strides.begin() + dimension + 1, 0);
  }));
}

Tensor Tensor::subSample(unsigned stride, unsigned dimension) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  checkDim(t, dimension, "subSample");
  if (stride == 0) throw poplar_error("Tensor::subSample: stride must be at least 1");
  return Tensor(detail::applyView(t, [&](Dims &shape, Block &b) {
    b.dims[dimension] = (b.dims[dimension] + stride - 1) / stride;
    b.strides[dimension] *= stride;
    shape = b.dims;
  }));
}

Tensor Tensor::reverse(unsigned dimension) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  checkDim(t, dimension, "reverse");
  return Tensor(detail::applyView(t, [&](Dims &, Block &b) {
    if (b.dims[dimension] > 0)
      b.offset += static_cast<std::int64_t>(b.dims[dimension] - 1) * b.strides[dimension];
    b.strides[dimension] = -b.strides[dimension];
  }));
}

Tensor Tensor::reinterpret(const Type &type) const {
  const TensorImpl &t = detail::tensorImpl(*this);
  if (detail::typeSize(type) != detail::typeSize(t.type))
    throw type_error("Tensor::reinterpret: cannot reinterpret tensor " + t.describe() + " as " +
                     type.toString().str() + ": element sizes differ (" +
                     std::to_string(detail::typeSize(t.type)) + " vs " +
                     std::to_string(detail::typeSize(type)) + " bytes)");
  auto out = std::make_shared<TensorImpl>(t);
  out->type = type;
  return Tensor(out);
}

bool Tensor::isContiguous() const {
  std::size_t n = 0;
  bool contiguous = true;
  detail::tensorImpl(*this).forEachRun([&](const detail::Run &r) {
    ++n;
    contiguous = contiguous && (r.stride == 1 || r.count == 1);
  });
  return contiguous && n <= 1;
}

bool Tensor::containsAliases() const { return detail::containsAliases(detail::tensorImpl(*this)); }

bool Tensor::containsConstant() const {
  const TensorImpl &t = detail::tensorImpl(*this);
  for (const Block &b : t.blocks)
    if (b.numElements() && t.vars->vars[b.var].isConstant) return true;
  return false;
}

bool Tensor::isParallelWriteable() const { return !containsConstant() && !containsAliases(); }

bool Tensor::intersectsWith(const Tensor &other) const {
  if (detail::tensorImpl(*this).vars != detail::tensorImpl(other).vars) return false;
  return detail::intervalsMeet(detail::spanUnion(detail::tensorImpl(*this)), detail::spanUnion(detail::tensorImpl(other))) &&
         detail::intervalsMeet(detail::elementIntervals(detail::tensorImpl(*this)), detail::elementIntervals(detail::tensorImpl(other)));
}

namespace {
// Maximal intervals of flat positions that are contiguous runs of one variable.
template <class Emit> void forEachContiguousRegion(const TensorImpl &t, Emit emit) {
  std::size_t pos = 0;
  bool open = false;
  unsigned var = 0;
  std::size_t begin = 0;
  std::int64_t varBegin = 0, next = 0;
  auto step = [&](unsigned v, std::int64_t e, std::size_t n) {
    if (open && v == var && e == next) {
      next += static_cast<std::int64_t>(n);
    } else {
      if (open) emit(var, begin, pos, varBegin);
      open = true, var = v, begin = pos, varBegin = e, next = e + static_cast<std::int64_t>(n);
    }
    pos += n;
  };
  t.forEachRun([&](const detail::Run &r) {
    if (r.stride == 1 || r.count == 1) step(r.var, r.start, r.count);
    else for (std::size_t k = 0; k < r.count; ++k) step(r.var, r.start + static_cast<std::int64_t>(k) * r.stride, 1);
  });
  if (open) emit(var, begin, pos, varBegin);
}
} // namespace

std::vector<Interval> Tensor::getContiguousRegions() const {
  std::vector<Interval> out;
  forEachContiguousRegion(detail::tensorImpl(*this), [&](unsigned, std::size_t b, std::size_t e, std::int64_t) {
    out.emplace_back(b, e);
  });
  return out;
}

std::vector<VariableInterval> Tensor::getVarRegions() const {
  std::vector<VariableInterval> out;
  const TensorImpl &t = detail::tensorImpl(*this);
  forEachContiguousRegion(t, [&](unsigned var, std::size_t b, std::size_t e, std::int64_t vb) {
    const auto start = static_cast<std::size_t>(vb);
    out.push_back(VariableInterval{VariableRef{var, t.vars.get()}, Interval(start, start + (e - b))});
  });
  return out;
}

std::string Tensor::getVarStr() const { return detail::tensorImpl(*this).describe(); }

std::string Tensor::getDebugStr() const {
  std::ostringstream os;
  os << detail::tensorImpl(*this).describe() << " regions:";
  for (const auto &r : getVarRegions())
    os << ' ' << detail::tensorImpl(*this).vars->vars[r.var.id].name << r.interval;
  return os.str();
}

void Tensor::dump() const { std::cerr << getDebugStr() << '\n'; }

bool operator==(const Tensor &a, const Tensor &b) {
  if (!a.valid() || !b.valid()) return a.valid() == b.valid();
  const TensorImpl &x = detail::tensorImpl(a), &y = detail::tensorImpl(b);
  if (x.type != y.type || x.shape != y.shape || x.vars != y.vars) return false;
  const auto rx = x.runs(), ry = y.runs();
  std::size_t i = 0, j = 0, ki = 0, kj = 0;
  while (i < rx.size() && j < ry.size()) {
    const auto &p = rx[i], &q = ry[j];
    const std::size_t n = std::min(p.count - ki, q.count - kj);
    const std::int64_t ep = p.start + static_cast<std::int64_t>(ki) * p.stride;
    const std::int64_t eq = q.start + static_cast<std::int64_t>(kj) * q.stride;
    if (p.var != q.var || ep != eq || (n > 1 && p.stride != q.stride)) return false;
    ki += n, kj += n;
    if (ki == p.count) ++i, ki = 0;
    if (kj == q.count) ++j, kj = 0;
  }
  return i == rx.size() && j == ry.size();
}

Tensor concat(ArrayRef<Tensor> ts, unsigned dimension) {
  if (ts.empty()) throw poplar_error("concat: no tensors to concatenate");
  const TensorImpl &first = detail::tensorImpl(ts[0]);
  checkDim(first, dimension, "concat");
  for (const Tensor &t : ts) {
    const TensorImpl &x = detail::tensorImpl(t);
    const std::string mismatch = "concat: tensor " + x.describe() + " and tensor " + first.describe();
    if (x.vars != first.vars) throw poplar_error(mismatch + " belong to different graphs");
    if (x.type != first.type) throw poplar_error(mismatch + " have different element types");
    bool sameShape = x.shape.size() == first.shape.size();
    for (std::size_t d = 0; sameShape && d < x.shape.size(); ++d)
      sameShape = d == dimension || x.shape[d] == first.shape[d];
    if (!sameShape)
      throw poplar_error(mismatch + " have different shapes outside dimension " + std::to_string(dimension));
  }
  if (dimension != 0) {
    std::vector<Tensor> rolled;
    for (const Tensor &t : ts) rolled.push_back(t.dimRoll(dimension, 0));
    return concat(rolled, 0).dimRoll(0, dimension);
  }
  auto out = std::make_shared<TensorImpl>(first);
  out->blocks.clear();
  out->shape[0] = 0;
  for (const Tensor &t : ts) {
    const TensorImpl &x = detail::tensorImpl(t);
    out->shape[0] += x.shape[0];
    detail::checkedNumElements(out->shape, out->type, [&] { return "concat of " + x.describe(); });
    for (const Block &b : x.blocks) {
      if (b.numElements() == 0) continue;
      // Two aligned slices that continue each other along dim 0 stay one block.
      if (x.aligned() && !out->blocks.empty() && out->blocks.size() == 1) {
        Block &last = out->blocks.back();
        if (last.var == b.var && last.dims.size() == b.dims.size() && !b.dims.empty() &&
            std::equal(last.dims.begin() + 1, last.dims.end(), b.dims.begin() + 1) &&
            std::equal(last.strides.begin() + 1, last.strides.end(), b.strides.begin() + 1) &&
            last.strides[0] == b.strides[0] &&
            b.offset == last.offset + static_cast<std::int64_t>(last.dims[0]) * last.strides[0] &&
            last.dims[0] + 0 == out->shape[0] - x.shape[0]) {
          last.dims[0] += b.dims[0];
          continue;
        }
      }
      out->blocks.push_back(b);
    }
  }
  detail::normalize(*out);
  return detail::makeTensor(out);
}

Tensor append(const Tensor &first, const Tensor &second, unsigned dimension) {
  return concat(first, second.expand({dimension}), dimension);
}

} // namespace poplar
