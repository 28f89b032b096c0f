#pragma once
#include <cstddef>
#include <memory>
#include <ostream>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

namespace popops {

class SlicePlanInternal;

// How a multi-slice or multi-update is laid out. The default plan is the "null
// plan"; embedding::plan makes a real one. The emulator's kernels do not need a
// plan, so it only records what it was made for.
class SlicePlan {
public:
  SlicePlan();
  ~SlicePlan();
  SlicePlan(const SlicePlan &other);
  SlicePlan(SlicePlan &&other);
  SlicePlan &operator=(const SlicePlan &other);
  SlicePlan &operator=(SlicePlan &&other);
  explicit SlicePlan(std::unique_ptr<SlicePlanInternal> internal);

  SlicePlanInternal &getImpl() const { return *internal; }

  friend std::ostream &operator<<(std::ostream &o, const SlicePlan &p);
  friend bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
  friend bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;

private:
  std::unique_ptr<SlicePlanInternal> internal;
};
bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept;
std::ostream &operator<<(std::ostream &o, const SlicePlan &p);

// A variable of `shape` spread over the tiles so that every tile holds whole
// slices along `dims` (at least minGrainSize elements of a slice per tile).
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<size_t> &shape,
                                     const std::vector<size_t> &dims,
                                     const std::vector<size_t> &sizes,
                                     std::size_t minGrainSize = 0,
                                     const poplar::DebugContext &debugContext = {});
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<size_t> &shape,
                                     const std::vector<size_t> &dims,
                                     const std::vector<size_t> &sizes, const SlicePlan &plan,
                                     const poplar::OptionFlags &options,
                                     const poplar::DebugContext &debugContext = {});
// A mapped variable of shape [numIndices, t's shape with dims[i] replaced by sizes[i]].
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Tensor &t,
                                 const std::vector<size_t> &dims, const std::vector<size_t> &sizes,
                                 std::size_t numIndices,
                                 const poplar::DebugContext &debugContext = {});
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &shape,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const SlicePlan &plan, const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext = {});
// A mapped UNSIGNED_INT variable of shape [numIndices, dims.size()].
poplar::Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims,
                                   std::size_t numIndices, const SlicePlan &plan,
                                   const poplar::OptionFlags &options,
                                   const poplar::DebugContext &debugContext = {});
// A sliceable tensor of s's shape with dims[i] multiplied by numSlices[i].
poplar::Tensor createSliceableTensorFromSlice(poplar::Graph &graph, const poplar::Tensor &s,
                                              const std::vector<std::size_t> &dims,
                                              const std::vector<std::size_t> &numSlices,
                                              const poplar::DebugContext &debugContext = {});

// The slice of `t` of size sizes[i] along dims[i] starting at offset[i], read
// from the device (UNSIGNED_INT, or INT read as unsigned) each time the program
// runs. Indices wrap modulo the dimension; an offset >= the dimension skips the
// slice (the output keeps its old value; with several dims, any such offset
// skips it all). Options: remapOutOfBoundIndices=true slices at 0 instead;
// paddingIndexUsed=true makes offset == the dimension a padding slot that
// slices as zeros (and is skipped by updates). The multi-slice functions apply
// the same rules to each index.
poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t,
                            const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes,
                            poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {});
poplar::Tensor createDynamicSliceOutput(poplar::Graph &graph, const poplar::Tensor &t,
                                        const poplar::Tensor &offset,
                                        const std::vector<std::size_t> &dims,
                                        const std::vector<std::size_t> &sizes,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});
void dynamicSliceWithOutput(poplar::Graph &graph, const poplar::Tensor &output,
                            const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes,
                            poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {});
// Where a slice's elements live: the mapping of the slice at offset 0.
std::vector<std::vector<poplar::Interval>> getSliceMapping(poplar::Graph &graph,
                                                           const poplar::Tensor &t,
                                                           const std::vector<std::size_t> &dims,
                                                           const std::vector<std::size_t> &sizes);
// Writes `s` into `t` at `offset`, with the same index rules as dynamicSlice.
void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

// One slice per row of `offsets` ([numIndices, 1]); the result is
// [numIndices, t's shape with dims[0] replaced by sizes[0]].
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                          const SlicePlan &plan, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext = {});
// Slices at offsets known when the graph is built; each must be in range.
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          poplar::ArrayRef<unsigned> offsets, std::size_t dim,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &optionFlags = {});
// t[offsets[i]] = s[i], in index order.
void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                 const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                 const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &plan, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext = {});
// t[offsets[i]] += scale * s[i]; repeated indices accumulate.
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const poplar::Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &plan,
                    const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});
