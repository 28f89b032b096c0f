// popnn::rnn::Rnn driving a custom cell, as a custom-RNN program writes one: prints
// "label: values" lines that test_popnn_rnn.py checks against a float64 numpy reference.
// The cell: h_t = tanh(w x_t + u h_{t-1}) per element; inputs x[t][b][s] = sin(t + 2b + 3s).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/Rnn.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace {

using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Sequence;
namespace pe = popops::expr;

const std::size_t T = 5, B = 2, S = 3;
const float W = 0.7f, U = -0.4f;

struct Run {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph{device.getTarget()};
  Sequence prog;
  std::vector<std::pair<std::string, Tensor>> reads;

  Tensor sequence(const char *name) {
    Tensor t = graph.addVariable(poplar::FLOAT, {T, B, S}, name);
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
  Tensor inputs() {
    Tensor x = sequence("x");
    std::vector<float> values;
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s) values.push_back(std::sin(float(t + 2 * b + 3 * s)));
    graph.setInitialValue(x, poplar::ArrayRef<float>(values));
    return x;
  }
  // h0[b][s] = 0.1 (b + s), as [1][B][S] (a state tensor has a leading dimension of 1).
  Tensor initialState() {
    Tensor h0 = graph.addVariable(poplar::FLOAT, {1, B, S}, "h0");
    poputil::mapTensorLinearly(graph, h0);
    std::vector<float> values;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t s = 0; s < S; ++s) values.push_back(0.1f * float(b + s));
    graph.setInitialValue(h0, poplar::ArrayRef<float>(values));
    return h0;
  }
  void read(const std::string &label, const Tensor &t) { reads.emplace_back(label, t); }
  void print() {
    for (auto &r : reads) graph.createHostRead(r.first, r.second);
    poplar::Engine engine(graph, prog);
    engine.load(device);
    engine.run(0);
    for (auto &r : reads) {
      std::vector<float> values(r.second.numElements());
      engine.readTensor(r.first, values.data(), values.data() + values.size());
      std::cout << r.first << ":";
      for (float v : values) std::cout << ' ' << v;
      std::cout << '\n';
    }
  }
};

// The cell, writing w x_t into interimOut when there is one and h_t into the first output;
// with batchwise flags, batch elements past their step count keep their state.
Sequence cell(poplar::Graph &graph, const popnn::rnn::TimeStepState &, const popnn::rnn::RnnBatchwiseFlags &flags,
              std::vector<Tensor> &state, const popnn::rnn::RnnSlice &slice, std::vector<Tensor> &,
              Sequence *, const poplar::DebugNameAndId &) {
  Sequence step;
  const Tensor h = state[0][0];
  Tensor next = popops::map(graph, pe::Tanh(pe::Add(pe::Mul(pe::Const(W), pe::_1), pe::Mul(pe::Const(U), pe::_2))),
                            {slice.inputs[0], h}, step);
  if (flags.valid()) {
    const Tensor mask = flags.mask.expand({1}).broadcast(S, 1), keep = flags.inverse.expand({1}).broadcast(S, 1);
    popops::mapInPlace(graph, pe::Add(pe::Mul(pe::_1, pe::_2), pe::Mul(pe::_3, pe::_4)), {next, mask, h, keep}, step);
  }
  step.add(Copy(next, h));
  if (!slice.outputs.empty()) step.add(Copy(next, slice.outputs[0]));
  if (slice.interimOut.valid()) popops::mulWithOutput(graph, slice.inputs[0], W, slice.interimOut, step);
  return step;
}

// Forward or reverse over all steps with every sequence kind.
void runFixed(const char *label, bool reverse) {
  Run run;
  const popnn::rnn::RnnParams params(poplar::FLOAT, B, T, {S, S});
  Tensor x = run.inputs(), out = run.sequence("out"), states = run.sequence("states"), interim = run.sequence("wx");
  poplar::OptionFlags options{{"codeReuse", "true"}};
  std::vector<Tensor> final =
      popnn::rnn::Rnn(run.graph, params, reverse, {run.initialState()}, {states, 0}, {x}, nullptr, &interim, {out},
                      {}, run.prog, cell, 1, options, {"rnn"});
  run.read(std::string(label) + " out", out);
  run.read(std::string(label) + " states", states);
  run.read(std::string(label) + " wx", interim);
  run.read(std::string(label) + " final", final[0]);
  run.print();
}

