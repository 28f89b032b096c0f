// A distributed batch norm as an SDK program writes it: two replicas of one IPU, each with
// half of a batch of 4, and a reduce callback (a C++ lambda) that all-reduces over the
// replicas with gcl. Prints "mean: ..." and "invStdDev: ..." for each replica, which
// test_distributed_norms.py checks against the statistics of the whole batch.
#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/Norms.hpp>
#include <popnn/BatchNorm.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <vector>

int main() {
  poplar::IPUModel model("ipu2");
  model.numIPUs = 2;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget(), poplar::replication_factor(2));
  popops::addCodelets(graph);

  // acts [2][2][1] on each replica: the batch is replica 0's two elements, then replica 1's.
  poplar::Tensor acts = graph.addVariable(poplar::FLOAT, {2, 2, 1}, "acts");
  poputil::mapTensorLinearly(graph, acts);
  graph.createHostWrite("acts", acts);

  unsigned reduceCalls = 0;
  poplin::DistributedNormReduceCallback allReduce =
      [&reduceCalls](poplar::Graph &g, const std::vector<poplar::Tensor> &inputs, poplar::program::Sequence &prog,
                     unsigned groupSize, const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
        ++reduceCalls;
        const gcl::CommGroup group(gcl::CommGroupType::CONSECUTIVE, groupSize);
        return gcl::allReduceCrossReplica(g, inputs, gcl::CollectiveOperator::ADD, prog, group, dc, options);
      };
  poplar::program::Sequence prog;
  auto stats = popnn::bn::distributedBatchNormStatistics(graph, acts, 1e-3f, prog, false, allReduce, 4);
  graph.createHostRead("mean", stats.first);
  graph.createHostRead("invStdDev", stats.second);

  poplar::Engine engine(graph, prog);
  engine.load(device);
  // Channel 0 holds 1, 2 | 3, 4 and channel 1 holds 10, 10 | 10, 30 over the whole batch.
  const std::vector<float> values{1, 10, 2, 10, 3, 10, 4, 30};
  engine.writeTensor("acts", values.data(), values.data() + values.size());
  engine.run(0);
  std::vector<float> mean(4), invStdDev(4);
  engine.readTensor("mean", mean.data(), mean.data() + mean.size());
  engine.readTensor("invStdDev", invStdDev.data(), invStdDev.data() + invStdDev.size());
  std::cout << "reduce calls: " << reduceCalls << "\n";
  for (const char *label : {"mean", "invStdDev"}) {
    const std::vector<float> &v = label[0] == 'm' ? mean : invStdDev;
    std::cout << label << ":";
    for (float x : v) std::cout << " " << x;
    std::cout << "\n";
  }
  return 0;
}
