// Row totals and a scaled add with custom vertices, one row per tile, data
// streamed in and out. Built like an SDK program: g++ row_ops.cpp -lpoplar -lpoputil.
// It uses atoi, printf and strcmp without including their headers, as SDK
// headers provide them.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

static Device modelDevice(const char *version) {
  IPUModel model(version);
  model.minIPUSyncDelay = 0;
  model.relativeSyncDelay = IPUModel::RelativeSyncDelayType::NO_DELAY;
  return model.createDevice();
}

int main(int argc, char **argv) {
  unsigned rows = argc > 1 ? unsigned(atoi(argv[1])) : 6;
  unsigned cols = argc > 2 ? unsigned(atoi(argv[2])) : 5;
  const char *version = argc > 3 ? argv[3] : "ipu2";
  if (strcmp(version, "hw") == 0) {
    // Hardware path: compiles against the SDK API; the emulator lists no IPUs.
    DeviceManager manager = DeviceManager::createDeviceManager();
    std::vector<Device> devices = manager.getDevices(TargetType::IPU, 1);
    printf("hardware IPUs: %u\n", unsigned(devices.size()));
    return devices.empty() ? 2 : 0;
  }

  Device device;
  device = modelDevice(version);
  const Target &target = device.getTarget();
  printf("target %s: %u tiles, %u workers, %u exchange bytes/cycle\n", version,
         target.getNumTiles(), target.getNumWorkerContexts(),
         target.getExchangeBytesPerCycle());

  Graph graph(device);
  graph.addCodelets("row_ops_codelets.cpp");

  Tensor matrix = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor totals = graph.addVariable(FLOAT, {rows}, "totals");
  Tensor counts = graph.addVariable(INT, {rows}, "counts");
  Tensor steps = graph.addConstant<int>(INT, {rows}, std::vector<int>(rows, 1).data());
  poputil::mapTensorLinearly(graph, counts);
  poputil::mapTensorLinearly(graph, steps);

  ComputeSet totalCS = graph.addComputeSet("rowTotals");
  for (unsigned r = 0; r < rows; ++r) {
    unsigned tile = r % target.getNumTiles();
    graph.setTileMapping(matrix[r], tile);
    graph.setTileMapping(totals[r], tile);
    VertexRef v = graph.addVertex(totalCS, "RowTotal");
    graph.connect(v["row"], matrix[r]);
    graph.connect(v["total"], totals[r]);
    graph.setTileMapping(v, tile);
    graph.setPerfEstimate(v, 10 + cols);
  }

  ComputeSet scaleCS = graph.addComputeSet("scaleAdd");
  VertexRef fv = graph.addVertex(scaleCS, "ScaleAdd<float>",
                                 {{"x", totals}, {"y", matrix.slice(0, 1, 1).flatten()}});
  graph.setInitialValue(fv["scale"], 0.5f);
  graph.setTileMapping(fv, 0);
  VertexRef iv = graph.addVertex(scaleCS, "ScaleAdd<int>", {{"x", steps}, {"y", counts}});
  graph.setInitialValue(iv["scale"], 3);
  graph.setTileMapping(iv, 0);

  DataStream in = graph.addHostToDeviceFIFO("matrix-in", FLOAT, rows * cols);
  DataStream out = graph.addDeviceToHostFIFO("matrix-out", FLOAT, rows * cols);
  DataStream countsOut = graph.addDeviceToHostFIFO("counts-out", INT, rows);

  Sequence prog({Copy(in, matrix), Execute(totalCS), Execute(scaleCS), Copy(matrix, out),
                 Copy(counts, countsOut), PrintTensor("totals", totals)});
  Tensor zeros = graph.addConstant<int>(INT, {rows}, 0);
  graph.setTileMapping(zeros, 0);
  Sequence zero;
  zero.add(Copy(zeros, counts));

  Engine engine(graph, {zero, prog}, OptionFlags{{"debug.instrument", "false"}});
  engine.load(device);
  std::vector<float> hostIn(rows * cols), hostOut(rows * cols);
  std::vector<int> hostCounts(rows);
  for (unsigned i = 0; i < rows * cols; ++i)
    hostIn[i] = float(i % 7) - 2.5f;
  engine.connectStream("matrix-in", hostIn.data());
  engine.connectStream("matrix-out", hostOut.data());
  engine.connectStream("counts-out", hostCounts.data());
  engine.run(0);
  engine.run(1);
  engine.run(1);

  std::cout << "column 0 after:";
  for (unsigned r = 0; r < rows; ++r)
    std::cout << ' ' << hostOut[r * cols];
  std::cout << "\ncounts:";
  for (unsigned r = 0; r < rows; ++r)
    std::cout << ' ' << hostCounts[r];
  std::cout << "\nProgram complete\n";
  return 0;
}
