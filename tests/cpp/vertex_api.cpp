// The Graph's vertex API beyond tutorials: codelets from a stringstream, perf
// estimates (explicit, and registered estimators that read a vertex through
// VertexIntrospector, one a lambda returning a plain cycle count), and field
// limits. Prints one labelled line per fact; test_sdk_prefix.py checks them.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/VertexIntrospector.hpp>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <vector>

using namespace poplar;

static const char *const kCodelets =
    "#include <poplar/Vertex.hpp>\n"
    "using namespace poplar;\n"
    "class Scale : public Vertex {\n"
    "public:\n"
    "  Input<Vector<float>> in;\n"
    "  Output<Vector<float>> out;\n"
    "  const unsigned short factor;\n"
    "  bool compute() { for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * factor; return true; }\n"
    "};\n"
    "class Rows : public Vertex {\n"
    "public:\n"
    "  Input<VectorList<float, VectorListLayout::DELTANELEMENTS>> rows;\n"
    "  Input<Vector<float, VectorLayout::SHORT_SPAN>> bias;\n"
    "  Output<float> total;\n"
    "  bool compute() { *total = bias[0]; for (auto &r : rows) for (float x : r) *total += x; return true; }\n"
    "};\n";

int main() {
  IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  std::stringstream source(kCodelets);
  graph.addCodelets(source, "-O1", CodeletFileType::CppSource);

  Tensor x = graph.addVariable(FLOAT, {6}, "x");
  Tensor y = graph.addVariable(FLOAT, {6}, "y");
  Tensor total = graph.addVariable(FLOAT, {1}, "total");
  const float biasValue[] = {0.5f};
  Tensor bias = graph.addConstant<float>(FLOAT, {1}, biasValue, "bias");
  for (const Tensor &t : {x, y, total, bias}) graph.setTileMapping(t, 0);
  graph.setInitialValue(x, ArrayRef<float>(std::vector<float>{1, 2, 3, 4, 5, 6}));

  ComputeSet cs = graph.addComputeSet("vs");
  VertexRef scale = graph.addVertex(cs, "Scale", {{"in", x}, {"out", y}});
  graph.setInitialValue(scale["factor"], 3);
  VertexRef rows = graph.addVertex(cs, "Rows");
  graph.connect(rows["rows"], std::vector<Tensor>{x.slice(0, 2), x.slice(2, 6)});
  graph.connect(rows["bias"], bias);
  graph.connect(rows["total"], total[0]);
  graph.setTileMapping(scale, 0);
  graph.setTileMapping(rows, 1);

  // A lambda returning std::uint64_t converts to a PerfEstimateFunc.
  graph.registerPerfEstimator("Scale", [](const VertexIntrospector &v, const Target &target) -> std::uint64_t {
    return v.getFieldInfo("in").size() * v.getFieldInfo("factor").getInitialValue<unsigned>(target) +
           target.getNumWorkerContexts();
  });
  graph.registerPerfEstimator("Rows", PerfEstimateFunc([](const VertexIntrospector &v, const Target &target) {
    const FieldData list = v.getFieldInfo("rows");
    const std::vector<float> b = v.getFieldInfo("bias").getInitialValues<float>(target);
    return VertexPerfEstimate(100 * list.getSizeAtIndex(0) + list[1].size(),
                              static_cast<std::uint64_t>(b[0] * 10) + v.getComputeSet().getId());
  }));
  VertexPerfEstimate a = graph.getPerfEstimate(scale), b = graph.getPerfEstimate(rows);
  printf("estimates: %llu %llu %llu %llu\n", (unsigned long long)a.cycles, (unsigned long long)a.flops,
         (unsigned long long)b.cycles, (unsigned long long)b.flops);

  printf("limits: %llu %llu %llu %.1f %llu %llu\n", (unsigned long long)graph.getMaxFieldDim("Rows", "rows", 0),
         (unsigned long long)graph.getMaxFieldDim("Rows", "bias", 0),
         (unsigned long long)graph.getMaxFieldDim("Scale", "in", 0), graph.getMaxVertexFieldValue("Scale", "factor"),
         (unsigned long long)graph.getMaxVertexFieldValueAs<std::uint64_t>("Scale", "factor"),
         (unsigned long long)graph.getMaxVertexFieldValueAs<std::int64_t>("Scale", "factor"));
  try {
    graph.getMaxVertexFieldValueAs<std::int8_t>("Scale", "factor");
  } catch (const poplar_error &e) {
    printf("error: %s\n", e.what());
  }

  graph.createHostRead("y", y);
  graph.createHostRead("total", total);
  Engine engine(graph, program::Execute(cs));
  engine.load(device);
  engine.run(0);
  std::vector<float> yv(6), tv(1);
  engine.readTensor("y", yv.data(), yv.data() + 6);
  engine.readTensor("total", tv.data(), tv.data() + 1);
  printf("y: %g %g %g %g %g %g\ntotal: %g\n", yv[0], yv[1], yv[2], yv[3], yv[4], yv[5], tv[0]);
  return 0;
}
