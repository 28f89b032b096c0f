// Codelets for row_ops.cpp: plain, multi-worker and templated vertices.
#include <poplar/Vertex.hpp>

using namespace poplar;

// Adds up one row.
class RowTotal : public Vertex {
public:
  Input<Vector<float>> row;
  Output<float> total;

  bool compute() {
    float sum = 0;
    for (auto value : row)
      sum += value;
    *total = sum;
    return true;
  }
};

// y += scale * x, the elements dealt out to the tile's workers in turn.
template <typename T> class ScaleAdd : public MultiVertex {
public:
  Input<Vector<T>> x;
  InOut<Vector<T>> y;
  T scale;

  bool compute(unsigned worker) {
    for (unsigned i = worker; i < y.size(); i += numWorkers())
      y[i] += scale * x[i];
    return true;
  }
};

template class ScaleAdd<float>;
template class ScaleAdd<int>;
