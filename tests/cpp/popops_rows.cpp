// The smaller popops headers as SDK-era programs use them: one-hot labels and index
// ranges, counted loops, sorts, top-k, gathers, histograms, a circular history,
// row-wise selects and updates, and the checks for NaN and all-true. Prints one line per result for the test to compare with numpy.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/AllTrue.hpp>
#include <popops/CircBuf.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Encoding.hpp>
#include <popops/Gather.hpp>
#include <popops/GatherStatistics.hpp>
#include <popops/Loop.hpp>
#include <popops/NaN.hpp>
#include <popops/SelectScalarFromRows.hpp>
#include <popops/Sort.hpp>
#include <popops/TopK.hpp>
#include <popops/UpdateScalarInRows.hpp>
#include <popops/Zero.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Printed {
  std::string label;
  Tensor tensor;
};

// x[i] = 10 sin(0.37 i): distinct values in no particular order.
std::vector<float> wave(std::size_t n) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(10.0 * std::sin(0.37 * double(i)));
  return values;
}

// k[i] = (3 i) mod 5: keys with ties.
std::vector<int> tiedKeys(std::size_t n) {
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = int((3 * i) % 5);
  return values;
}

Tensor mapped(Graph &graph, const Type &type, std::vector<std::size_t> shape, const std::string &name) {
  Tensor t = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

template <typename T> void printRead(Engine &engine, const Printed &p) {
  std::vector<T> host(p.tensor.numElements());
  engine.readTensor(p.label, host.data(), host.data() + host.size());
  std::cout << p.label << ":";
  for (const T &v : host) std::cout << ' ' << +v; // + prints a BOOL's byte as a number
  std::cout << '\n';
}

} // namespace

