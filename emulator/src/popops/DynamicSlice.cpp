#include <popops/DynamicSlice.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>

#include "Elements.hpp"
#include "KernelSupport.hpp"
#include "SlicePlanInternal.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/ThreadPool.hpp"

namespace popops {

using poplar::Tensor;
using poplar::Type;
using namespace popops::detail;


SlicePlan::SlicePlan() : internal(std::make_unique<SlicePlanInternal>()) {}
SlicePlan::~SlicePlan() = default;
SlicePlan::SlicePlan(const SlicePlan &other)
    : internal(std::make_unique<SlicePlanInternal>(*other.internal)) {}
// A moved-from plan stays a usable null plan.
SlicePlan::SlicePlan(SlicePlan &&other) : SlicePlan() { std::swap(internal, other.internal); }
SlicePlan &SlicePlan::operator=(const SlicePlan &other) {
  *internal = *other.internal;
  return *this;
}
SlicePlan &SlicePlan::operator=(SlicePlan &&other) {
  std::swap(internal, other.internal);
  return *this;
}
SlicePlan::SlicePlan(std::unique_ptr<SlicePlanInternal> internal) : internal(std::move(internal)) {}

std::ostream &operator<<(std::ostream &o, const SlicePlan &p) {
  const SlicePlanInternal &i = p.getImpl();
  if (i.isNull) return o << "SlicePlan(null)";
  o << "SlicePlan(" << i.dataType << ", numEntries=" << i.numEntries
    << ", outputSize=" << i.outputSize << ", numLookups=" << bracketed(i.numLookups);
  if (i.groupSize) o << ", groupSize=" << i.groupSize;
  o << ")";
  return o;
}
bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept {
  return a.getImpl().key() < b.getImpl().key();
}
bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept {
  return a.getImpl().key() == b.getImpl().key();
}
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept { return !(a == b); }

namespace {

// ---------------------------------------------------------------- options

struct SliceOptions {
  bool remapOutOfBoundIndices = false;
  bool paddingIndexUsed = false;
};

// The slicing options poplibs accepts. Those that only steer planning and
// tile layout are checked but change nothing here.
SliceOptions parseSliceOptions(const poplar::OptionFlags &options) {
  SliceOptions o;
  bool planningFlag = false;
  double proportion = 0;
  std::string choice;
  parseOptions(options,
               {{"remapOutOfBoundIndices", boolOption("remapOutOfBoundIndices", o.remapOutOfBoundIndices)},
                {"paddingIndexUsed", boolOption("paddingIndexUsed", o.paddingIndexUsed)},
                {"usedForSlice", boolOption("usedForSlice", planningFlag)},
                {"usedForUpdate", boolOption("usedForUpdate", planningFlag)},
                {"indicesAreSorted", boolOption("indicesAreSorted", planningFlag)},
                {"availableMemoryProportion", doubleOption("availableMemoryProportion", proportion)},
                {"operationForUpdate",
                 choiceOption("operationForUpdate", {"none", "add", "max", "mul"}, choice)},
                {"indicesDistribution", choiceOption("indicesDistribution", {"uniform", "onePoint"}, choice)},
                {"partialType", choiceOption("partialType", {"float", "half"}, choice)}});
  return o;
}

// What an index means along a dimension of `size` elements: poplibs reads it as
// unsigned; a slice starting inside the dimension wraps around its end; one
// starting outside is skipped (remapOutOfBoundIndices starts it at 0 instead);
// with paddingIndexUsed, index == size is a padding slot that slices as zeros.
enum class IndexUse { Slice, Skip, Zeros };

IndexUse useOfIndex(std::uint32_t &index, std::size_t size, const SliceOptions &o) {
  if (o.paddingIndexUsed && index == size) return IndexUse::Zeros;
  if (index < size) return IndexUse::Slice;
  if (o.remapOutOfBoundIndices && size != 0) {
    index = 0;
    return IndexUse::Slice;
  }
  return IndexUse::Skip;
}

// ---------------------------------------------------------------- checks

void checkOffsetType(const char *fn, const Tensor &offset) {
  if (offset.elementType() != poplar::UNSIGNED_INT && offset.elementType() != poplar::INT)
    throw poplar::graph_connection_error(std::string(fn) + ": offset " + describe(offset) +
                                         " must be UNSIGNED_INT (the vertex reads unsigned offsets)");
}

// The rules dynamicSlice and dynamicUpdate share for t, offset, dims and sizes.
void checkSliceArgs(const char *fn, const Tensor &t, const Tensor &offset,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error(std::string(fn) + ": dims " + bracketed(dims) + " and sizes " +
                                 bracketed(sizes) + " of the slice of " + describe(t) +
                                 " differ in length");
  checkOffsetType(fn, offset);
  if (offset.rank() == 0 || offset.rank() > 2 || offset.dim(0) != dims.size() ||
      (offset.rank() == 2 && offset.dim(1) == 0))
    throw poputil::poplibs_error(std::string(fn) + ": offset " + describe(offset) + " must have " +
                                 std::to_string(dims.size()) +
                                 " rows (one per sliced dimension, dims " + bracketed(dims) +
                                 ") and rank 1 or 2, to slice " + describe(t));
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= t.rank())
      throw poplar::graph_connection_error(std::string(fn) + ": dimension " + std::to_string(dims[i]) +
                                           " is out of range for " + describe(t));
    if (sizes[i] > t.dim(dims[i]))
      throw poplar::graph_connection_error(std::string(fn) + ": slice size " + std::to_string(sizes[i]) +
                                           " is larger than dimension " + std::to_string(dims[i]) +
                                           " of " + describe(t));
    if (!seen.insert(dims[i]).second)
      throw poplar::graph_connection_error(std::string(fn) + ": dimension " + std::to_string(dims[i]) +
                                           " is repeated in dims " + bracketed(dims) + " for " +
                                           describe(t));
  }
}

