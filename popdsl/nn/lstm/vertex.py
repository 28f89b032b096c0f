"""The LSTM step's cell as custom vertices, one per group of batch rows. Forward: the gates
from their units and biases, the cell state, the output and the rows popnn saves, in one
pass over the step's elements where maps and a copy make six (each a step of its own).
Backward: the gate gradients and the previous step's cell gradient, in one pass where six
maps ran. They serve the common LSTM (float, tanh and sigmoid, no time-step limits) when
intermediates are saved (and, backward, with every step's output gradient and no
recomputation); the maps of cell.py and bwd.py serve the rest, and popnn's two-pass
inference cell, as fast as these vertices, the steps that save nothing. On the IPU these
are plain C++ vertices; on a host, their loops are built for AVX-512 and AVX2 as well, and
the CPU picks."""
from __future__ import annotations

import popdsl as pd
from popdsl.nn.lstm.params import (ACT_CELL, CANDIDATE, FORGET, GATES, INPUT, OUTPUT, PREV_CELL, LstmParams,
                                   _positions)
from popdsl.tensor import Tensor

CODELET = r"""
#include <poplar/Vertex.hpp>
#include <cstdint>
#include <cstring>

namespace {
// e^x for |x| within float's range: x = n ln2 + r, e^r from a degree-6 polynomial,
// 2^n from the exponent bits in two halves (so results near the ends of the range keep
// their subnormals and infinities). Beyond the clamps the result is 0 or inf. NaN fails
// `x > -104` and computes as -104 (converting NaN to int would be undefined), then comes back.
inline float expOf(float x) {
  const float floored = x > -104.0f ? x : -104.0f;
  const float clamped = floored < 89.0f ? floored : 89.0f;
  const float shifter = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer
  const float n = (clamped * 1.44269504f + shifter) - shifter;
  const float r = (clamped - n * 0.693145752f) - n * 1.42860677e-06f;
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  const std::int32_t k = static_cast<std::int32_t>(n), low = k / 2;
  const std::uint32_t lowBits = static_cast<std::uint32_t>(low + 127) << 23;
  const std::uint32_t highBits = static_cast<std::uint32_t>(k - low + 127) << 23;
  float lowScale, highScale;
  std::memcpy(&lowScale, &lowBits, sizeof lowScale);
  std::memcpy(&highScale, &highBits, sizeof highScale);
  return x != x ? x : p * lowScale * highScale;
}

inline float sigmoidOf(float x) { return 1.0f / (1.0f + expOf(-x)); }

// tanh: an odd series near 0 (no cancellation), 1 - 2 / (e^2|x| + 1) above.
inline float tanhOf(float x) {
  const float a = x < 0 ? -x : x, s = a * a;
  const float series = a + a * s * (-0.333333283662796f + s * (0.13332980871200562f + s * (-0.05390097573399544f +
                       s * (0.021306009963154793f + s * -0.006660073064267635f))));
  const float viaExp = 1.0f - 2.0f / (expOf(2.0f * (a < 9.1f ? a : 9.1f)) + 1.0f);
  const float magnitude = a < 0.5f ? series : viaExp;
  return x != x ? x : (x < 0 ? -magnitude : magnitude);
}
} // namespace

#if defined(__x86_64__) && !defined(__IPU__) && defined(__GNUC__) && !defined(__clang__)
#define LSTM_CELL_LOOP \
  __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default"), flatten, optimize("O3,fp-contract=fast")))
#else
#define LSTM_CELL_LOOP
#endif

// One batch row of h elements. `units` and `biases` hold the gates forget, input,
// candidate and output at rows gateAt[0..3] of h.
LSTM_CELL_LOOP static void cellRow(const float *__restrict units, const float *__restrict biases,
                                   const unsigned *gateAt, float *__restrict cell, float *__restrict output,
                                   float *__restrict forget, float *__restrict input, float *__restrict candidate,
                                   float *__restrict outputGate, float *__restrict actCell,
                                   float *__restrict prevCell, unsigned h) {
  const float *uf = units + gateAt[0] * h, *ui = units + gateAt[1] * h;
  const float *ug = units + gateAt[2] * h, *uo = units + gateAt[3] * h;
  const float *bf = biases + gateAt[0] * h, *bi = biases + gateAt[1] * h;
  const float *bg = biases + gateAt[2] * h, *bo = biases + gateAt[3] * h;
  for (unsigned j = 0; j < h; ++j) {
    const float f = sigmoidOf(uf[j] + bf[j]), i = sigmoidOf(ui[j] + bi[j]);
    const float g = tanhOf(ug[j] + bg[j]), o = sigmoidOf(uo[j] + bo[j]);
    const float previous = cell[j], next = f * previous + i * g, act = tanhOf(next);
    cell[j] = next;
    output[j] = o * act;
    forget[j] = f; input[j] = i; candidate[j] = g; outputGate[j] = o; actCell[j] = act; prevCell[j] = previous;
  }
}

// The cell of `rows` batch rows (units [rows][4][h] in cell order, biases [4][h]), writing
// the rows popnn saves too: the four gates, act(c_t) and c_{t-1}.
class LstmCell : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> units, biases;
  poplar::InOut<poplar::Vector<float>> cell;
  poplar::Output<poplar::Vector<float>> output, forget, input, candidate, outputGate, actCell, prevCell;
  poplar::Vector<unsigned> gateAt;
  unsigned hidden;
  bool compute() {
    const unsigned rows = cell.size() / hidden;
    for (unsigned r = 0; r < rows; ++r) {
      const unsigned at = r * hidden;
      cellRow(&units[4 * at], &biases[0], &gateAt[0], &cell[at], &output[at], &forget[at], &input[at],
              &candidate[at], &outputGate[at], &actCell[at], &prevCell[at], hidden);
    }
    return true;
  }
};

// One batch row's gate gradients (at rows gateAt[0..3] of h of `gateGrads`) from the saved
// rows and the step's output gradient dy + dh; dc becomes the previous step's cell gradient.
LSTM_CELL_LOOP static void cellGradRow(const float *__restrict f, const float *__restrict i,
                                       const float *__restrict g, const float *__restrict o,
                                       const float *__restrict act, const float *__restrict prev,
                                       const float *__restrict dy, const float *__restrict dh,
                                       float *__restrict dc, float *__restrict gateGrads, const unsigned *gateAt,
                                       unsigned h) {
  float *df = gateGrads + gateAt[0] * h, *di = gateGrads + gateAt[1] * h;
  float *dg = gateGrads + gateAt[2] * h, *dout = gateGrads + gateAt[3] * h;
  for (unsigned j = 0; j < h; ++j) {
    const float outputGrad = dy[j] + dh[j];
    const float cellGrad = (1 - act[j] * act[j]) * o[j] * outputGrad + dc[j];
    df[j] = f[j] * (1 - f[j]) * prev[j] * cellGrad;
    di[j] = i[j] * (1 - i[j]) * g[j] * cellGrad;
    dg[j] = (1 - g[j] * g[j]) * i[j] * cellGrad;
    dout[j] = o[j] * (1 - o[j]) * act[j] * outputGrad;
    dc[j] = f[j] * cellGrad;
  }
}

// The backward step of `rows` batch rows: gate gradients [rows][4][h] in cell order from the
// saved rows [rows][h] each, the output gradients dy and dh, and the cell gradient dc.
class LstmCellGrad : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> forget, input, candidate, outputGate, actCell, prevCell, outputGrad,
      recurrentGrad;
  poplar::InOut<poplar::Vector<float>> cellGrad;
  poplar::Output<poplar::Vector<float>> gateGrads;
  poplar::Vector<unsigned> gateAt;
  unsigned hidden;
  bool compute() {
    const unsigned rows = cellGrad.size() / hidden;
    for (unsigned r = 0; r < rows; ++r) {
      const unsigned at = r * hidden;
      cellGradRow(&forget[at], &input[at], &candidate[at], &outputGate[at], &actCell[at], &prevCell[at],
                  &outputGrad[at], &recurrentGrad[at], &cellGrad[at], &gateGrads[4 * at], &gateAt[0], hidden);
    }
    return true;
  }
};
"""