// With offsets known when the graph is built; each must be in range.
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    poplar::ArrayRef<unsigned> offsets, const poplar::Tensor &scale,
                    std::size_t dim, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &optionFlags = {});
// t[offsets[i]] = max(t[offsets[i]], s[i]) and t[offsets[i]] *= s[i].
void multiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});
void multiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

// Grouped forms: t, s and offsets have a leading group dimension (the plan's groupSize,
// from the grouped embedding::plan), and `dims` name dimensions within a group; group
// g slices or updates t[g] with offsets[g] ([numIndices, 1]) and s[g].
poplar::Tensor createGroupedSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                            const std::size_t groupSize, const std::vector<std::size_t> &shape,
                                            const std::vector<std::size_t> &dims,
                                            const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                                            const poplar::OptionFlags &options,
                                            const poplar::DebugContext &debugContext = {});
// [groupSize, numIndices, shape with dims resized to sizes].
poplar::Tensor createGroupedSliceTensor(poplar::Graph &graph, const poplar::Type &type,
                                        const std::size_t groupSize, const std::vector<std::size_t> &shape,
                                        const std::vector<std::size_t> &dims,
                                        const std::vector<std::size_t> &sizes, const std::size_t numIndices,
                                        const SlicePlan &plan, const poplar::OptionFlags &options,
                                        const poplar::DebugContext &debugContext = {});
// UNSIGNED_INT [groupSize, numIndices, dims.size()].
poplar::Tensor createGroupedIndicesTensor(poplar::Graph &graph, const std::size_t groupSize,
                                          const std::vector<std::size_t> &dims, const std::size_t numIndices,
                                          const SlicePlan &plan, const poplar::OptionFlags &options,
                                          const poplar::DebugContext &debugContext = {});
poplar::Tensor groupedMultiSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offsets,
                                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                                 poplar::program::Sequence &prog, const SlicePlan &plan,
                                 const poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});
void groupedMultiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                        const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                        const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                        const SlicePlan &plan, const poplar::OptionFlags &options,
                        const poplar::DebugContext &debugContext = {});
void groupedMultiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const poplar::Tensor &scale,
                           const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                           poplar::program::Sequence &prog, const SlicePlan &plan,
                           const poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});
void groupedMultiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext = {});
void groupedMultiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext = {});

namespace embedding {
// A plan for slicing a [numEntries, outputSize] table with the given lookup counts.
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, const std::size_t numEntries,
               const std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options);
// The same for groupSize independent tables (the grouped operations).
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, const std::size_t groupSize,
               const std::size_t numEntries, const std::size_t outputSize,
               const std::vector<std::size_t> &numLookups, const poplar::OptionFlags &options);

// What plan() takes, for planning several operations at once.
struct SlicePlanningParameters {
  const poplar::Graph &graph;
  const poplar::Type dataType;
  const std::size_t groupSize = 1;
  const std::size_t numEntries;
  const std::size_t outputSize;
  const std::vector<std::size_t> numLookups;
  const poplar::OptionFlags optionFlags;

  SlicePlanningParameters(const poplar::Graph &graph, const poplar::Type &dataType, const std::size_t groupSize,
                          const std::size_t numEntries, const std::size_t outputSize,
                          const std::vector<std::size_t> &numLookups, const poplar::OptionFlags &optionFlags)
      : graph(graph), dataType(dataType), groupSize(groupSize), numEntries(numEntries), outputSize(outputSize),
        numLookups(numLookups), optionFlags(optionFlags) {}
  SlicePlanningParameters(const poplar::Graph &graph, const poplar::Type &dataType, const std::size_t numEntries,
                          const std::size_t outputSize, const std::vector<std::size_t> &numLookups,
                          const poplar::OptionFlags &optionFlags)
      : graph(graph), dataType(dataType), numEntries(numEntries), outputSize(outputSize), numLookups(numLookups),
        optionFlags(optionFlags) {}
};

// One plan per parameter set, each as plan() makes it.
std::vector<SlicePlan> planMultiple(const std::vector<SlicePlanningParameters> &spds);
} // namespace embedding

} // namespace popops