// t's shape with each sliced dimension replaced by its slice size.
std::vector<std::size_t> sliceShape(const std::vector<std::size_t> &shape,
                                    const std::vector<std::size_t> &dims,
                                    const std::vector<std::size_t> &sizes) {
  std::vector<std::size_t> out = shape;
  for (std::size_t i = 0; i < dims.size(); ++i) out[dims[i]] = sizes[i];
  return out;
}

// The sliced dimensions first, the others after in order: rows of such a view
// are the unit a slice moves.
std::vector<unsigned> slicedFirst(unsigned rank, const std::vector<std::size_t> &dims) {
  std::vector<unsigned> order(dims.begin(), dims.end());
  for (unsigned d = 0; d < rank; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
  return order;
}

std::size_t productOf(const std::vector<std::size_t> &v) {
  std::size_t n = 1;
  for (std::size_t x : v) n *= x;
  return n;
}

// ---------------------------------------------------------------- run time

// An access cut into rows of `rowLength` elements, each handed out as an
// Access in a reused scratch object, so that running allocates nothing.
class RowView {
public:
  RowView() = default;
  RowView(const Access &access, std::size_t rowLength) : scratch_(access), rowLength_(rowLength) {
    uniform_ = access.segments.size() <= 1;
    scratch_.numElements = rowLength;
    if (uniform_) {
      first_ = access.segments.empty() ? poplar::detail::Segment{nullptr, 0, 0} : access.segments[0];
      scratch_.segments.assign(1, first_);
      return;
    }
    // Split the segments at row boundaries and index the pieces by row.
    std::size_t filled = 0;
    for (const auto &s : access.segments)
      for (std::size_t done = 0; done < s.count;) {
        if (filled == 0) firstPiece_.push_back(pieces_.size());
        const std::size_t n = std::min(s.count - done, rowLength - filled);
        pieces_.push_back({s.base + static_cast<std::ptrdiff_t>(done) * s.stride, n, s.stride});
        done += n;
        filled = (filled + n) % rowLength;
      }
    firstPiece_.push_back(pieces_.size());
  }

  // Row i; valid until the next call.
  const Access &row(std::size_t i) { return row(i, scratch_); }
  // Row i in `scratch` (a copy of scratch()), for threads that share the view.
  const Access &row(std::size_t i, Access &scratch) const {
    if (uniform_) {
      scratch.segments[0] = {first_.base + static_cast<std::ptrdiff_t>(i * rowLength_) * first_.stride,
                             rowLength_, first_.stride};
    } else {
      scratch.segments.assign(pieces_.begin() + static_cast<std::ptrdiff_t>(firstPiece_[i]),
                              pieces_.begin() + static_cast<std::ptrdiff_t>(firstPiece_[i + 1]));
    }
    return scratch;
  }
  const Access &scratch() const { return scratch_; }

private:
  Access scratch_;
  std::size_t rowLength_ = 0;
  bool uniform_ = true;
  poplar::detail::Segment first_{nullptr, 0, 0};
  std::vector<poplar::detail::Segment> pieces_;
  std::vector<std::size_t> firstPiece_;
};

// Reads offset values from device memory: element i of the list is at flat
// index i * stride of the offset tensor.
class OffsetReader {
public:
  OffsetReader() = default;
  OffsetReader(const Access &offsets, std::size_t count, std::size_t stride) {
    for (std::size_t i = 0; i < count; ++i) addresses_.push_back(elementAddress(offsets, i * stride));
  }
  std::uint32_t operator[](std::size_t i) const {
    std::uint32_t v;
    std::memcpy(&v, addresses_[i], sizeof v);
    return v;
  }

private:
  std::vector<const std::uint8_t *> addresses_;
};

// Geometry of one dynamic slice: base rows are rows of t viewed sliced-dims
// first; slice rows are rows of the slice viewed the same way.
struct SliceGeometry {
  std::vector<std::size_t> dimSizes;   // t's size along each sliced dimension
  std::vector<std::size_t> sliceSizes; // the slice's size along each
  std::size_t rowLength = 1;           // elements in a row (the unsliced dimensions)

  std::size_t sliceRows() const { return productOf(sliceSizes); }
  // The base row holding slice row n for slices starting at `starts`.
  std::size_t baseRow(std::size_t n, const std::vector<std::uint32_t> &starts) const {
    std::size_t row = 0, stride = 1;
    for (std::size_t i = dimSizes.size(); i-- > 0;) {
      const std::size_t j = n % sliceSizes[i];
      n /= sliceSizes[i];
      row += (starts[i] + j) % dimSizes[i] * stride;
      stride *= dimSizes[i];
    }
    return row;
  }
};

SliceGeometry geometryOf(const Tensor &t, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes) {
  SliceGeometry g;
  for (std::size_t i = 0; i < dims.size(); ++i) g.dimSizes.push_back(t.dim(dims[i]));
  g.sliceSizes = sizes;
  for (unsigned d = 0; d < t.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) g.rowLength *= t.dim(d);
  return g;
}

// Rows of `rowLength` elements per block of work on the thread pool.
std::size_t rowsPerParallelBlock(std::size_t rowLength) {
  return std::max<std::size_t>(1, 32768 / std::max<std::size_t>(1, rowLength));
}

// Zero bytes are the zero of every element type.
void zeroAccess(const Access &a) { fillAccess(a, std::vector<std::uint8_t>(a.elemSize, 0)); }

// dynamicSlice (toSlice) or dynamicUpdate (!toSlice): operands are the base
// (t viewed sliced-dims first), the slice (viewed the same way) and the offset.
void writeSliceOptions(poplar::detail::ByteWriter &out, const SliceOptions &o) {
  out.boolean(o.remapOutOfBoundIndices).boolean(o.paddingIndexUsed);
}

SliceOptions readSliceOptions(poplar::detail::ByteReader &in) {
  SliceOptions o;
  o.remapOutOfBoundIndices = in.boolean();
  o.paddingIndexUsed = in.boolean();
  return o;
}

poplar::detail::KernelCompile dynamicSliceCompile(poplar::detail::ByteReader &params) {
  const bool toSlice = params.boolean();
  SliceGeometry geometry;
  geometry.dimSizes = params.sizes();
  geometry.sliceSizes = params.sizes();
  geometry.rowLength = params.u64();
  if (geometry.sliceSizes.size() != geometry.dimSizes.size()) params.corrupt();
  const SliceOptions options = readSliceOptions(params);
  const std::size_t offsetStride = params.u64();
  return [=](const std::vector<poplar::detail::Access> &operands) {
    const poplar::detail::KernelOperands checked("popops::DynamicSlice", operands, 3);
    const std::size_t base = toSlice ? 0 : 2, slice = toSlice ? 2 : 0;
    for (std::size_t i = 0; i < geometry.dimSizes.size(); ++i)
      checked.require(geometry.dimSizes[i] > 0 && geometry.sliceSizes[i] <= geometry.dimSizes[i],
                      "slice sizes exceed the sliced dimensions");
    std::vector<std::size_t> baseSizes = geometry.dimSizes, sliceSizes = geometry.sliceSizes;
    baseSizes.push_back(geometry.rowLength);
    sliceSizes.push_back(geometry.rowLength);
    checked.elements(base, checked.product(baseSizes)).elements(slice, checked.product(sliceSizes))
        .sameType(base, slice).typeIn(1, {poplar::UNSIGNED_INT, poplar::INT})
        .require(geometry.dimSizes.empty() ||
                     checked.product({geometry.dimSizes.size() - 1, offsetStride}) < operands[1].numElements,
                 "the offsets reach past the offset tensor");
    const Access &baseAccess = operands[base];
    const Access &sliceAccess = operands[slice];
    const OffsetReader offsets(operands[1], geometry.dimSizes.size(), offsetStride);
    RowView baseRows(baseAccess, geometry.rowLength), sliceRows(sliceAccess, geometry.rowLength);
    std::vector<std::uint32_t> starts(geometry.dimSizes.size());
    const bool parallelRows = !baseAccess.sharesVariableWith(sliceAccess);
    const std::size_t rowsPerBlock = rowsPerParallelBlock(geometry.rowLength);
    return std::function<void()>([=]() mutable {
      bool zeros = false;
      for (std::size_t i = 0; i < starts.size(); ++i) {
        starts[i] = offsets[i];
        const IndexUse use = useOfIndex(starts[i], geometry.dimSizes[i], options);
        if (use == IndexUse::Skip) return;
        zeros |= use == IndexUse::Zeros;
      }
      if (zeros) {
        if (toSlice) zeroAccess(sliceAccess);
        return;
      }
      const std::size_t rows = geometry.sliceRows();
      if (!parallelRows || rows < 2 * rowsPerBlock) {
        for (std::size_t n = 0; n < rows; ++n) {
          const std::size_t b = geometry.baseRow(n, starts);
          if (toSlice) poplar::detail::copyElements(baseRows.row(b), sliceRows.row(n));
          else poplar::detail::copyElements(sliceRows.row(n), baseRows.row(b));
        }
        return;
      }
      // Slice rows are distinct base rows, so blocks of them copy independently.
      const auto copyRows = [&](std::size_t begin, std::size_t end, unsigned) {
        Access baseRow = baseRows.scratch(), sliceRow = sliceRows.scratch();
        for (std::size_t n = begin; n < end; ++n) {
          const Access &inBase = baseRows.row(geometry.baseRow(n, starts), baseRow);
          const Access &inSlice = sliceRows.row(n, sliceRow);
          if (toSlice) poplar::detail::copyElements(inBase, inSlice);
          else poplar::detail::copyElements(inSlice, inBase);
        }
      };
      poplar::detail::parallelBlocks(rows, rowsPerBlock, copyRows);
    });
  };
}
const poplar::detail::KernelKind dynamicSliceKind("popops::DynamicSlice", dynamicSliceCompile);

poplar::detail::Kernel dynamicSliceKernel(bool toSlice, const Tensor &base, const Tensor &slice,
                                          const Tensor &offset, const SliceGeometry &geometry,
                                          const SliceOptions &options) {
  poplar::detail::ByteWriter params;
  params.boolean(toSlice).sizes(geometry.dimSizes).sizes(geometry.sliceSizes).u64(geometry.rowLength);
  writeSliceOptions(params, options);
  params.u64(offset.rank() == 2 ? offset.dim(1) : 1); // the offsets' stride: the first per-tile copy
  return poplar::detail::makeKernel("popops::DynamicSlice", {toSlice ? base : slice, offset},
                                    {toSlice ? slice : base}, params.take(),
                                    toSlice ? "popops::DynamicSlice" : "popops::DynamicUpdate");
}

// The slice at offset 0: where poplibs maps slices of t.
Tensor firstSliceOf(const Tensor &t, const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  Tensor slice = t;
  for (std::size_t i = 0; i < dims.size(); ++i) slice = slice.slice(0, sizes[i], static_cast<unsigned>(dims[i]));
  return slice;
}

Tensor createSliceOutput(poplar::Graph &graph, const Tensor &t, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes,
                         const poplar::DebugContext &debugContext) {
  Tensor out = graph.addVariable(t.elementType(), sliceShape(t.shape(), dims, sizes), debugContext);
  bool complete = false;
  const auto mapping = graph.getTileMapping(firstSliceOf(t, dims, sizes), &complete);
  if (complete) graph.setTileMapping(out, mapping);
  else poputil::mapTensorLinearly(graph, out);
  return out;
}

void checkSliceOutput(const char *fn, const Tensor &t, const Tensor &s, const std::vector<std::size_t> &dims,
                      const std::vector<std::size_t> &sizes) {
  const auto expected = sliceShape(t.shape(), dims, sizes);
  if (s.shape() != expected || s.elementType() != t.elementType())
    throw poputil::poplibs_error(std::string(fn) + ": slice " + describe(s) + " does not match " +
                                 describe(t) + " sliced to " + bracketed(expected));
}

// ---------------------------------------------------------------- multi-slice

// The index rules for multi-slices: one dimension, offsets [numIndices, 1].
void checkMultiArgs(const char *fn, const Tensor &t, const Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  if (dims.size() != 1 || sizes.size() != 1)
    throw poputil::poplibs_error(std::string(fn) + ": dims " + bracketed(dims) + " and sizes " +
                                 bracketed(sizes) + " must each have one element (slicing " +
                                 describe(t) + ")");
  checkOffsetType(fn, offsets);
  if (offsets.rank() != 2 || offsets.dim(1) != 1)
    throw poputil::poplibs_error(std::string(fn) + ": offsets " + describe(offsets) +
                                 " must have shape [numIndices, 1] to slice " + describe(t));
  if (dims[0] >= t.rank())
    throw poplar::graph_connection_error(std::string(fn) + ": dimension " + std::to_string(dims[0]) +
                                         " is out of range for " + describe(t));
  if (sizes[0] > t.dim(dims[0]))
    throw poplar::graph_connection_error(std::string(fn) + ": slice size " + std::to_string(sizes[0]) +
                                         " is larger than dimension " + std::to_string(dims[0]) +
                                         " of " + describe(t));
}

// [numIndices] + t's shape with the sliced dimension resized.
std::vector<std::size_t> multiSliceShape(const Tensor &t, std::size_t numIndices, std::size_t dim,
                                         std::size_t size) {
  std::vector<std::size_t> shape = sliceShape(t.shape(), {dim}, {size});
  shape.insert(shape.begin(), numIndices);
  return shape;
}

// The slices viewed like the base: [numIndices * size, rest...] rows.
Tensor slicesAsRows(const Tensor &slices, std::size_t dim) {
  std::vector<unsigned> order = slicedFirst(slices.rank() - 1, {dim});
  for (unsigned &d : order) ++d;
  order.insert(order.begin(), 0);
  return slices.dimShuffle(order);
}

// Combines a row of updates into a row of t (multiUpdateAdd/Max/Mul).
enum class Combine { Add, Max, Mul };

template <class T> struct RowCombiner {
  using V = typename Element<T>::Value;
  Combine combine;
  std::vector<T> row; // the base row being updated

  void operator()(const Access &baseRow, const T *update, V scale) {
    row.resize(baseRow.numElements);
    baseRow.gather(row.data());
    for (std::size_t i = 0; i < row.size(); ++i) {
      const V x = Element<T>::load(row[i]), u = Element<T>::load(update[i]);
      V r;
      switch (combine) {
      case Combine::Add: r = wrappingAdd(x, wrappingMul(scale, u)); break;
      case Combine::Max: r = u > x ? u : x; break;
      default: r = wrappingMul(x, u); break;
      }
      row[i] = Element<T>::store(r);
    }
    baseRow.scatter(row.data());
  }
};

using MultiUpdateTypes = TypeList<float, Half, std::int32_t, std::uint32_t>;

// multiSlice (toSlice), multiUpdate (a copy) or a combining multi-update.
struct MultiOp {
  bool toSlice;
  bool combines = false;
  Combine combine = Combine::Add;
};

poplar::detail::KernelCompile multiCompile(poplar::detail::ByteReader &params) {
  MultiOp op;
  op.toSlice = params.boolean();
  op.combines = params.boolean();
  const std::uint64_t combine = params.u64();
  if (combine > static_cast<unsigned>(Combine::Mul)) params.corrupt();
  op.combine = static_cast<Combine>(combine);
  const std::size_t size = params.u64(), dimSize = params.u64(), numIndices = params.u64();
  const std::size_t rowLength = params.u64();
  const SliceOptions options = readSliceOptions(params);
  return [=](const std::vector<poplar::detail::Access> &operands) {
    // multiSlice: base, indices, slices; updates: slices, indices (, scale), base.
    const poplar::detail::KernelOperands checked("popops::MultiSlice", operands, 3, op.combines ? 4 : 3);
    const std::size_t base = op.toSlice ? 0 : operands.size() - 1, slice = op.toSlice ? operands.size() - 1 : 0;
    checked.require(dimSize > 0 && size <= dimSize, "the slice size exceeds the sliced dimension")
        .elements(base, checked.product({dimSize, rowLength}))
        .elements(slice, checked.product({numIndices, size, rowLength})).sameType(base, slice)
        .typeIn(1, {poplar::UNSIGNED_INT, poplar::INT})
        .require(operands[1].numElements >= numIndices, "there are fewer indices than the parameters give");
    if (operands.size() == 4) checked.elements(2, 1);
    const Access &baseAccess = operands[base];
    const Access &sliceAccess = operands[slice];
    const OffsetReader indices(operands[1], numIndices, 1);
    RowView baseRows(baseAccess, rowLength), sliceRows(sliceAccess, rowLength);
    // Calls each(baseRow, sliceRow) for the rows indices [first, last) slice or
    // update, and padding(sliceRow) for the rows of padding indices.
    auto forEachRow = [=](std::size_t first, std::size_t last, auto &&each, auto &&padding) {
      for (std::size_t n = first; n < last; ++n) {
        std::uint32_t start = indices[n];
        const IndexUse use = useOfIndex(start, dimSize, options);
        if (use == IndexUse::Skip) continue;
        for (std::size_t j = 0; j < size; ++j) {
          if (use == IndexUse::Zeros) padding(n * size + j);
          else each((start + j) % dimSize, n * size + j);
        }
      }
    };
    // A multiSlice writes each slice row once, so blocks of indices copy independently.
    const std::size_t indicesPerBlock = rowsPerParallelBlock(size * rowLength);
    if (op.toSlice && !baseAccess.sharesVariableWith(sliceAccess) && numIndices >= 2 * indicesPerBlock)
      return std::function<void()>([=] {
        const auto copyIndices = [&](std::size_t begin, std::size_t end, unsigned) {
          Access baseRow = baseRows.scratch(), sliceRow = sliceRows.scratch();
          forEachRow(
              begin, end,
              [&](std::size_t b, std::size_t s) {
                poplar::detail::copyElements(baseRows.row(b, baseRow), sliceRows.row(s, sliceRow));
              },
              [&](std::size_t s) { zeroAccess(sliceRows.row(s, sliceRow)); });
        };
        poplar::detail::parallelBlocks(numIndices, indicesPerBlock, copyIndices);
      });
    if (!op.combines)
      return std::function<void()>([=]() mutable {
        forEachRow(
            0, numIndices,
            [&](std::size_t b, std::size_t s) {
              if (op.toSlice) poplar::detail::copyElements(baseRows.row(b), sliceRows.row(s));
              else poplar::detail::copyElements(sliceRows.row(s), baseRows.row(b));
            },
            [&](std::size_t s) {
              if (op.toSlice) zeroAccess(sliceRows.row(s));
            });
      });
    std::function<void()> run;
    const std::uint8_t *scaleAddress = operands.size() == 4 ? operands[2].data() : nullptr;
    const Type scaleType = operands.size() == 4 ? operands[2].type : Type();
    MultiUpdateTypes::visit(baseAccess.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using V = typename Element<T>::Value;
      DenseOperand updates(sliceAccess, sliceAccess.sharesVariableWith(baseAccess));
      RowCombiner<T> combiner{op.combine, {}};
      run = [=]() mutable {
        const V scale =
            scaleAddress ? convertValue<V>(poplar::detail::loadElement(scaleType, scaleAddress)) : V(1);
        const T *u = updates.read<T>();
        forEachRow(
            0, numIndices, [&](std::size_t b, std::size_t s) { combiner(baseRows.row(b), u + s * rowLength, scale); },
            [](std::size_t) {}); // padding indices update nothing
      };
    });
    return run;
  };
}
const poplar::detail::KernelKind multiKind("popops::MultiSlice", multiCompile);

