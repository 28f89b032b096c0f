// Causal attention softmax(Q K^T + M) V, M = -10000 above the diagonal, over query and
// key/value chunks as SDK users write it: chunks sliced by counters in nested Repeats,
// blocks wholly above the diagonal skipped with an If, an online softmax (running
// maximum and sum per query row), and each query chunk's rows and log-sum-exp written
// back with dynamicUpdate. Prints the output and log-sum-exp of qkv[i] = sin(0.37 i).
// Usage: flash_attention [groups length depth queryChunks keyChunks]
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Fill.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;

namespace {

// A one-element UNSIGNED_INT counter, zeroed by `prog`.
Tensor addCounter(Graph &graph, Sequence &prog, const std::string &name) {
  Tensor counter = graph.addVariable(UNSIGNED_INT, {1}, name);
  graph.setTileMapping(counter, 0);
  popops::zero(graph, counter, prog, name + "=0");
  return counter;
}

// x [G, L, D] as chunks [n, G, L/n, D], copied into a tensor laid out for slicing chunks.
Tensor sliceableChunks(Graph &graph, const Tensor &x, std::size_t n, Sequence &prog, const std::string &name) {
  const std::size_t groups = x.dim(0), length = x.dim(1), depth = x.dim(2);
  Tensor chunks = popops::createSliceableTensor(graph, x.elementType(), {n, groups, length / n, depth}, {0}, {1},
                                                0, name);
  prog.add(Copy(x.reshape({groups, n, length / n, depth}).dimShuffle({1, 0, 2, 3}), chunks));
  return chunks;
}

Tensor at(Graph &graph, const Tensor &t, const Tensor &index, Sequence &prog, const std::string &name) {
  return popops::dynamicSlice(graph, t, index, {0}, {1}, prog, name).squeeze({0});
}

// Adds -10000 to the scores of block (i, j) where key position > query position.
void maskAboveDiagonal(Graph &graph, const Tensor &scores, const Tensor &i, const Tensor &j, Sequence &prog) {
  const std::size_t rows = scores.dim(1), cols = scores.dim(2), groups = scores.dim(0);
  std::vector<unsigned> rowIds, colIds;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      rowIds.push_back(static_cast<unsigned>(r));
      colIds.push_back(static_cast<unsigned>(c));
    }
  Tensor rowId = graph.addConstant<unsigned>(UNSIGNED_INT, {rows, cols}, rowIds, "row");
  Tensor colId = graph.addConstant<unsigned>(UNSIGNED_INT, {rows, cols}, colIds, "col");
  poputil::mapTensorLinearly(graph, rowId);
  poputil::mapTensorLinearly(graph, colId);
  auto everywhere = [&](const Tensor &counter) { return counter.reshape({}).expand({0, 0}).broadcast(
      static_cast<unsigned>(rows), 0).broadcast(static_cast<unsigned>(cols), 1); };
  const auto queryPos = pe::_1 + pe::_2 * static_cast<unsigned>(rows);
  const auto keyPos = pe::_3 + pe::_4 * static_cast<unsigned>(cols);
  Tensor mask = popops::map(graph, pe::Select(pe::Const(-10000.0f), pe::Const(0.0f), keyPos > queryPos),
                            {rowId, everywhere(i), colId, everywhere(j)}, prog, "mask");
  popops::addInPlace(graph, scores, mask.expand({0}).broadcast(static_cast<unsigned>(groups), 0), prog, "scores+=mask");
}

struct Attention {
  Tensor out;       // [nq, G, L/nq, D]
  Tensor logSumExp; // [nq, G, L/nq]
};