// Per-batch step counts {2, 4}: element 0 keeps its state after step 1.
void runVariable() {
  Run run;
  Tensor limits = run.graph.addConstant(poplar::UNSIGNED_INT, {B}, std::vector<unsigned>{2, 4}.data(), "limits");
  run.graph.setTileMapping(limits, 0);
  const popnn::rnn::RnnParams params(poplar::FLOAT, B, T, limits, {S, S});
  Tensor x = run.inputs(), states = run.sequence("states");
  poplar::OptionFlags options;
  std::vector<Tensor> final = popnn::rnn::Rnn(run.graph, params, false, {run.initialState()}, {states, 0}, {x},
                                              nullptr, nullptr, {}, {}, run.prog, cell, 1, options);
  run.read("variable final", final[0]);
  run.read("variable states", states);
  run.print();
}

// The gather form from the last step down, 2 steps a gather: the step keeps h_t and x_t as
// its two temporaries; each gather adds sum over its steps of h_t * y_t (y = the gather
// input, 1 + t) into an accumulator the first call creates and zeroes.
void runGather() {
  Run run;
  const popnn::rnn::RnnParams params(poplar::FLOAT, B, T, {S, S});
  Tensor x = run.inputs(), y = run.sequence("y"), interimIn = run.sequence("unused");
  std::vector<float> yValues;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < B * S; ++i) yValues.push_back(float(1 + t));
  run.graph.setInitialValue(y, poplar::ArrayRef<float>(yValues));
  run.graph.setInitialValue(interimIn, poplar::ArrayRef<float>(std::vector<float>(T * B * S, 0.f)));
  Tensor accumulator;
  std::string calls;
  auto step = [](poplar::Graph &graph, const popnn::rnn::TimeStepState &time,
                 const popnn::rnn::RnnBatchwiseFlags &flags, std::vector<Tensor> &state,
                 const popnn::rnn::RnnSlice &slice, std::vector<Tensor> &created, Sequence *init,
                 const poplar::DebugNameAndId &dnai) {
    popnn::rnn::RnnSlice plain = slice;
    plain.interimOut = Tensor();
    Sequence body = cell(graph, time, flags, state, plain, created, init, dnai);
    body.add(Copy(state[0][0], slice.interimOut[0]));
    body.add(Copy(slice.inputs[0], slice.interimOut[1]));
    return body;
  };
  auto gather = [&](poplar::Graph &graph, const popnn::rnn::RnnSlice &slice, unsigned steps, Sequence *init,
                    const poplar::DebugNameAndId &) {
    calls += (calls.empty() ? "" : ",") + std::to_string(steps) + (init ? "i" : "");
    if (init) {
      accumulator = graph.addVariable(poplar::FLOAT, {B, S}, "accumulator");
      poputil::mapTensorLinearly(graph, accumulator);
      popops::zero(graph, accumulator, *init);
    }
    Sequence body;
    Tensor products = popops::mul(graph, slice.interimIn.slice(0, 1, 1).squeeze({1}), slice.inputs[0], body);
    popops::reduceWithOutput(graph, products, accumulator, {0}, {popops::Operation::ADD, true}, body);
    return body;
  };
  poplar::OptionFlags options;
  std::vector<Tensor> final = popnn::rnn::Rnn(run.graph, params, {run.initialState()}, {}, {x}, interimIn, 2,
                                              run.prog, step, {y}, gather, 1, 2, options);
  std::cout << "gather calls: " << calls << '\n';
  run.read("gather accumulated", accumulator);
  run.read("gather final", final[0]);
  run.print();
}

void expectError(const char *label, void (*f)()) {
  try {
    f();
    std::cout << label << ": no error\n";
  } catch (const std::exception &e) {
    std::cout << label << ": " << e.what() << '\n';
  }
}

} // namespace

int main() {
  std::cout.precision(9);
  runFixed("forward", false);
  runFixed("reverse", true);
  runVariable();
  runGather();
  expectError("bad option", [] {
    Run run;
    const popnn::rnn::RnnParams params(poplar::FLOAT, B, T, {S, S});
    poplar::OptionFlags options{{"unrolled", "true"}};
    popnn::rnn::Rnn(run.graph, params, false, {run.initialState()}, {}, {run.inputs()}, nullptr, nullptr, {}, {},
                    run.prog, cell, 1, options);
  });
  expectError("short input", [] {
    Run run;
    const popnn::rnn::RnnParams params(poplar::FLOAT, B, T, {S, S});
    poplar::OptionFlags options;
    popnn::rnn::Rnn(run.graph, params, false, {run.initialState()}, {}, {run.inputs().slice(0, 3)}, nullptr,
                    nullptr, {}, {}, run.prog, cell, 1, options);
  });
}