poplar::detail::Kernel multiKernel(const MultiOp &op, const Tensor &base, const Tensor &slices,
                                   const Tensor &offsets, const Tensor &scale, std::size_t size,
                                   const SliceOptions &options) {
  std::vector<Tensor> reads = {op.toSlice ? base : slices, offsets};
  if (scale.valid()) reads.push_back(scale);
  const std::size_t dimSize = base.dim(0);
  poplar::detail::ByteWriter params;
  params.boolean(op.toSlice).boolean(op.combines).u64(static_cast<unsigned>(op.combine)).u64(size)
      .u64(dimSize).u64(offsets.dim(0)).u64(base.numElements() / std::max<std::size_t>(dimSize, 1));
  writeSliceOptions(params, options);
  return poplar::detail::makeKernel("popops::MultiSlice", std::move(reads), {op.toSlice ? slices : base},
                                    params.take(), op.toSlice ? "popops::MultiSlice" : "popops::MultiUpdate");
}

} // namespace

// ---------------------------------------------------------------- creation

Tensor createSliceableTensor(poplar::Graph &graph, const Type &type, const std::vector<size_t> &shape,
                             const std::vector<size_t> &dims, const std::vector<size_t> &sizes,
                             std::size_t minGrainSize, const poplar::DebugContext &debugContext) {
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error("createSliceableTensor: dims " + bracketed(dims) + " and sizes " +
                                 bracketed(sizes) + " differ in length");
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] >= shape.size() || sizes[i] > shape[dims[i]])
      throw poputil::poplibs_error("createSliceableTensor: cannot slice " + std::to_string(sizes[i]) +
                                   " elements of dimension " + std::to_string(dims[i]) +
                                   " of shape " + bracketed(shape));
  Tensor t = graph.addVariable(type, shape, debugContext);
  // Each tile holds whole columns along the sliced dimensions, so a slice at
  // any offset finds its elements on the same tiles.
  std::size_t sliced = 1;
  for (std::size_t d : dims) sliced *= shape[d];
  const std::size_t columns = sliced == 0 ? 0 : productOf(shape) / sliced;
  if (columns <= 1) {
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
  const std::vector<unsigned> order = slicedFirst(static_cast<unsigned>(shape.size()), dims);
  const Tensor grid = t.dimShuffle(order).reshape({sliced, columns});
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t perTile = std::max<std::size_t>({(columns + tiles - 1) / tiles, minGrainSize, 1});
  // As intervals of the grid's flat order: one per tile and row (a single
  // mapping call, which is fast when the grid is the variable itself).
  poplar::Graph::TileToTensorMapping mapping(tiles);
  for (std::size_t begin = 0, tile = 0; begin < columns; begin += perTile, ++tile)
    for (std::size_t row = 0; row < sliced; ++row)
      mapping[tile % tiles].emplace_back(row * columns + begin,
                                         row * columns + std::min(columns, begin + perTile));
  graph.setTileMapping(grid, mapping);
  return t;
}