Attention causalAttention(Graph &graph, const Tensor &qkv, std::size_t nq, std::size_t nkv, Sequence &prog) {
  const std::size_t groups = qkv.dim(1), length = qkv.dim(2), depth = qkv.dim(3);
  const std::size_t queryRows = length / nq, keyRows = length / nkv;
  Tensor query = sliceableChunks(graph, qkv[0], nq, prog, "query");
  Tensor key = sliceableChunks(graph, qkv[1], nkv, prog, "key");
  Tensor value = sliceableChunks(graph, qkv[2], nkv, prog, "value");
  Attention result{graph.clone(query, "out"), graph.addVariable(FLOAT, {nq, groups, queryRows}, "logSumExp")};
  poputil::mapTensorLinearly(graph, result.logSumExp);
  Tensor i = addCounter(graph, prog, "i");

  Sequence queryLoop;
  Tensor j = addCounter(graph, queryLoop, "j");
  Tensor q = at(graph, query, i, queryLoop, "q_i");
  Tensor rowMax = graph.addVariable(FLOAT, {groups, queryRows}, "m");
  Tensor rowSum = graph.clone(rowMax, "l");
  Tensor acc = graph.clone(q, "o_i");
  poputil::mapTensorLinearly(graph, rowMax);
  poputil::mapTensorLinearly(graph, rowSum);
  popops::fill(graph, rowMax, queryLoop, -10000.0f, "m=-10000");
  popops::zero(graph, rowSum, queryLoop, "l=0");
  popops::zero(graph, acc, queryLoop, "o_i=0");

  Sequence block;
  Tensor k = at(graph, key, j, block, "k_j"), v = at(graph, value, j, block, "v_j");
  Tensor scores = poplin::matMulGrouped(graph, q, k.dimShuffle({0, 2, 1}), block, FLOAT, "s=q@k.T");
  maskAboveDiagonal(graph, scores, i, j, block);
  Tensor newMax = popops::max(graph, rowMax, popops::reduce(graph, scores, FLOAT, {2}, popops::Operation::MAX, block),
                              block, "m_new");
  Tensor rescale = popops::map(graph, pe::Exp(pe::_1 - pe::_2), {rowMax, newMax}, block, "c=exp(m-m_new)");
  popops::mapInPlace(graph, pe::Exp(pe::_1 - pe::_2), {scores, newMax.expand({2}).broadcast(
      static_cast<unsigned>(keyRows), 2)}, block, "p=exp(s-m_new)");
  popops::mapInPlace(graph, pe::_1 * pe::_2 + pe::_3,
                     {rowSum, rescale, popops::reduce(graph, scores, FLOAT, {2}, popops::Operation::ADD, block)},
                     block, "l=l*c+sum(p)");
  popops::mulInPlace(graph, acc, rescale.expand({2}).broadcast(static_cast<unsigned>(depth), 2), block, "o_i*=c");
  poplin::matMulGroupedAcc(graph, acc, 1.0f, scores, v, block, "o_i+=p@v");
  block.add(Copy(newMax, rowMax));

  Sequence keyLoop;
  // Block (i, j) has a key at or before some query unless it lies wholly above the diagonal.
  Tensor needed = popops::map(graph, (pe::_1 + 1u) * static_cast<unsigned>(queryRows) >
                                         pe::_2 * static_cast<unsigned>(keyRows),
                              {i, j}, keyLoop, "needed");
  keyLoop.add(If(needed.reshape({}), block, Sequence()));
  popops::addInPlace(graph, j, 1u, keyLoop, "j+=1");
  queryLoop.add(Repeat(static_cast<unsigned>(nkv), keyLoop));

  popops::divInPlace(graph, acc, rowSum.expand({2}).broadcast(static_cast<unsigned>(depth), 2), queryLoop, "o_i/=l");
  Tensor lse = popops::map(graph, pe::_1 + pe::Log(pe::_2), {rowMax, rowSum}, queryLoop, "m+log(l)");
  popops::dynamicUpdate(graph, result.out, acc.expand({0}), i, {0}, {1}, queryLoop, "out[i]=o_i");
  popops::dynamicUpdate(graph, result.logSumExp, lse.expand({0}), i, {0}, {1}, queryLoop, "lse[i]=..");
  popops::addInPlace(graph, i, 1u, queryLoop, "i+=1");
  prog.add(Repeat(static_cast<unsigned>(nq), queryLoop));
  return result;
}

void print(const char *label, const std::vector<float> &values) {
  std::cout << label;
  for (float x : values) std::cout << ' ' << x;
  std::cout << '\n';
}

} // namespace

int main(int argc, char **argv) {
  std::size_t shape[5] = {2, 8, 4, 2, 4}; // groups, length, depth, query chunks, key chunks
  for (int a = 1; a < argc && a <= 5; ++a) shape[a - 1] = std::strtoul(argv[a], nullptr, 10);
  const std::size_t groups = shape[0], length = shape[1], depth = shape[2], nq = shape[3], nkv = shape[4];

  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);

  Tensor qkv = graph.addVariable(FLOAT, {3, groups, length, depth}, "qkv");
  poputil::mapTensorLinearly(graph, qkv);
  graph.createHostWrite("qkv", qkv);
  Sequence prog;
  Attention attention = causalAttention(graph, qkv, nq, nkv, prog);
  // Back to [G, L, D] and [G, L] row order for the host.
  graph.createHostRead("out", attention.out.dimShuffle({1, 0, 2, 3}).reshape({groups, length, depth}));
  graph.createHostRead("lse", attention.logSumExp.dimShuffle({1, 0, 2}).reshape({groups, length}));

  Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> host(3 * groups * length * depth);
  for (std::size_t e = 0; e < host.size(); ++e) host[e] = static_cast<float>(std::sin(0.37 * static_cast<double>(e)));
  engine.writeTensor("qkv", host.data(), host.data() + host.size());
  engine.run(0);
  std::vector<float> out(groups * length * depth), lse(groups * length);
  engine.readTensor("out", out.data(), out.data() + out.size());
  engine.readTensor("lse", lse.data(), lse.data() + lse.size());
  print("out:", out);
  print("lse:", lse);
  return 0;
}
