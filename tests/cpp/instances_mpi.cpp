// A C++ program of 4 replicas run as poprun runs one: each process started by an MPI
// launcher (mpiexec -n 2 ./prog) runs its slice of the replicas through the engine options
// target.firstRuntimeReplica / numberRuntimeReplica / syncReplicasIndependently, taking
// its rank from the launcher's environment as popdist does; the emulator finds MPI itself.
// Prints "replica R NAME: v ..." for each of its replicas (floats in hex, for bit equality).
// Modes (argv[1]): "run" (default); "alone" runs replicas 2 and 3 as if a launcher had
// started it; "fail" makes rank 1 return 3 after one run while rank 0 runs again, "leave"
// makes it return 0 there.
#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

const unsigned kReplicas = 4, kRows = 4;

unsigned fromEnvironment(const char *openMpi, const char *mpich, unsigned dflt) {
  const char *value = std::getenv(openMpi) ? std::getenv(openMpi) : std::getenv(mpich);
  return value ? static_cast<unsigned>(std::strtoul(value, nullptr, 10)) : dflt;
}

void print(const std::string &name, unsigned first, unsigned count, const std::vector<float> &values) {
  const std::size_t per = values.size() / count;
  for (unsigned k = 0; k < count; ++k) {
    std::cout << "replica " << first + k << " " << name << ":";
    for (std::size_t i = 0; i < per; ++i) std::cout << " " << std::hexfloat << values[k * per + i];
    std::cout << std::defaultfloat << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "run";
  const unsigned rank = fromEnvironment("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
  const unsigned size = fromEnvironment("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
  const unsigned count = mode == "alone" ? 2 : kReplicas / size, first = mode == "alone" ? 2 : rank * count;

  poplar::IPUModel model("ipu2");
  model.numIPUs = kReplicas;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));
  popops::addCodelets(graph);
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {kRows}, "x");
  poputil::mapTensorLinearly(graph, x);
  graph.createHostWrite("x", x);

  poplar::program::Sequence prog;
  const gcl::CommGroup pairs(gcl::CommGroupType::CONSECUTIVE, 2), across(gcl::CommGroupType::ORTHOGONAL, 2);
  std::map<std::string, poplar::Tensor> outs;
  outs["sum"] = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::ADD, prog);
  outs["max pairs"] = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::MAX, prog, pairs);
  outs["mean across"] = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::MEAN, prog, across);
  outs["reduce scatter"] = gcl::reduceScatterCrossReplica(graph, x, gcl::CollectiveOperator::ADD, prog);
  outs["all gather"] = gcl::allGatherCrossReplica(graph, x, prog);
  outs["all to all"] = gcl::allToAllCrossReplica(graph, x.reshape({kReplicas, kRows / kReplicas}), prog);
  poplar::Tensor copied = graph.clone(x, "copied");
  prog.add(poplar::program::CrossReplicaCopy(x, copied, {{0, 3}, {1, 0}, {2, 1}, {3, 2}}));
  outs["copied"] = copied;
  for (const auto &out : outs) graph.createHostRead(out.first, out.second);
  poplar::Tensor index = graph.addReplicationIndexConstant("index");
  graph.setTileMapping(index, 0);
  graph.createHostRead("index", index);

  poplar::OptionFlags options;
  if (count < kReplicas)
    options = {{"target.firstRuntimeReplica", std::to_string(first)},
               {"target.numberRuntimeReplica", std::to_string(count)},
               {"target.syncReplicasIndependently", "true"}};
  try {
    poplar::Engine engine(graph, prog, options);
    engine.load(device);
    std::vector<float> values(count * kRows); // replica r's x: 0.1 (4 r + i) - 0.7, in float
    for (unsigned k = 0; k < count; ++k)
      for (unsigned i = 0; i < kRows; ++i)
        values[k * kRows + i] = static_cast<float>((first + k) * kRows + i) * 0.1f - 0.7f;
    engine.writeTensor("x", values.data(), values.data() + values.size());
    engine.run(0);
    if (mode == "fail" || mode == "leave") {
      if (rank == 1) return mode == "fail" ? 3 : 0; // rank 0 waits in the next run's first collective
      engine.run(0);
    }
    for (const auto &out : outs) {
      std::vector<float> result(count * out.second.numElements());
      engine.readTensor(out.first, result.data(), result.data() + result.size());
      print(out.first, first, count, result);
    }
    std::vector<std::uint32_t> indices(count);
    engine.readTensor("index", indices.data(), indices.data() + indices.size());
    for (unsigned k = 0; k < count; ++k) std::cout << "replica " << first + k << " index: " << indices[k] << "\n";
  } catch (const poplar::poplar_error &e) {
    std::cout << "error on rank " << rank << ": " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