Tensor createSliceableTensor(poplar::Graph &graph, const Type &type, const std::vector<size_t> &shape,
                             const std::vector<size_t> &dims, const std::vector<size_t> &sizes,
                             const SlicePlan &, const poplar::OptionFlags &options,
                             const poplar::DebugContext &debugContext) {
  parseSliceOptions(options);
  return createSliceableTensor(graph, type, shape, dims, sizes, 0, debugContext);
}

Tensor createSliceTensor(poplar::Graph &graph, const Tensor &t, const std::vector<size_t> &dims,
                         const std::vector<size_t> &sizes, std::size_t numIndices,
                         const poplar::DebugContext &debugContext) {
  return createSliceTensor(graph, t.elementType(), t.shape(), dims, sizes, numIndices, SlicePlan(), {},
                           debugContext);
}

Tensor createSliceTensor(poplar::Graph &graph, const Type &type, const std::vector<std::size_t> &shape,
                         const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                         std::size_t numIndices, const SlicePlan &, const poplar::OptionFlags &options,
                         const poplar::DebugContext &debugContext) {
  parseSliceOptions(options);
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error("createSliceTensor: dims " + bracketed(dims) + " and sizes " +
                                 bracketed(sizes) + " differ in length");
  for (std::size_t d : dims)
    if (d >= shape.size())
      throw poputil::poplibs_error("createSliceTensor: dimension " + std::to_string(d) +
                                   " is out of range for shape " + bracketed(shape));
  std::vector<std::size_t> outShape = sliceShape(shape, dims, sizes);
  outShape.insert(outShape.begin(), numIndices);
  return createLinearOutput(graph, type, outShape, debugContext);
}

Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims,
                           std::size_t numIndices, const SlicePlan &, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext) {
  parseSliceOptions(options);
  return createLinearOutput(graph, poplar::UNSIGNED_INT, {numIndices, dims.size()}, debugContext);
}