# Batch rows a vertex takes: a vertex's fixed cost (its fields' set-up) is paid per vertex.
# At B=32 on two threads a step took 40 us in vertices of 8 or 16 rows, 46-47 in vertices
# of 4 and 50 in vertices of one.
ROWS_PER_VERTEX = 8
# A vertex's estimated cycles per element: three sigmoids and two tanhs on a tile's worker,
# and the backward step's twenty-odd multiplies and adds.
CYCLES_PER_ELEMENT = 60
GRAD_CYCLES_PER_ELEMENT = 12


def fits(params: LstmParams) -> bool:
    """Whether the vertices compute this LSTM's cell: float, tanh and sigmoid, and no
    time-step limits (whose masks the maps apply)."""
    return (params.dtype == pd.float32 and params.activation == "tanh" and params.recurrent_activation == "sigmoid"
            and params.variable_time_steps is None)


def vertex_cell(params: LstmParams, graph, cell: Tensor, output: Tensor, biases: Tensor, step: Tensor):
    """cell_step(t, units) for the gate units [B, 4, H] and biases [4, H] in cell order: one
    compute set of vertices that advance `cell` and `output` (returned) and write the saved
    rows into `step` [6, B, H]. Each vertex reads a copy of the biases of its own, made here,
    once a run: its tile's, and not the caller's tensor, which pd.grad would then take for
    one the vertices write (it cannot tell a vertex's inputs from its outputs)."""
    graph.add_codelets(CODELET)
    h = params.output_size
    groups = _groups(params, graph)
    on_tiles = [[] for _ in range(graph.target.getNumTiles())]
    for k, (_, tile) in enumerate(groups):
        on_tiles[tile].append((k * 4 * h, (k + 1) * 4 * h))
    biases = pd.copy(biases.expand(0).broadcast((len(groups), 4, h)),
                     graph.variable(params.dtype, (len(groups), 4, h), name="cellBiases", mapping=on_tiles))
    saved = {"forget": step[FORGET], "input": step[INPUT], "candidate": step[CANDIDATE], "outputGate": step[OUTPUT],
             "actCell": step[ACT_CELL], "prevCell": step[PREV_CELL]}
    gate_at = _positions(params, GATES)

    def cell_step(t, units):
        with pd.compute_set("lstmCell") as cs:
            for k, (rows, tile) in enumerate(groups):
                cs.vertex("LstmCell", tile=tile, perf_estimate=_elements(rows, h) * CYCLES_PER_ELEMENT,
                          units=units[rows], biases=biases[k], cell=cell[rows], output=output[rows],
                          gateAt=gate_at, hidden=h, **{name: row[rows] for name, row in saved.items()})
        return output
    return cell_step


