#include "Gemm.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <cblas.h>

#include "FewRowsGemm.hpp"
#include "PooledBlas.hpp"
#include "poplar/HalfConversion.hpp"
#include "poplar/ThreadPool.hpp"
#include "poplar/TypeInfo.hpp"

namespace poplin::detail {

namespace {

using poplar::detail::Access;
using poplar::detail::Segment;

// The multiply-adds a pass of several products needs before threading it pays.
constexpr double kThreadedBatchWork = 1 << 22;

// A matrix as BLAS addresses it: row-major at `data` with leading dimension
// `ld` or, when `transposed`, its transpose stored that way.
struct Matrix {
  float *data = nullptr;
  int ld = 1;
  bool transposed = false;

  Matrix columnsFrom(std::size_t begin) const {
    return {data + (transposed ? begin * std::size_t(ld) : begin), ld, transposed};
  }
  Matrix rowsFrom(std::size_t begin) const {
    return {data + (transposed ? begin : begin * std::size_t(ld)), ld, transposed};
  }
  float &at(std::size_t row, std::size_t col) const {
    return transposed ? data[col * std::size_t(ld) + row] : data[row * std::size_t(ld) + col];
  }
  StridedFloats strided() const { return transposed ? StridedFloats{data, 1, ld} : StridedFloats{data, ld, 1}; }
  StridedFloats stridedTranspose() const {
    return transposed ? StridedFloats{data, ld, 1} : StridedFloats{data, 1, ld};
  }
};

// Columns [first, first + width) of an operand's matrix, stored as `matrix`.
struct MatrixPanel {
  std::size_t first, width;
  Matrix matrix;

  MatrixPanel rowsFrom(std::size_t begin) const { return {first, width, matrix.rowsFrom(begin)}; }
};

// A product the few-rows kernel computes: c [m,n] = a [m,k] x b [k,n], b in column panels
// (one where b is one matrix), their rows unit-stride.
struct FewRowsProduct {
  std::size_t m, n, k;
  StridedFloats a;
  std::vector<ColumnPanel> b;
  StridedFloats c;
};

// c = a x b as the few-rows kernel takes it, directly or as c^T = b^T x a^T, where
// that has rows it takes and reads the wide operand along its rows, or else directly with b
// stored transposed where there are rows enough to transpose it for; else nothing. The
// kernel's vectors run along a row, so a single column would leave it one lane of them.
std::optional<FewRowsProduct> fewRowsProduct(const Matrix &a, const Matrix &b, const Matrix &c, std::size_t m,
                                             std::size_t n, std::size_t k) {
  const auto direct = [&] { return FewRowsProduct{m, n, k, a.strided(), {{0, n, b.strided()}}, c.strided()}; };
  if (n > 1 && !b.transposed && fewRowsTake(m)) return direct();
  if (m > 1 && fewRowsTake(n) && a.transposed)
    return FewRowsProduct{n, m, k, b.stridedTranspose(), {{0, m, a.stridedTranspose()}}, c.stridedTranspose()};
  if (n > 1 && fewRowsTakesTransposedB(m, k)) return direct();
  return std::nullopt;
}

// A product for BLAS: c = op(a) x op(b), each row-major.
struct BlasProduct {
  CBLAS_TRANSPOSE transA, transB;
  int m, n, k;
  const float *a;
  int lda;
  const float *b;
  int ldb;
  float *c;
  int ldc;
};

// A product with one row or one column is a matrix-vector product: sgemv reads
// the matrix once where sgemm would first pack it (~3x slower at [1,512]x[512,1024]).
// Others are one sgemm, cut over the pool when `pooled`.
void runProduct(const BlasProduct &p, float alpha, float beta, bool pooled) {
  const bool transA = p.transA == CblasTrans, transB = p.transB == CblasTrans;
  if (p.n == 1) // c[:,0] = op(a) x op(b)[:,0]
    scipy_cblas_sgemv(CblasRowMajor, p.transA, transA ? p.k : p.m, transA ? p.m : p.k, alpha, p.a, p.lda,
                      p.b, transB ? 1 : p.ldb, beta, p.c, p.ldc);
  else if (p.m == 1) // c[0,:] = op(b)^T x op(a)[0,:]
    scipy_cblas_sgemv(CblasRowMajor, transB ? CblasNoTrans : CblasTrans, transB ? p.n : p.k,
                      transB ? p.k : p.n, alpha, p.b, p.ldb, p.a, transA ? p.lda : 1, beta, p.c, 1);
  else if (pooled)
    pooledSgemm(p.transA, p.transB, p.m, p.n, p.k, alpha, p.a, p.lda, p.b, p.ldb, beta, p.c, p.ldc);
  else
    scipy_cblas_sgemm(CblasRowMajor, p.transA, p.transB, p.m, p.n, p.k, alpha, p.a, p.lda, p.b, p.ldb,
                      beta, p.c, p.ldc);
}

void runProduct(const FewRowsProduct &p, float alpha, float beta, bool pooled) {
  fewRowsGemm(p.m, p.n, p.k, alpha, p.a, p.b, beta, p.c, pooled);
}

// The products of one pass over the groups, c = alpha * a x b + beta * c for each.
class GemmPass {
public:
  // Adds c = a x b for a [m,k] and b [k,n], b in column panels (one: b is one matrix).
  void add(const Matrix &a, const std::vector<MatrixPanel> &bPanels, const Matrix &c, std::size_t m,
           std::size_t n, std::size_t k) {
    work_ += double(m) * double(n) * double(k);
    if (bPanels.size() > 1) { // only where fewRowsTake(m)
      std::vector<ColumnPanel> panels;
      for (const MatrixPanel &panel : bPanels) panels.push_back({panel.first, panel.width, panel.matrix.strided()});
      return products_.push_back(FewRowsProduct{m, n, k, a.strided(), std::move(panels), c.strided()});
    }
    const Matrix &b = bPanels.front().matrix;
    if (const auto product = fewRowsProduct(a, b, c, m, n, k)) return products_.push_back(*product);
    const auto op = [](bool transposed) { return transposed ? CblasTrans : CblasNoTrans; };
    if (c.transposed) // c is stored as its transpose: compute c^T = b^T x a^T
      products_.push_back(BlasProduct{op(!b.transposed), op(!a.transposed), int(n), int(m), int(k), b.data,
                                      b.ld, a.data, a.ld, c.data, c.ld});
    else
      products_.push_back(BlasProduct{op(a.transposed), op(b.transposed), int(m), int(n), int(k), a.data,
                                      a.ld, b.data, b.ld, c.data, c.ld});
  }