Tensor createSliceableTensorFromSlice(poplar::Graph &graph, const Tensor &s,
                                      const std::vector<std::size_t> &dims,
                                      const std::vector<std::size_t> &numSlices,
                                      const poplar::DebugContext &debugContext) {
  if (dims.size() != numSlices.size())
    throw poputil::poplibs_error("createSliceableTensorFromSlice: dims " + bracketed(dims) +
                                 " and numSlices " + bracketed(numSlices) + " differ in length");
  std::vector<std::size_t> shape = s.shape(), sizes;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= shape.size())
      throw poputil::poplibs_error("createSliceableTensorFromSlice: dimension " + std::to_string(dims[i]) +
                                   " is out of range for " + describe(s));
    sizes.push_back(shape[dims[i]]);
    shape[dims[i]] *= numSlices[i];
  }
  return createSliceableTensor(graph, s.elementType(), shape, dims, sizes, 0, debugContext);
}

// ---------------------------------------------------------------- dynamic slices

Tensor createDynamicSliceOutput(poplar::Graph &graph, const Tensor &t, const Tensor &offset,
                                const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  parseSliceOptions(options);
  checkSliceArgs("createDynamicSliceOutput", t, offset, dims, sizes);
  return createSliceOutput(graph, t, dims, sizes, debugContext);
}

