// The codelet of Poplar tutorial 5: one row of a matrix-vector product.
#include <poplar/Vertex.hpp>

class DotProductVertex : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> a;
  poplar::Input<poplar::Vector<float>> b;
  poplar::Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    *out = sum;
    return true;
  }
};