  // With a product for every thread and enough work, the products run side by side,
  // one per thread; otherwise one after another, each cut over the pool.
  void run(float alpha, float beta) {
    poplar::detail::ThreadPool &pool = poplar::detail::ThreadPool::instance();
    const bool sideBySide = products_.size() >= pool.size() && work_ >= kThreadedBatchWork;
    const auto runOne = [&](std::size_t i, bool pooled) {
      std::visit([&](const auto &product) { runProduct(product, alpha, beta, pooled); }, products_[i]);
    };
    if (sideBySide)
      pool.parallelFor(products_.size(), [&](std::size_t i, unsigned) { runOne(i, false); });
    else
      for (std::size_t i = 0; i < products_.size(); ++i) runOne(i, true);
  }

private:
  std::vector<std::variant<FewRowsProduct, BlasProduct>> products_;
  double work_ = 0; // multiply-adds
};

void roundToHalf(const Matrix &c, std::size_t rows, std::size_t cols) {
  using poplar::detail::floatToHalf, poplar::detail::halfToFloat;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) c.at(i, j) = halfToFloat(floatToHalf(c.at(i, j)));
}

// Addresses as integers: the layout search compares addresses of elements that
// may lie in different variables, which pointer arithmetic must not do.
using Address = std::intptr_t;
Address addressOf(const std::uint8_t *p) { return reinterpret_cast<Address>(p); }

// Calls fn(group, first, address, count, stride) for each run of consecutive
// elements that lies in one group's matrix; `first` is the run's first element
// within the matrix, `address` its place in memory.
template <class Fn> void forEachRunInGroups(const Access &a, std::size_t matrixSize, Fn fn) {
  std::size_t flat = 0;
  for (const Segment &s : a.segments) {
    for (std::size_t done = 0; done < s.count;) {
      const std::size_t first = flat % matrixSize;
      const std::size_t count = std::min(s.count - done, matrixSize - first);
      fn(flat / matrixSize, first, addressOf(s.base) + Address(done) * s.stride, count, s.stride);
      done += count;
      flat += count;
    }
  }
}

// Element (i, j) of a group's matrix lies at origin + i * rowStride + j * colStride.
struct StridedLayout {
  Address origin = 0;
  std::ptrdiff_t rowStride = 0, colStride = 0;
};

// Each group's strided layout, or nothing when some group's elements do not
// form one.
std::optional<std::vector<StridedLayout>> stridedLayouts(const Access &a, std::size_t groups,
                                                         std::size_t rows, std::size_t cols) {
  const std::size_t size = rows * cols;
  // The strides follow from the addresses of elements (0,0), (0,1) and (1,0).
  std::vector<Address> origin(groups), right(groups), below(groups);
  forEachRunInGroups(a, size, [&](std::size_t g, std::size_t first, Address address,
                                  std::size_t count, std::ptrdiff_t stride) {
    const auto record = [&](std::size_t element, std::vector<Address> &to) {
      if (first <= element && element < first + count)
        to[g] = address + Address(element - first) * stride;
    };
    record(0, origin);
    record(1, right);
    record(cols, below);
  });
  const auto elemSize = std::ptrdiff_t(a.elemSize);
  std::vector<StridedLayout> layouts(groups);
  for (std::size_t g = 0; g < groups; ++g) // a single column or row has no stride of its own
    layouts[g] = {origin[g], rows > 1 ? below[g] - origin[g] : elemSize * std::ptrdiff_t(cols),
                  cols > 1 ? right[g] - origin[g] : elemSize};

  // Every run must then continue the pattern: a step within a row moves by
  // colStride, a step to the next row's start by rowStride - (cols-1) * colStride.
  bool matches = true;
  forEachRunInGroups(a, size, [&](std::size_t g, std::size_t first, Address address,
                                  std::size_t count, std::ptrdiff_t stride) {
    const StridedLayout &l = layouts[g];
    const std::size_t i = first / cols, j = first % cols;
    const bool stepsAlongRow = count > 2 ? cols > 1 : count == 2 && j + 1 < cols;
    const bool stepsToNextRow = j + count > cols;
    matches = matches && address == l.origin + Address(i) * l.rowStride + Address(j) * l.colStride &&
              (!stepsAlongRow || stride == l.colStride) &&
              (!stepsToNextRow || stride == l.rowStride - std::ptrdiff_t(cols - 1) * l.colStride);
  });
  if (!matches) return std::nullopt;
  return layouts;
}

// Panels narrower than this (but the last) are not worth a part of a product of their own:
// such an operand (a transposed one, say, whose every column would be a panel) is staged.
constexpr std::size_t kLeastPanelColumns = 16;

// Each group's matrix as column panels side by side, each with unit column stride and rows
// a stride apart (as createMatMulInputRHS lays B out for few rows, so that a product of one row
// reads each panel as one stream), when it is laid out so in more than one panel; else nothing.
std::optional<std::vector<std::vector<MatrixPanel>>> columnPanels(const Access &a, std::size_t groups,
                                                                  std::size_t rows, std::size_t cols) {
  constexpr auto elemSize = Address(sizeof(float));
  if (cols <= kLeastPanelColumns) return std::nullopt;
  const std::size_t size = rows * cols;
  // A panel starts where row 0 breaks its unit stride; its rows' stride follows from row 1.
  std::vector<std::vector<Address>> firstRows(groups, std::vector<Address>(std::min<std::size_t>(rows, 2) * cols));
  forEachRunInGroups(a, size, [&](std::size_t g, std::size_t first, Address address, std::size_t count,
                                  std::ptrdiff_t stride) {
    for (std::size_t e = first; e < std::min(first + count, firstRows[g].size()); ++e)
      firstRows[g][e] = address + Address(e - first) * stride;
  });
  std::vector<std::vector<MatrixPanel>> panels(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::vector<Address> &at = firstRows[g];
    for (std::size_t j = 0; j < cols; ++j) {
      if (j > 0 && at[j] == at[j - 1] + elemSize) {
        ++panels[g].back().width;
        continue;
      }
      const Address rowStride = rows > 1 ? at[cols + j] - at[j] : Address(cols) * elemSize;
      if (rowStride % elemSize != 0 || rowStride / elemSize > INT_MAX) return std::nullopt;
      panels[g].push_back({j, 1, Matrix{reinterpret_cast<float *>(at[j]), int(rowStride / elemSize), false}});
    }
    for (const MatrixPanel &panel : panels[g])
      if ((panel.width < kLeastPanelColumns && &panel != &panels[g].back()) ||
          (rows > 1 && std::size_t(panel.matrix.ld) < panel.width))
        return std::nullopt;
    if (panels[g].size() < 2) return std::nullopt;
  }
  // Every element must then lie where its panel puts it.
  bool matches = true;
  forEachRunInGroups(a, size, [&](std::size_t g, std::size_t first, Address address, std::size_t count,
                                  std::ptrdiff_t stride) {
    for (std::size_t e = first; matches && e < first + count; ++e) {
      const std::size_t i = e / cols, j = e % cols;
      const auto panel = std::prev(std::upper_bound(panels[g].begin(), panels[g].end(), j,
                                                    [](std::size_t col, const MatrixPanel &p) { return col < p.first; }));
      matches = address + Address(e - first) * stride == addressOf(reinterpret_cast<const std::uint8_t *>(
                                                             &panel->matrix.at(i, j - panel->first)));
    }
  });
  if (!matches) return std::nullopt;
  return panels;
}

// The float matrix BLAS can address in place for a strided layout: unit stride
// along rows (row-major) or along columns (transposed), with a leading dimension
// that keeps rows (or columns) apart.
std::optional<Matrix> blasMatrix(const StridedLayout &l, std::size_t rows, std::size_t cols) {
  constexpr auto elemSize = std::ptrdiff_t(sizeof(float));
  if (l.rowStride % elemSize != 0 || l.colStride % elemSize != 0) return std::nullopt;
  const std::ptrdiff_t rowStride = l.rowStride / elemSize, colStride = l.colStride / elemSize;
  const auto matrix = [&](std::ptrdiff_t ld, bool transposed) -> std::optional<Matrix> {
    if (ld > INT_MAX) return std::nullopt;
    return Matrix{reinterpret_cast<float *>(l.origin), int(ld), transposed};
  };
  if ((cols == 1 || colStride == 1) && (rows == 1 || rowStride >= std::ptrdiff_t(cols)))
    return matrix(rows == 1 ? std::ptrdiff_t(cols) : rowStride, false);
  if ((rows == 1 || rowStride == 1) && (cols == 1 || colStride >= std::ptrdiff_t(rows)))
    return matrix(cols == 1 ? std::ptrdiff_t(rows) : colStride, true);
  return std::nullopt;
}

// One operand as float matrices, one per group. In place when it is FLOAT and
// laid out so BLAS can address it, or, where `mayUsePanels`, in column panels the few-rows
// kernel reads; otherwise staged in a dense float buffer, loaded (gathered, widened) before
// the product and stored (narrowed, scattered) after it.
class Operand {
public:
  Operand(const Access &access, std::size_t groups, std::size_t rows, std::size_t cols,
          bool mayUseInPlace, bool mayUsePanels = false)
      : access_(access) {
    if (mayUseInPlace && access.type == poplar::FLOAT) {
      if (const auto layouts = stridedLayouts(access, groups, rows, cols)) {
        for (const StridedLayout &layout : *layouts) {
          const auto matrix = blasMatrix(layout, rows, cols);
          if (!matrix) break;
          panels_.push_back({{0, cols, *matrix}});
        }
        if (panels_.size() == groups) return;
        panels_.clear();
      }
      if (mayUsePanels)
        if (auto panels = columnPanels(access, groups, rows, cols)) {
          panels_ = std::move(*panels);
          return;
        }
    }
    staged_ = true;
    staging_.resize(access.numElements);
    if (access.type == poplar::HALF) halves_.resize(access.numElements);
    for (std::size_t g = 0; g < groups; ++g)
      panels_.push_back({{0, cols, Matrix{staging_.data() + g * rows * cols, int(cols), false}}});
  }