// Checks the arguments of dynamicSlice (slicing) or dynamicUpdate and adds the
// kernel moving `slice` out of or into `t` at `offset`.
static void addDynamicSlice(poplar::Graph &graph, bool slicing, const Tensor &t, const Tensor &slice,
                            const Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const char *name = slicing ? "dynamicSlice" : "dynamicUpdate";
  const SliceOptions o = parseSliceOptions(options);
  checkSliceArgs(name, t, offset, dims, sizes);
  checkSliceOutput(name, t, slice, dims, sizes);
  const std::vector<unsigned> order = slicedFirst(t.rank(), dims);
  poplar::detail::executeKernel(graph, prog,
                                dynamicSliceKernel(slicing, t.dimShuffle(order), slice.dimShuffle(order), offset,
                                                   geometryOf(t, dims, sizes), o),
                                debugContext);
}

void dynamicSliceWithOutput(poplar::Graph &graph, const Tensor &output, const Tensor &t,
                            const Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  addDynamicSlice(graph, true, t, output, offset, dims, sizes, prog, debugContext, options);
}

Tensor dynamicSlice(poplar::Graph &graph, const Tensor &t, const Tensor &offset,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &options) {
  parseSliceOptions(options);
  checkSliceArgs("dynamicSlice", t, offset, dims, sizes);
  Tensor out = createSliceOutput(graph, t, dims, sizes, {debugContext, "output"});
  dynamicSliceWithOutput(graph, out, t, offset, dims, sizes, prog, debugContext, options);
  return out;
}

