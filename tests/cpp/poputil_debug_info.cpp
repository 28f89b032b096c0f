// poputil/DebugInfo.hpp: a library function that records its arguments and output as
// poplibs functions do, and toProfileValue of each kind of value, streamed as debug
// information to argv[1] (test_poputil_debug_info.py reads it).
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poputil/DebugInfo.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

poplar::Tensor copied(poplar::Graph &graph, const poplar::Tensor &in, float scale, unsigned count, bool inPlace,
                      const std::vector<unsigned> &dims, const poplar::OptionFlags &options,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  poputil::PoplibsOpDebugInfo di(debugContext, DI_ARGS(in, scale, count, inPlace, dims, options));
  poplar::Tensor out = graph.clone(in, {di, "out"});
  prog.add(poplar::program::Copy(in, out, false, {di}));
  di.addOutput(out);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::DebugInfo::initializeStreamer(argv[1]);
  {
    poplar::Tensor t = graph.addVariable(poplar::HALF, {2, 3}, "t");
    graph.setTileMapping(t, 0);
    poplar::program::Sequence prog;
    const poplar::Tensor out = copied(graph, t, 0.5f, 3u, true, {1, 0}, {{"k", "v"}}, prog, {"caller"});

    poputil::PoplibsOpDebugInfo pair({"pair"}, {}, "pairApi");
    pair.addOutputs({{"first", poputil::toProfileValue(t)}, {"second", poputil::toProfileValue(out.flatten())}});

    poputil::OpDebugInfo info({"direct"}, "myapi");
    poplar::DataStream feed = graph.addHostToDeviceFIFO("feed", poplar::HALF, 6);
    poplar::DataStream drain = graph.addDeviceToHostFIFO("drain", poplar::HALF, 6);
    poplar::Tensor *none = nullptr;
    int minusTwo = -2;
    int *pointer = &minusTwo;
    const unsigned long big = 1ul << 40;
    const std::vector<bool> bits = {true, false};
    info.add("values", {{"none", poputil::toProfileValue(none)},
                        {"pointer", poputil::toProfileValue(pointer)},
                        {"big", poputil::toProfileValue(big)},
                        {"bits", poputil::toProfileValue(bits)},
                        {"type", poputil::toProfileValue(poplar::UNSIGNED_INT)},
                        {"computeSet", poputil::toProfileValue(graph.addComputeSet("cs"))}});
    info.add("copies", {{"tensors", poputil::toProfileValue(poplar::program::Copy(t, out))},
                        {"fromStream", poputil::toProfileValue(poplar::program::Copy(feed, t))},
                        {"toStream", poputil::toProfileValue(poplar::program::Copy(out.reshape({6}), drain))}});
    info.add("values", {poputil::ArgType("ignored", poputil::toProfileValue(1)),
                        poputil::ArgType(std::make_pair(std::string("also"), poputil::toProfileValue(2)))});
    info.add("scale", poplar::ProfileValue(0.25));
    info.add("scale", poplar::ProfileValue(4.0));
  }
  poplar::DebugInfo::closeStreamer();
  return 0;
}
