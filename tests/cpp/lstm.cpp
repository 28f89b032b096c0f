// popnn::lstm as a program calls it: lstmFwd, then lstmBwdWithWU (or lstmBwd and lstmWU)
// after a forward pass that keeps its intermediates, on inputs made from value(i, seed,
// scale) (test_popnn_lstm.py makes the same in float64 numpy); prints "name: shape | v v ..."
// lines and the errors of refused calls.
#include <poplar/IPUModel.hpp>
#include <popnn/Lstm.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "run_and_read.hpp"
#include "seeded_values.hpp"

namespace {

void print(const std::string &label, const poplar::Tensor &t, const std::vector<float> &values) {
  std::cout << label << ":";
  for (std::size_t d : t.shape()) std::cout << ' ' << d;
  std::cout << " |" << exactly(values) << '\n';
}

// A 2-batch, 3-step LSTM of 4 inputs and 5 outputs with its operands filled in.
struct Lstm {
  poplar::Device device;
  poplar::Graph graph;
  popnn::lstm::LstmParams params;
  poplar::Tensor in;
  popnn::lstm::LstmState init;
  popnn::lstm::LstmWeights weights;
  poplar::program::Sequence prog;

  Lstm(bool fullSequence, std::vector<BasicLstmCellUnit> order, bool kernelApart)
      : device(model().createDevice()), graph(device.getTarget()), params(poplar::FLOAT, 2, 3, {4, 5}) {
    params.outputFullSequence = fullSequence;
    params.cellOrder = order;
    in = popnn::lstm::createInput(graph, params, "in");
    if (kernelApart) { // as some programs make them
      init = {popnn::lstm::createInitialOutput(graph, params, "h0"),
              popnn::lstm::createInitialCellState(graph, params, "c0")};

      std::tie(weights.inputWeights, weights.outputWeights) = popnn::lstm::createWeightsKernel(graph, params, "k");
      weights.biases = popnn::lstm::createWeightsBiases(graph, params, "biases");
    } else {
      init = popnn::lstm::createInitialState(graph, params, "init");
      weights = popnn::lstm::createWeights(graph, params, "weights");
    }
    fill(graph, in, 0.1, 1.0);
    fill(graph, init.output, 0.2, 0.5);
    fill(graph, init.cellState, 0.8, 0.5);
    fill(graph, weights.inputWeights, 0.3, 0.6);
    fill(graph, weights.outputWeights, 0.4, 0.6);
    fill(graph, weights.biases, 0.5, 0.3);
  }

