// popnn/Recurrent.hpp's vanilla RNN as a program uses it: the sequence forms and the step
// forms on inputs from value(i, seed, scale) (test_popnn_recurrent.py makes the same in
// float64 numpy); prints "name: v v ..." lines.
#include <poplar/IPUModel.hpp>
#include <popnn/Recurrent.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "run_and_read.hpp"
#include "seeded_values.hpp"

namespace {

const unsigned S = 3, B = 2, I = 4, O = 5;

void print(const std::string &label, const std::vector<float> &values) {
  std::cout << label << ":" << exactly(values) << '\n';
}

struct Layer {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph{device.getTarget()};
  poplar::program::Sequence prog;
  poplar::Tensor x, init, wff, wfb, bias;

  explicit Layer(bool zeroState) {
    x = popnn::rnn::createInput(graph, S, B, I, O, poplar::FLOAT);
    init = popnn::rnn::createFwdState(graph, poplar::FLOAT, B, O, prog, zeroState, false, "init");
    wff = popnn::rnn::createWeightsInput(graph, S, B, I, O, poplar::FLOAT);
    wfb = popnn::rnn::createWeightsFeedback(graph, B, O, poplar::FLOAT);
    bias = graph.addVariable(poplar::FLOAT, {O}, "bias");
    graph.setTileMapping(bias, 0);
    fill(graph, x, 0.1, 1.0);
    if (!zeroState) fill(graph, popnn::rnn::getOutputFromFwdState(init), 0.2, 0.5);
    fill(graph, wff, 0.3, 0.6);
    fill(graph, wfb, 0.4, 0.6);
    fill(graph, bias, 0.5, 0.3);
  }
};

} // namespace

int main() {
  { // the sequence forms: forward, then back with the weight deltas
    Layer layer(false);
    std::cout << "shapes: " << layer.x.rank() << layer.init.rank() << ' ' << layer.wff.dim(0) << 'x'
              << layer.wff.dim(1) << ' ' << layer.wfb.dim(0) << 'x' << layer.wfb.dim(1) << '\n';
    const poplar::Tensor states =
        popnn::rnn::rnnFwdSequence(layer.graph, layer.prog, layer.init, nullptr, layer.bias, layer.wff, layer.wfb,
                                   layer.x, popnn::NonLinearityType::TANH, poplar::FLOAT, false, "fwd");
    const poplar::Tensor outGrad = layer.graph.clone(states, "outGrad");
    fill(layer.graph, outGrad, 0.6, 1.0);
    poplar::Tensor inputGrad, wffDelta, wfbDelta, biasDelta;
    std::tie(inputGrad, wffDelta, wfbDelta, biasDelta) = popnn::rnn::rnnBwdSequence(
        layer.graph, true, false, layer.prog, layer.init, states, layer.bias, layer.wff, layer.wfb, outGrad, layer.x,
        popnn::NonLinearityType::TANH, poplar::FLOAT, "bwd");
    const poplar::Tensor all = poplar::concat({states.flatten(), inputGrad.flatten(), wffDelta.flatten(),
                                               wfbDelta.flatten(), biasDelta.flatten()});
    print("sequence", runAndRead(layer.graph, layer.prog, layer.device, all));
  }
  { // the step forms from a zeroed state, with the input weighted first
    Layer layer(true);
    const poplar::Tensor weighted = popnn::rnn::forwardWeightInput(layer.graph, layer.x, layer.wff, layer.prog);
    const poplar::Tensor out = popnn::rnn::forwardIterate(layer.graph, weighted, layer.init, layer.wfb, layer.bias,
                                                          layer.prog, popnn::NonLinearityType::SIGMOID);
    const poplar::Tensor again =
        popnn::rnn::rnnFwdSequence(layer.graph, layer.prog, layer.init, &weighted, layer.bias, layer.wff, layer.wfb,
                                   layer.x, popnn::NonLinearityType::SIGMOID, poplar::FLOAT, true);
    // The last step back by hand: with and without the input gradient, and its deltas.
    const poplar::Tensor grad = layer.graph.clone(out[S - 1], "grad");
    fill(layer.graph, grad, 0.7, 1.0);
    poplar::Tensor bwd = popnn::rnn::createBwdState(layer.graph, poplar::FLOAT, B, O, layer.prog);
    poplar::Tensor inputGrad, state;
    std::tie(inputGrad, state) = popnn::rnn::backwardGradientStep(layer.graph, grad, bwd, out[S - 1], layer.wff,
                                                                  layer.wfb, layer.prog,
                                                                  popnn::NonLinearityType::SIGMOID);
    const poplar::Tensor stateOnly = popnn::rnn::backwardGradientStep(
        layer.graph, grad, bwd, out[S - 1], layer.wfb, layer.prog, popnn::NonLinearityType::SIGMOID);
    poplar::Tensor wffDelta = layer.graph.clone(layer.wff), wfbDelta = layer.graph.clone(layer.wfb);
    poplar::Tensor biasDelta = layer.graph.clone(layer.bias);
    fill(layer.graph, wffDelta, 0.8, 1.0);
    fill(layer.graph, wfbDelta, 0.9, 1.0);
    fill(layer.graph, biasDelta, 1.0, 1.0);
    popnn::rnn::paramDeltaUpdate(layer.graph, state, layer.x[S - 1], out[S - 2], wffDelta, wfbDelta, biasDelta,
                                 layer.prog);
    const poplar::Tensor all = poplar::concat({out.flatten(), again.flatten(), inputGrad.flatten(), state.flatten(),
                                               stateOnly.flatten(), wffDelta.flatten(), wfbDelta.flatten(),
                                               biasDelta.flatten()});
    print("steps", runAndRead(layer.graph, layer.prog, layer.device, all));
  }
}
