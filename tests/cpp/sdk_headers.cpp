// What SDK-era programs take from the headers without asking: standard headers that the
// SDK's headers pull in, addCodelets with a std::string, and the stream operators of the
// gcl, popops and popnn enums. Prints "name: value" lines for test_sdk_headers.py.
// Deliberately includes no standard header besides <iostream> and <sstream>.
#include <gcl/Collectives.hpp>
#include <iostream>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/NonLinearityDefUtil.hpp>
#include <popops/ExprOpUtils.hpp>
#include <popops/Operation.hpp>
#include <poputil/VertexTemplates.hpp>
#include <sstream>

using namespace popops::expr::ostream_ext;

int main(int argc, char **argv) {
  // <numeric>, <algorithm>, <set>, <unordered_set>, <unordered_map>, <array>, <map>, <functional>
  std::vector<unsigned> v(5);
  std::iota(v.begin(), v.end(), 1u);
  std::reverse(v.begin(), v.end());
  std::set<unsigned> ordered(v.begin(), v.end());
  std::unordered_set<unsigned> seen(v.begin(), v.end());
  std::unordered_map<unsigned, unsigned> squares;
  std::map<unsigned, unsigned> cubes;
  std::array<unsigned, 2> ends = {{*ordered.begin(), *ordered.rbegin()}};
  std::function<unsigned(unsigned)> twice = [](unsigned x) { return 2 * x; };
  for (unsigned x : v) squares[x] = x * x, cubes[x] = x * x * x;
  std::cout << "std: " << std::accumulate(v.begin(), v.end(), 0u) << ' ' << seen.count(3) << ' ' << squares[4] << ' '
            << cubes[2] << ' ' << ends[0] << '-' << ends[1] << ' ' << twice(21) << '\n';

  std::ostringstream names;
  names << gcl::CollectiveOperator::SQUARE_ADD << ' ' << gcl::CommGroupType::ORTHOGONAL << ' '
        << gcl::CommGroup(gcl::CommGroupType::CONSECUTIVE, 2) << ' ' << popops::Operation::LOG_ADD << ' '
        << popops::expr::BinaryOpType::ADD << ' ' << popnn::NonLinearityType::HARD_SIGMOID << ", "
        << popnn::asString(popnn::NonLinearityType::SOFTMAX_SCALED);
  std::cout << "names: " << names.str() << '\n';
  std::istringstream words("MEAN softmax_stable");
  gcl::CollectiveOperator op = gcl::CollectiveOperator::ADD;
  popnn::NonLinearityType nl = popnn::NonLinearityType::RELU;
  words >> op >> nl;
  std::cout << "read: " << op << ", " << nl << ", "
            << poputil::templateVertex("popnn::NonLinearity", popnn::NonLinearityType::GELU) << '\n';
  try {
    std::istringstream bad("SUM");
    bad >> op;
  } catch (const poputil::poplibs_error &e) {
    std::cout << "bad operator: " << e.what() << '\n';
  }

  // A codelet file named by a std::string (argv[1]).
  poplar::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  const std::string codelets = argc > 1 ? argv[1] : "codelets.cpp";
  graph.addCodelets(codelets);
  std::cout << "codelets: " << graph.hasCodelet("Doubler") << '\n';
  return 0;
}