  // A group's matrix, of an operand that is not in panels.
  const Matrix &matrix(std::size_t group) const { return panels_[group].front().matrix; }
  // A group's matrix as its column panels.
  const std::vector<MatrixPanel> &panels(std::size_t group) const { return panels_[group]; }

  void load() {
    if (!staged_) return;
    if (access_.type == poplar::FLOAT) return access_.gather(staging_.data());
    access_.gather(halves_.data());
    poplar::detail::halvesToFloats(halves_.data(), staging_.data(), halves_.size());
  }

  void store() {
    if (!staged_) return;
    if (access_.type == poplar::FLOAT) return access_.scatter(staging_.data());
    poplar::detail::floatsToHalves(staging_.data(), halves_.data(), halves_.size());
    access_.scatter(halves_.data());
  }

private:
  Access access_;
  bool staged_ = false;
  std::vector<float> staging_;
  std::vector<std::uint16_t> halves_;
  std::vector<std::vector<MatrixPanel>> panels_; // one panel a group unless in panels
};

class GemmKernel {
public:
  GemmKernel(const GemmProblem &problem, const Access &a, const Access &b, const Access &c,
             const std::optional<Access> &alphaTensor)
      : problem_(problem), a_(a, problem.groups, problem.m, problem.k, true),
        b_(b, problem.groups, problem.k, problem.n, true, fewRowsTake(problem.m)),
        // Written in place only when that cannot change the inputs mid-product.
        c_(c, problem.groups, problem.m, problem.n,
           !c.sharesVariableWith(a) && !c.sharesVariableWith(b)),
        alphaTensor_(alphaTensor) {
    // Half partials: a pass per chunk of the sum, rounding the running sum after each.
    const std::size_t k = problem.k;
    const std::size_t chunk = problem.partialsType == poplar::HALF ? kHalfPartialsChunk : k;
    for (std::size_t begin = 0; begin < k; begin += chunk) {
      GemmPass &pass = passes_.emplace_back();
      for (std::size_t g = 0; g < problem.groups; ++g) {
        std::vector<MatrixPanel> bRows;
        for (const MatrixPanel &panel : b_.panels(g)) bRows.push_back(panel.rowsFrom(begin));
        pass.add(a_.matrix(g).columnsFrom(begin), bRows, c_.matrix(g), problem.m, problem.n,
                 std::min(chunk, k - begin));
      }
    }
  }

