// The codelet of Poplar tutorial 3: sums its input vector into one output.
#include <poplar/Vertex.hpp>

class SumVertex : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<float> out;

  bool compute() {
    *out = 0;
    for (const auto &v : in) *out += v;
    return true;
  }
};