std::vector<std::vector<poplar::Interval>> getSliceMapping(poplar::Graph &graph, const Tensor &t,
                                                           const std::vector<std::size_t> &dims,
                                                           const std::vector<std::size_t> &sizes) {
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error("getSliceMapping: dims " + bracketed(dims) + " and sizes " + bracketed(sizes) +
                                 " of the slice of " + describe(t) + " differ in length");
  return graph.getTileMapping(firstSliceOf(t, dims, sizes));
}

void dynamicUpdate(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offset,
                   const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options) {
  addDynamicSlice(graph, false, t, s, offset, dims, sizes, prog, debugContext, options);
}

// ---------------------------------------------------------------- multi-slices

namespace {

// Adds the kernel of a multi-slice or multi-update of `t` along dims[0].
void addMultiKernel(poplar::Graph &graph, const char *fn, const MultiOp &op, const Tensor &t,
                    const Tensor &slices, const Tensor &offsets, const Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  const SliceOptions o = parseSliceOptions(options);
  checkMultiArgs(fn, t, offsets, dims, sizes);
  const auto expected = multiSliceShape(t, offsets.dim(0), dims[0], sizes[0]);
  if (slices.shape() != expected || slices.elementType() != t.elementType())
    throw poputil::poplibs_error(std::string(fn) + ": slices " + describe(slices) + " do not match " +
                                 describe(t) + " sliced " + std::to_string(offsets.dim(0)) +
                                 " times to " + bracketed(expected));
  if (op.combines && !MultiUpdateTypes::contains(t.elementType()))
    throw poputil::poplibs_error(std::string(fn) + ": " + describe(t) + " has an unsupported element type");
  if (scale.valid() && (scale.numElements() != 1 || !CastTypes::contains(scale.elementType())))
    throw poputil::poplibs_error(std::string(fn) + ": the scale " + describe(scale) +
                                 " must be one numeric element");
  const Tensor base = t.dimShuffle(slicedFirst(t.rank(), dims));
  poplar::detail::executeKernel(
      graph, prog, multiKernel(op, base, slicesAsRows(slices, dims[0]), offsets, scale, sizes[0], o),
      debugContext);
}

// Offsets known when the graph is built, as a constant [n, 1] tensor; each must
// be inside dimension `dim` of t.
Tensor constantOffsets(poplar::Graph &graph, const char *fn, const Tensor &t,
                       poplar::ArrayRef<unsigned> offsets, std::size_t dim,
                       const poplar::DebugContext &debugContext) {
  if (dim >= t.rank())
    throw poputil::poplibs_error(std::string(fn) + ": dimension " + std::to_string(dim) +
                                 " is out of range for " + describe(t));
  for (unsigned o : offsets)
    if (o >= t.dim(dim))
      throw poputil::poplibs_error(std::string(fn) + ": offset " + std::to_string(o) +
                                   " is out of range for dimension " + std::to_string(dim) + " of " +
                                   describe(t));
  Tensor c = graph.addConstant(poplar::UNSIGNED_INT, {offsets.size(), 1}, offsets.data(),
                               {debugContext, "offsets"});
  graph.setTileMapping(c, 0);
  return c;
}

} // namespace

