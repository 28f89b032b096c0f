// The small poplar headers a C++ program uses around a graph: GraphElements.hpp (ids of
// compute sets, functions and host functions; vertex and field references),
// HostFunctionCallback.hpp (host callbacks from a class, a lambda, a unique_ptr),
// TensorCloneMethod.hpp, SyncType.hpp, VariableMappingMethod.hpp, PrintTensor.hpp,
// PerfEstimateFunc.hpp and Vertex.hpp's vertex kinds (a Vertex, a MultiVertex, a
// SupervisorVertex and SupervisorVertexIf with Input/Output/InOut of Vector and
// VectorList fields). Prints "label: value" lines that test_graph_elements.py checks.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/HostFunctionCallback.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/PrintTensor.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/TensorCloneMethod.hpp>
#include <poplar/VariableMappingMethod.hpp>
#include <poplar/VertexIntrospector.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "expect_error.hpp"

using namespace poplar;

namespace {

// Each vertex kind, with the field kinds it can have.
const char *const kCodelets = R"(
#include <poplar/Vertex.hpp>
using namespace poplar;
class Add : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<Vector<float>> out;
  bool compute() { for (unsigned i = 0; i < out.size(); ++i) out[i] = a[i] + b[i]; return true; }
};
class Double : public MultiVertex {
public:
  InOut<Vector<float>> data;
  bool compute(unsigned worker) {
    for (unsigned i = worker; i < data.size(); i += numWorkers()) data[i] *= 2;
    return true;
  }
};
class RowSums : public SupervisorVertex {
public:
  Input<VectorList<float, VectorListLayout::DELTAN>> rows;
  Output<Vector<float>> sums;
  bool compute() {
    for (unsigned r = 0; r < rows.size(); ++r) {
      float s = 0;
      for (unsigned i = 0; i < rows[r].size(); ++i) s += rows[r][i];
      sums[r] = s;
    }
    return true;
  }
};
template <bool Supervised> class Negate : public SupervisorVertexIf<Supervised> {
public:
  InOut<float> x;
  bool compute() { x = -x; return true; }
};
template class Negate<true>;
template class Negate<false>;
)";

// Sums its one input into its one output; counts its calls.
class Summer : public HostCallback {
public:
  explicit Summer(unsigned &calls) : calls_(calls) {}
  void operator()(ArrayRef<const void *> ins, ArrayRef<void *> outs) override {
    ++calls_;
    const float *in = static_cast<const float *>(ins[0]);
    *static_cast<float *>(outs[0]) = in[0] + in[1] + in[2];
  }

private:
  unsigned &calls_;
};

// " tile[begin,end)" for each mapped interval of t, or " none".
std::string mappingOf(const Graph &graph, const Tensor &t) {
  std::ostringstream out;
  const auto mapping = graph.getTileMapping(t, false);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &i : mapping[tile]) out << ' ' << tile << '[' << i.begin() << ',' << i.end() << ')';
  return out.str().empty() ? " none" : out.str();
}

} // namespace

