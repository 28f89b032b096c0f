// popops' normalisation-statistics binary ops (ElementWise.hpp): invStdDevToVariance and
// varianceToInvStdDev with tensor and scalar operands, returning, in place and into an
// output. Prints "name: v v ..." lines (test_popops_with_output.py checks them).
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

#include <string>
#include <vector>

#include "labelled_results.hpp"

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplar::program::Sequence prog;
  auto variable = [&](const std::vector<float> &values, const char *name) {
    return filledTensor(graph, poplar::FLOAT, {values.size()}, values, name);
  };
  const std::vector<float> a = {0.5f, 1.0f, 2.0f, 4.0f}, b = {0.25f, 0.0f, 0.125f, 1.0f};
  const poplar::Tensor ta = variable(a, "a"), tb = variable(b, "b");
  const poplar::DebugContext dc("variance");
  std::vector<poplar::Tensor> results = {
      popops::invStdDevToVariance(graph, ta, tb, prog, dc, {}),
      popops::invStdDevToVariance(graph, ta, 0.5f, prog, dc),
      popops::invStdDevToVariance(graph, 2.0f, tb, prog, dc),
      popops::varianceToInvStdDev(graph, ta, tb, prog, dc, {}),
      popops::varianceToInvStdDev(graph, ta, 0.5f, prog, dc, {}),
      popops::varianceToInvStdDev(graph, 3.0f, tb, prog, dc)};
  const poplar::Tensor inPlace = variable(a, "inPlace"), inPlaceScalar = variable(a, "inPlaceScalar");
  popops::invStdDevToVarianceInPlace(graph, inPlace, tb, prog);
  popops::varianceToInvStdDevInPlace(graph, inPlaceScalar, 1.0f, prog);
  results.push_back(inPlace);
  results.push_back(inPlaceScalar);
  for (int i = 0; i < 6; ++i) results.push_back(variable(std::vector<float>(4, 0.0f), "out"));
  popops::invStdDevToVarianceWithOutput(graph, ta, tb, results[8], prog);
  popops::invStdDevToVarianceWithOutput(graph, ta, 0.5f, results[9], prog);
  popops::invStdDevToVarianceWithOutput(graph, 2.0f, tb, results[10], prog);
  popops::varianceToInvStdDevWithOutput(graph, ta, tb, results[11], prog);
  popops::varianceToInvStdDevWithOutput(graph, ta, 0.5f, results[12], prog);
  popops::varianceToInvStdDevWithOutput(graph, 3.0f, tb, results[13], prog);
  const std::vector<std::string> names = {
      "inv to var", "inv to var scalar", "scalar inv to var", "var to inv", "var to inv scalar",
      "scalar var to inv", "inv to var in place", "var to inv in place scalar", "inv to var out",
      "inv to var scalar out", "scalar inv to var out", "var to inv out", "var to inv scalar out",
      "scalar var to inv out"};
  printResults(graph, prog, device, names, results);
}