def fits_backward(params: LstmParams, recomputation_mode: str) -> bool:
    """Whether the backward step's vertices serve: as fits(), with every step's output
    gradient (a full output sequence) and the saved act(c_t) and c_{t-1} (no recomputation)."""
    return fits(params) and params.output_full_sequence and recomputation_mode == "none"


def vertex_cell_grad(params: LstmParams, graph, cell_grad: Tensor, gate_grads: Tensor):
    """cell_grad_step(saved, dy, dh) for the step's saved rows [6, B, H] and output gradients
    dy, dh [B, H]: one compute set of vertices that write the gate gradients [B, 4, H] (cell
    order) into gate_grads and turn cell_grad into the previous step's."""
    graph.add_codelets(CODELET)
    h = params.output_size
    groups = _groups(params, graph)
    gate_at = _positions(params, GATES)

    def cell_grad_step(saved, dy, dh):
        with pd.compute_set("lstmCellGrad") as cs:
            for rows, tile in groups:
                cs.vertex("LstmCellGrad", tile=tile, perf_estimate=_elements(rows, h) * GRAD_CYCLES_PER_ELEMENT,
                          forget=saved[FORGET, rows], input=saved[INPUT, rows], candidate=saved[CANDIDATE, rows],
                          outputGate=saved[OUTPUT, rows], actCell=saved[ACT_CELL, rows],
                          prevCell=saved[PREV_CELL, rows], outputGrad=dy[rows], recurrentGrad=dh[rows],
                          cellGrad=cell_grad[rows], gateGrads=gate_grads[rows], gateAt=gate_at,
                          hidden=h)
    return cell_grad_step


def _groups(params: LstmParams, graph) -> list:
    """(batch rows, tile) of each vertex: ROWS_PER_VERTEX rows at a time, spread over the tiles."""
    b, tiles = params.batch_size, graph.target.getNumTiles()
    firsts = range(0, b, ROWS_PER_VERTEX)
    return [(slice(first, min(first + ROWS_PER_VERTEX, b)), k * tiles // len(firsts)) for k, first in enumerate(firsts)]


def _elements(rows: slice, h: int) -> int:
    return (rows.stop - rows.start) * h