int main() {
  // Four tiles: the vertices run on tile 2, the clones' sources live on tiles 1 and 3.
  IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  Graph graph(model.createTarget());
  std::stringstream codelets(kCodelets);
  graph.addCodelets(codelets);
  Device device = model.createDevice();

  // LINEAR spreads a variable over the tiles in whole vectors; NONE leaves it unmapped.
  const Tensor linear = graph.addVariable(FLOAT, {8}, VariableMappingMethod::LINEAR, "linear");
  const Tensor unmapped = graph.addVariable(FLOAT, {8}, VariableMappingMethod::NONE, "unmapped");
  std::cout << "linear:" << mappingOf(graph, linear) << "\nunmapped:" << mappingOf(graph, unmapped) << '\n';
  graph.setTileMapping(unmapped, 0);

  const Tensor a = graph.addVariable(FLOAT, {4}, "a");
  const Tensor b = graph.addVariable(FLOAT, {4}, "b");
  const Tensor sum = graph.addVariable(FLOAT, {4}, "sum");
  const Tensor rows = graph.addVariable(FLOAT, {2, 3}, "rows");
  const Tensor rowSums = graph.addVariable(FLOAT, {2}, "rowSums");
  const Tensor scalars = graph.addVariable(FLOAT, {2}, "scalars");
  for (const Tensor &t : {a, b, sum, rows, rowSums, scalars}) graph.setTileMapping(t, 2);

  const ComputeSet cs = graph.addComputeSet("cs");
  const VertexRef add = graph.addVertex(cs, "Add", {{"a", a}, {"b", b}, {"out", sum}});
  const VertexRef twice = graph.addVertex(cs, "Double");
  graph.connect(twice["data"], rows.flatten());
  const ComputeSet negateCS = graph.addComputeSet("negate");
  const VertexRef sums = graph.addVertex(negateCS, "RowSums");
  const FieldRef rowsField = sums["rows"];
  graph.setFieldSize(rowsField, 2);
  const FieldRef second = rowsField[1];
  graph.connect(rowsField[0], rows[0]);
  graph.connect(second, rows[1]);
  graph.connect(sums["sums"], rowSums);
  const VertexRef negateSupervised = graph.addVertex(negateCS, "Negate<true>", {{"x", scalars[0]}});
  const VertexRef negateWorker = graph.addVertex(negateCS, "Negate<false>", {{"x", scalars[1]}});
  for (const VertexRef &v : {add, twice, sums, negateSupervised, negateWorker}) graph.setTileMapping(v, 2);
  graph.setPerfEstimate(add, VertexPerfEstimate(30, 4));
  graph.setPerfEstimate(twice, 12);
  std::cout << "fields: " << rowsField.isIndexed() << second.isIndexed() << ' ' << second.getIndex() << ' '
            << (second.vertex.getId() == sums.getId()) << ' ' << (add.getId() != twice.getId()) << '\n';
  std::cout << "compute sets: " << (cs == ComputeSet(cs.getId())) << (cs == negateCS) << ' ' << ComputeSet(7).getId()
            << '\n';
  const VertexPerfEstimate none, plain(5);
  std::cout << "estimates: " << none.cycles << ' ' << none.flops << ' ' << plain.cycles << ' ' << plain.flops << '\n';
  // Evaluated when the engine is built: prints what it sees of the RowSums vertex.
  const PerfEstimateFunc estimator = [](const VertexIntrospector &v, const Target &) {
    const FieldData rowsInfo = v.getFieldInfo("rows"), sumsInfo = v.getFieldInfo("sums");
    std::cout << "introspected: " << rowsInfo.name() << ' ' << rowsInfo.rank() << ' ' << rowsInfo.size() << ' '
              << rowsInfo.getSizeAtIndex(1) << ", " << sumsInfo.name() << ' ' << sumsInfo.rank() << ' '
              << sumsInfo.size() << '\n';
    return VertexPerfEstimate(9);
  };
  graph.registerPerfEstimator("RowSums", estimator);
  expectError("unknown field", [&] { add["missing"]; });

  // A host function called twice: from a HostCallback subclass, then a lambda.
  const HostFunction summarise = graph.addHostFunction("summarise", {{FLOAT, 3}}, {{FLOAT, 1}});
  const HostFunction total = graph.addHostFunction("total", {{FLOAT, 3}}, {{FLOAT, 1}});
  std::cout << "host functions: " << summarise.getId() << ' ' << total.getId() << ' ' << HostFunction(4).getId() << '\n';
  const Function body = graph.addFunction(program::Execute(negateCS));
  std::cout << "functions: " << (body.getId() == Function(body.getId()).getId()) << ' ' << Function(3).getId() << '\n';
  const Tensor result = graph.addVariable(FLOAT, {2}, "result");
  graph.setTileMapping(result, 3);

  program::Sequence prog{program::Execute(cs),
                         program::Call(body),
                         program::Sync(SyncType::INTERNAL),
                         program::Sync(SyncType::EXTERNAL),
                         program::Sync(SyncType::GLOBAL),
                         program::Call(summarise, {rows[0]}, {result.slice(0, 1)}),
                         program::Call(total, {rows[1]}, {result.slice(1, 2)}),
                         program::PrintTensor("default", rowSums),
                         program::PrintTensor("plain", rowSums, PrintTensorFmt::disableFormatting())};
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);
  graph.createHostWrite("rows", rows);
  graph.createHostWrite("scalars", scalars);
  graph.createHostRead("sum", sum);
  graph.createHostRead("rows", rows);
  graph.createHostRead("rowSums", rowSums);
  graph.createHostRead("scalars", scalars);
  graph.createHostRead("result", result);

  Engine engine(graph, prog);
  unsigned calls = 0;
  engine.connectHostFunction("summarise", 0, HostCallbackHandle(std::unique_ptr<Summer>(new Summer(calls))));
  HostCallbackHandle lambda([&calls](ArrayRef<const void *> ins, ArrayRef<void *> outs) {
    ++calls;
    const float *in = static_cast<const float *>(ins[0]);
    *static_cast<float *>(outs[0]) = 10 * (in[0] + in[1] + in[2]);
  });
  std::unique_ptr<HostCallback> released = lambda.release();
  std::cout << "released: " << (released != nullptr) << (lambda.release() == nullptr) << '\n';
  engine.connectHostFunction("total", 0, HostCallbackHandle(std::move(released)));
  std::ostringstream printed;
  engine.setPrintTensorStream(printed);
  engine.load(device);
  const std::vector<float> av{1, 2, 3, 4}, bv{10, 20, 30, 40}, rowv{1, 2, 3, 4, 5, 6}, scalarv{1.5f, -2.5f};
  engine.writeTensor("a", av.data(), av.data() + av.size());
  engine.writeTensor("b", bv.data(), bv.data() + bv.size());
  engine.writeTensor("rows", rowv.data(), rowv.data() + rowv.size());
  engine.writeTensor("scalars", scalarv.data(), scalarv.data() + scalarv.size());
  engine.run();
  const auto print = [&engine](const char *label, const char *handle, std::size_t n) {
    std::vector<float> values(n);
    engine.readTensor(handle, values.data(), values.data() + n);
    std::cout << label << ":";
    for (float v : values) std::cout << ' ' << v;
    std::cout << '\n';
  };
  print("sum", "sum", 4);
  print("rows", "rows", 6);
  print("row sums", "rowSums", 2);
  print("scalars", "scalars", 2);
  print("result", "result", 2);
  std::cout << "calls: " << calls << '\n';
  std::string text = printed.str();
  for (char &c : text)
    if (c == '\n') c = '|';
  std::cout << "printed: " << text << '\n';

  const PrintTensorFmt defaults, plainFormat = PrintTensorFmt::disableFormatting();
  std::cout << "formats: " << defaults.summariseThreshold << ' ' << defaults.edgeItems << ' ' << defaults.maxLineWidth
            << ' ' << defaults.digits << ' ' << (defaults.floatFormat == PrintTensorFmt::FloatFormat::Auto)
            << defaults.separator << defaults.openBracket << defaults.closeBracket << ", plain "
            << plainFormat.summariseThreshold << ' ' << (plainFormat.floatFormat == PrintTensorFmt::FloatFormat::None)
            << '\n';

  // Clones keep the source's tile of each element whatever the method; cloneN duplicates
  // along a new outer dimension either way.
  const Tensor source = graph.addVariable(FLOAT, {2, 4}, "source");
  graph.setTileMapping(source.slice(0, 1, 0), 1);
  graph.setTileMapping(source.slice(1, 2, 0), 3);
  const Tensor aliased = concat(source[0], source[0]);
  for (TensorCloneMethod method :
       {TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES, TensorCloneMethod::CREATE_NEW_ORDER,
        TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, TensorCloneMethod::GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES}) {
    const Tensor c = graph.clone(aliased, "c", method);
    std::cout << "clone " << static_cast<int>(method) << ": " << c.shapeToString() << ' ' << c.containsAliases() << ' '
              << c.intersectsWith(aliased) << ' ' << (c.slice(0, 4) == c.slice(4, 8)) << mappingOf(graph, c) << '\n';
  }
  for (TensorCloneDuplicationMethod duplication :
       {TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION,
        TensorCloneDuplicationMethod::DUPLICATE_BY_TILE_CONTIGUOUS_REGION}) {
    const Tensor n = graph.cloneN(source, 3, "n", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, duplication);
    std::cout << "cloneN " << static_cast<int>(duplication) << ": " << n.shapeToString() << mappingOf(graph, n[2])
              << '\n';
  }
  const Tensor aliasedCopies = graph.cloneN(aliased, 2, "copies", TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES);
  std::cout << "aliased cloneN: " << aliasedCopies.shapeToString() << ' ' << aliasedCopies[1].containsAliases() << ' '
            << aliasedCopies[0].intersectsWith(aliasedCopies[1]) << mappingOf(graph, aliasedCopies[1]) << '\n';
  return 0;
}