  void run() {
    a_.load();
    b_.load();
    if (problem_.accumulate) c_.load();
    const float alpha = currentAlpha();
    for (std::size_t i = 0; i < passes_.size(); ++i) {
      passes_[i].run(alpha, i == 0 && !problem_.accumulate ? 0.0f : 1.0f);
      if (problem_.partialsType == poplar::HALF)
        for (std::size_t g = 0; g < problem_.groups; ++g)
          roundToHalf(c_.matrix(g), problem_.m, problem_.n);
    }
    c_.store();
  }

private:
  float currentAlpha() const {
    if (!alphaTensor_) return problem_.alpha;
    return float(poplar::detail::loadElement(alphaTensor_->type, alphaTensor_->data()));
  }

  GemmProblem problem_;
  Operand a_, b_, c_;
  std::optional<Access> alphaTensor_;
  std::vector<GemmPass> passes_;
};

} // namespace

std::function<void()> compileGemm(const GemmProblem &problem, const Access &a, const Access &b,
                                  const Access &c, const std::optional<Access> &alphaTensor) {
  if (problem.groups == 0 || problem.m == 0 || problem.n == 0 ||
      (problem.k == 0 && problem.accumulate))
    return [] {}; // nothing to write
  if (problem.k == 0) { // each element is an empty sum; zero bytes are 0.0 in FLOAT and HALF
    return [c, zeros = std::vector<std::uint8_t>(c.numElements * c.elemSize)] {
      c.scatter(zeros.data());
    };
  }
  // Shared, so the matrices' pointers into the kernel's buffers stay valid
  // wherever the Engine copies the function.
  auto kernel = std::make_shared<GemmKernel>(problem, a, b, c, alphaTensor);
  return [kernel] { kernel->run(); };
}

} // namespace poplin::detail