Tensor multiSlice(poplar::Graph &graph, const Tensor &t, const Tensor &offsets,
                  const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                  poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &options,
                  const poplar::DebugContext &debugContext) {
  checkMultiArgs("multiSlice", t, offsets, dims, sizes);
  Tensor out = createLinearOutput(graph, t.elementType(), multiSliceShape(t, offsets.dim(0), dims[0], sizes[0]),
                                  {debugContext, "output"});
  addMultiKernel(graph, "multiSlice", {true}, t, out, offsets, Tensor(), dims, sizes, prog, options,
                 debugContext);
  return out;
}

Tensor multiSlice(poplar::Graph &graph, const Tensor &t, poplar::ArrayRef<unsigned> offsets,
                  std::size_t dim, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &optionFlags) {
  const Tensor indices = constantOffsets(graph, "multiSlice", t, offsets, dim, debugContext);
  return multiSlice(graph, t, indices, {dim}, {1}, prog, SlicePlan(), optionFlags, debugContext);
}

void multiUpdate(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                 poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext) {
  addMultiKernel(graph, "multiUpdate", {false}, t, s, offsets, Tensor(), dims, sizes, prog, options,
                 debugContext);
}

void multiUpdateAdd(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                    const Tensor &scale, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  addMultiKernel(graph, "multiUpdateAdd", {false, true, Combine::Add}, t, s, offsets, scale, dims, sizes,
                 prog, options, debugContext);
}

void multiUpdateAdd(poplar::Graph &graph, const Tensor &t, const Tensor &s,
                    poplar::ArrayRef<unsigned> offsets, const Tensor &scale, std::size_t dim,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &optionFlags) {
  const Tensor indices = constantOffsets(graph, "multiUpdateAdd", t, offsets, dim, debugContext);
  multiUpdateAdd(graph, t, s, indices, scale, {dim}, {1}, prog, SlicePlan(), optionFlags, debugContext);
}

void multiUpdateMax(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  addMultiKernel(graph, "multiUpdateMax", {false, true, Combine::Max}, t, s, offsets, Tensor(), dims, sizes,
                 prog, options, debugContext);
}

void multiUpdateMul(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  addMultiKernel(graph, "multiUpdateMul", {false, true, Combine::Mul}, t, s, offsets, Tensor(), dims, sizes,
                 prog, options, debugContext);
}

namespace embedding {

SlicePlan plan(const poplar::Graph &, const Type &dataType, std::size_t numEntries,
               std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options) {
  parseSliceOptions(options);
  auto internal = std::make_unique<SlicePlanInternal>();
  internal->isNull = false;
  internal->dataType = dataType.toString().str();
  internal->numEntries = numEntries;
  internal->outputSize = outputSize;
  internal->numLookups = numLookups;
  return SlicePlan(std::move(internal));
}

} // namespace embedding

} // namespace popops