  static poplar::IPUModel model() {
    poplar::IPUModel m("ipu2");
    m.tilesPerIPU = 4;
    return m;
  }
};

const std::vector<BasicLstmCellUnit> kShuffled = {BASIC_LSTM_CELL_OUTPUT_GATE, BASIC_LSTM_CELL_CANDIDATE,
                                                  BASIC_LSTM_CELL_FORGET_GATE, BASIC_LSTM_CELL_INPUT_GATE};

// The output and the final cell state.
void forward(const std::string &label, bool fullSequence, std::vector<BasicLstmCellUnit> order) {
  Lstm lstm(fullSequence, order, !fullSequence);
  std::cout << label << " units: " << (lstm.weights.inputWeights.dim(0) == BASIC_LSTM_CELL_NUM_UNITS) << ' '
            << lstm.init.output.rank() << lstm.init.cellState.rank() << '\n';
  poplar::Tensor out, cell;
  std::tie(out, cell) = popnn::lstm::lstmFwd(lstm.graph, lstm.params, lstm.init, lstm.in, lstm.weights, nullptr,
                                             lstm.prog, "lstm");
  const poplar::Tensor all = poplar::concat(out.flatten(), cell.flatten());
  print(label, out, runAndRead(lstm.graph, lstm.prog, lstm.device, all));
}

// The gradients of the initial output and cell state, the input and the weights, with
// outputGrad from value(i, 0.6, 1) and the last state's gradients from seeds 0.9 and 1.1.
void train(const std::string &label, bool fullSequence, std::vector<BasicLstmCellUnit> order, bool split) {
  Lstm lstm(fullSequence, order, false);
  poplar::Tensor intermediates, inputGrad;
  poplar::Tensor out = popnn::lstm::lstmFwd(lstm.graph, lstm.params, lstm.init, lstm.in, lstm.weights,
                                            &intermediates, lstm.prog, "lstm")
                           .first;
  const poplar::Tensor outGrad = lstm.graph.clone(out, "outGrad");
  fill(lstm.graph, outGrad, 0.6, 1.0);
  popnn::lstm::LstmState last = popnn::lstm::createInitialState(lstm.graph, lstm.params, "last");
  fill(lstm.graph, last.output, 0.9, 1.0);
  fill(lstm.graph, last.cellState, 1.1, 1.0);
  popnn::lstm::LstmWeights grads;
  popnn::lstm::LstmState initGrad;
  if (split) { // the cell state's gradient alone
    poplar::Tensor bwdIntermediates;
    initGrad = popnn::lstm::lstmBwd(lstm.graph, lstm.params, lstm.prog, lstm.init, intermediates, lstm.weights,
                                    lstm.in, out, outGrad, &last.cellState, &inputGrad, &bwdIntermediates, "bwd");
    grads = popnn::lstm::lstmWU(lstm.graph, lstm.params, lstm.prog, lstm.init, intermediates, bwdIntermediates,
                                lstm.weights, lstm.in, out, "wu");
  } else {
    initGrad = popnn::lstm::lstmBwdWithWU(lstm.graph, lstm.params, lstm.prog, lstm.init, intermediates,
                                          lstm.weights, lstm.in, out, outGrad, &last, &inputGrad, grads, "bwd");
  }
  const poplar::Tensor all =
      poplar::concat({initGrad.getAsTensor().flatten(), inputGrad.flatten(), grads.inputWeights.flatten(),
                      grads.outputWeights.flatten(), grads.biases.flatten()});
  print(label, all, runAndRead(lstm.graph, lstm.prog, lstm.device, all));
}

template <class F> void refused(const char *label, F f) {
  try {
    f();
    std::cout << label << ": accepted\n";
  } catch (const std::exception &e) {
    std::cout << label << ": " << e.what() << '\n';
  }
}

} // namespace

int main() {
  forward("forward", true, popnn::lstm::getDefaultBasicLstmCellOrder());
  forward("forward last", false, kShuffled);
  train("grad", true, popnn::lstm::getDefaultBasicLstmCellOrder(), false);
  train("grad split", false, kShuffled, true);
  refused("variable steps", [] {
    Lstm lstm(true, popnn::lstm::getDefaultBasicLstmCellOrder(), false);
    poplar::Tensor steps = lstm.graph.addConstant(poplar::UNSIGNED_INT, {2}, 3u);
    lstm.graph.setTileMapping(steps, 0);
    const popnn::lstm::LstmParams variable(poplar::FLOAT, 2, 3, steps, {4, 5});
    popnn::lstm::lstmFwd(lstm.graph, variable, lstm.init, lstm.in, lstm.weights, nullptr, lstm.prog);
  });
  refused("bad option", [] {
    Lstm lstm(true, popnn::lstm::getDefaultBasicLstmCellOrder(), false);
    popnn::lstm::lstmFwd(lstm.graph, lstm.params, lstm.init, lstm.in, lstm.weights, nullptr, lstm.prog, {},
                         {{"fastMath", "true"}});
  });
  refused("zero state", [] {
    Lstm lstm(true, popnn::lstm::getDefaultBasicLstmCellOrder(), false);
    popnn::lstm::zeroInitialState(lstm.graph, lstm.init, lstm.prog);
    const std::vector<float> v = runAndRead(lstm.graph, lstm.prog, lstm.device, lstm.init.getAsTensor());
    if (v.size() != 20 || v[0] != 0.f || v[19] != 0.f) throw std::runtime_error("not zeroed");
  });
}