int main() {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  std::vector<Printed> floats, ints, unsigneds, bools;

  // Ranges and one-hot encodings.
  Tensor signedRange = mapped(graph, INT, {6}, "signedRange");
  popops::iota(graph, signedRange, -3, prog, "iota-int");
  Tensor unsignedRange = mapped(graph, UNSIGNED_INT, {5}, "unsignedRange");
  popops::iota(graph, unsignedRange, 5u, prog);
  Tensor offset = mapped(graph, UNSIGNED_INT, {1}, "offset");
  graph.createHostWrite("offset", offset);
  Tensor offsetRange = mapped(graph, UNSIGNED_INT, {4}, "offsetRange");
  popops::iotaWithOffset(graph, offsetRange, offset, prog);
  Tensor labels = graph.addConstant<unsigned>(UNSIGNED_INT, {4}, {2u, 0u, MASKED_LABEL_CODE, 4u}, "labels");
  graph.setTileMapping(labels, 1);
  Tensor oneHot = mapped(graph, FLOAT, {4, 5}, "oneHot");
  popops::encodeOneHot(graph, labels, oneHot, prog, "oneHot");
  Tensor on = graph.addConstant<int>(INT, {1}, 7, "on");
  Tensor off = graph.addConstant<int>(INT, {1}, -1, "off");
  graph.setTileMapping(on, 0);
  graph.setTileMapping(off, 0);
  Tensor oneHotOnOff = mapped(graph, INT, {4, 5}, "oneHotOnOff");
  popops::encodeOneHot(graph, labels, oneHotOnOff, prog, on, off);
  unsigneds.push_back({"unsignedRange", unsignedRange});
  unsigneds.push_back({"offsetRange", offsetRange});
  ints.push_back({"signedRange", signedRange});
  floats.push_back({"oneHot", oneHot});
  ints.push_back({"oneHotOnOff", oneHotOnOff});

  // Counted loops: the sum of the counters each pass saw.
  Tensor counterSum = mapped(graph, UNSIGNED_INT, {1}, "counterSum");
  popops::zero(graph, counterSum, prog);
  prog.add(popops::countedLoop(graph, 2, 11, 3, [&](const Tensor &i) {
    Sequence body;
    popops::addInPlace(graph, counterSum, i, body);
    return body;
  }));
  Tensor passes = mapped(graph, UNSIGNED_INT, {1}, "passes");
  popops::zero(graph, passes, prog);
  Tensor one = graph.addConstant<unsigned>(UNSIGNED_INT, {1}, 1u, "one");
  graph.setTileMapping(one, 0);
  prog.add(popops::countedLoop(graph, 4, [&](const Tensor &) {
    Sequence body;
    popops::addInPlace(graph, passes, one, body);
    return body;
  }));
  Tensor count = mapped(graph, INT, {1}, "count");
  Tensor limit = mapped(graph, INT, {1}, "limit");
  graph.createHostWrite("limit", limit);
  Tensor forSum = mapped(graph, INT, {1}, "forSum");
  popops::zero(graph, forSum, prog);
  Sequence forBody;
  popops::addInPlace(graph, forSum, count, forBody);
  prog.add(popops::countedForLoop(graph, count, 10, limit, -3, forBody, "countdown"));
  Tensor upPasses = mapped(graph, INT, {1}, "upPasses");
  popops::zero(graph, upPasses, prog);
  Tensor oneInt = graph.addConstant<int>(INT, {1}, 1, "oneInt");
  graph.setTileMapping(oneInt, 0);
  Sequence upBody;
  popops::addInPlace(graph, upPasses, oneInt, upBody);
  Tensor upLimit = graph.addConstant<int>(INT, {1}, 6, "upLimit");
  graph.setTileMapping(upLimit, 0);
  prog.add(popops::countedForLoop(graph, 0, upLimit, 2, upBody));
  unsigneds.push_back({"counterSum", counterSum});
  unsigneds.push_back({"passes", passes});
  ints.push_back({"forSum", forSum});
  ints.push_back({"upPasses", upPasses});

  // Sorts of a [3][7] matrix along either dimension, and by tied keys.
  Tensor matrix = graph.addConstant<float>(FLOAT, {3, 7}, wave(21), "matrix");
  poputil::mapTensorLinearly(graph, matrix);
  floats.push_back({"sortRows", popops::sort(graph, matrix, 1, prog, "sortRows")});
  Tensor columns = mapped(graph, FLOAT, {3, 7}, "sortColumns");
  prog.add(Copy(matrix, columns));
  popops::sortInPlace(graph, columns, 0, prog);
  floats.push_back({"sortColumns", columns});
  Tensor keys = graph.addConstant<int>(INT, {2, 8}, tiedKeys(16), "keys");
  poputil::mapTensorLinearly(graph, keys);
  Tensor positions = mapped(graph, UNSIGNED_INT, {16}, "positions");
  popops::iota(graph, positions, 0u, prog);
  unsigneds.push_back({"sortKeyValue", popops::sortKeyValue(graph, keys, positions.reshape({2, 8}), 1, prog)});
  Tensor keysCopy = mapped(graph, INT, {2, 8}, "keysSorted");
  prog.add(Copy(keys, keysCopy));
  Tensor valuesCopy = mapped(graph, FLOAT, {2, 8}, "valuesSorted");
  prog.add(Copy(matrix.flatten().slice(0, 16).reshape({2, 8}), valuesCopy));
  popops::sortKeyValueInPlace(graph, keysCopy, valuesCopy, 1, prog);
  ints.push_back({"keysSorted", keysCopy});
  floats.push_back({"valuesSorted", valuesCopy});

  // Top k of each row.
  const popops::TopKParams largest3(3, true, popops::SortOrder::DESCENDING);
  floats.push_back({"topLargest", popops::topK(graph, prog, matrix, largest3)});
  const popops::TopKParams smallest2(2, false, popops::SortOrder::NONE);
  floats.push_back({"topSmallestUnordered", popops::topK(graph, prog, matrix, smallest2)});
  const popops::TopKParams ascending4(4, true, popops::SortOrder::ASCENDING, true);
  auto withPermutation = popops::topKWithPermutation(graph, prog, keys, ascending4);
  ints.push_back({"topKeys", withPermutation.first});
  unsigneds.push_back({"topPositions", withPermutation.second});
  Tensor topInput = popops::createTopKInput(graph, FLOAT, {3, 7}, largest3, "topInput");
  prog.add(Copy(matrix, topInput));
  Tensor payload = graph.addConstant<int>(INT, {3, 7}, tiedKeys(21), "payload");
  poputil::mapTensorLinearly(graph, payload);
  auto keyValue =
      popops::topKKeyValue(graph, prog, topInput, payload, popops::TopKParams(2, false, popops::SortOrder::ASCENDING));
  floats.push_back({"keyValueKeys", keyValue.first});
  ints.push_back({"keyValueValues", keyValue.second});

  // Columns 6 and 0 of each row; counts below -5, in [-5, 0), [0, 5) and from 5 up.
  Tensor columnPicks = graph.addConstant<int>(INT, {2}, {6, 0}, "columnPicks");
  graph.setTileMapping(columnPicks, 0);
  floats.push_back({"gathered", popops::gather(graph, matrix, columnPicks, 1, prog, popops::GatherParams())});
  Tensor levels = graph.addConstant<float>(FLOAT, {3}, {-5.0f, 0.0f, 5.0f}, "levels");
  graph.setTileMapping(levels, 1);
  unsigneds.push_back({"histogram", popops::histogram(graph, matrix, levels, false, prog)});

  // A history of two rows, the matrix's rows added in turn by a counted loop.
  popops::CircBuf history(graph, FLOAT, 2, {7}, "history");
  prog.add(popops::countedLoop(graph, 3, [&](const Tensor &row) {
    Sequence body;
    history.add(popops::dynamicSlice(graph, matrix, row, {0}, {1}, body).reshape({7}), body);
    return body;
  }));
  floats.push_back({"newest", history.prev(0, prog)});
  floats.push_back({"older", history.prev(1, prog)});

  // Row-wise scalars: an index past the row and a masked label in the last rows.
  Tensor picks = graph.addConstant<unsigned>(UNSIGNED_INT, {3}, {4u, 9u, MASKED_LABEL_CODE}, "picks");
  graph.setTileMapping(picks, 2);
  floats.push_back({"selected", popops::selectScalarFromRows(graph, matrix, picks, prog)});
  Tensor updated = mapped(graph, FLOAT, {3, 7}, "updated");
  prog.add(Copy(matrix, updated));
  popops::updateScalarInRows(graph, updated, picks, prog);
  floats.push_back({"updated", updated});

  // Whole-tensor checks.
  Tensor flags = graph.addConstant<bool>(BOOL, {4}, {true, true, false, true}, "flags");
  graph.setTileMapping(flags, 3);
  bools.push_back({"allTrue", popops::allTrue(graph, flags, prog)});
  bools.push_back({"allTrueOfRest", popops::allTrue(graph, flags.slice(0, 2), prog)});
  bools.push_back({"hasNaN", popops::hasNaN(graph, updated, prog)});
  bools.push_back({"hasNaNOfFirstRow", popops::hasNaN(graph, updated[0], prog)});
  Tensor ratios = popops::div(graph, oneHot, oneHot, prog); // 0/0 and 1/1: NaN and 1
  bools.push_back({"hasNaNOrInfOfRatios", popops::hasNaNOrInf(graph, ratios.slice(0, 2, 1), prog)});
  bools.push_back({"hasNaNOrInfOfMatrix", popops::hasNaNOrInf(graph, matrix, prog)});

  for (auto *group : {&floats, &ints, &unsigneds, &bools})
    for (const Printed &p : *group) graph.createHostRead(p.label, p.tensor);
  Engine engine(graph, prog);
  engine.load(device);
  const unsigned hostOffset = 11;
  const int hostLimit = -2;
  engine.writeTensor("offset", &hostOffset, &hostOffset + 1);
  engine.writeTensor("limit", &hostLimit, &hostLimit + 1);
  engine.run(0);
  std::cout << std::setprecision(9);
  for (const Printed &p : floats) printRead<float>(engine, p);
  for (const Printed &p : ints) printRead<int>(engine, p);
  for (const Printed &p : unsigneds) printRead<unsigned>(engine, p);
  for (const Printed &p : bools) printRead<unsigned char>(engine, p);
  std::cout << "params: " << largest3 << ' ' << popops::SortOrder::NONE << '\n';
  return 0;
}
