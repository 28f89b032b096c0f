// popnn::rnn::Rnn: a custom cell run over the time steps. The step's program is built once
// (one call of the cell) and repeated, slicing each sequence at a time-index scalar.
#include <popnn/Rnn.hpp>

#include <popops/Cast.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <string>

namespace popnn {
namespace rnn {

namespace {

using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Repeat;
using poplar::program::Sequence;
namespace pe = popops::expr;

// An UNSIGNED_INT scalar on tile 0 set to `value` by `prog`.
Tensor counterScalar(poplar::Graph &graph, unsigned value, Sequence &prog, const poplar::DebugContext &dc) {
  Tensor t = graph.addVariable(poplar::UNSIGNED_INT, {}, dc);
  graph.setTileMapping(t, 0);
  Tensor init = graph.addConstant(poplar::UNSIGNED_INT, {}, value, dc);
  graph.setTileMapping(init, 0);
  prog.add(Copy(init, t));
  return t;
}

void setScalar(poplar::Graph &graph, const Tensor &t, unsigned value, Sequence &prog) {
  Tensor v = graph.addConstant(poplar::UNSIGNED_INT, {}, value);
  graph.setTileMapping(v, 0);
  prog.add(Copy(v, t));
}

Tensor stepOf(poplar::Graph &graph, const Tensor &seq, const Tensor &index, Sequence &prog,
              const poplar::DebugContext &dc) {
  return popops::dynamicSlice(graph, seq, index.reshape({1}), {0}, {1}, prog, dc).squeeze({0});
}

void checkRnnOptions(const poplar::OptionFlags &options) {
  for (const auto &option : options) {
    if (option.first != "codeReuse")
      throw poplar::invalid_option("popnn::rnn::Rnn: unknown option '" + option.first + "'");
    if (option.second != "true" && option.second != "false")
      throw poplar::invalid_option("popnn::rnn::Rnn: codeReuse must be true or false, not '" + option.second +
                                   "'");
  }
}

void checkSequence(const RnnParams &params, const Tensor &t, const std::string &what) {
  if (t.valid() && (t.rank() == 0 || t.dim(0) != params.maxTimeSteps))
    throw poputil::poplibs_error("popnn::rnn::Rnn: " + what + " must have maxTimeSteps (" +
                                 std::to_string(params.maxTimeSteps) + ") steps in its outermost dimension");
}

// What every step shares: the state, the time scalars and the batchwise flags.
struct Stepper {
  poplar::Graph &graph;
  const RnnParams &params;
  std::vector<Tensor> state;
  TimeStepState time;
  poplar::DebugNameAndId dnai;

  Stepper(poplar::Graph &graph, const RnnParams &params, const std::vector<Tensor> &initState,
          const StateSequence &stateSequence, const std::vector<Tensor> &inputs, unsigned numShards,
          const poplar::OptionFlags &options, unsigned firstIndex, Sequence &prog, const poplar::DebugContext &dc)
      : graph(graph), params(params), dnai(poplar::DebugInfo(dc, "popnn")) {
    if (numShards == 0) throw poputil::poplibs_error("popnn::rnn::Rnn: numShards must be at least 1");
    checkRnnOptions(options);
    for (std::size_t i = 0; i < inputs.size(); ++i) checkSequence(params, inputs[i], "input " + std::to_string(i));
    checkSequence(params, stateSequence.output, "stateSequence.output");
    if (stateSequence.output.valid() && stateSequence.stateIndex >= initState.size())
      throw poputil::poplibs_error("popnn::rnn::Rnn: stateSequence.stateIndex " +
                                   std::to_string(stateSequence.stateIndex) + " is past the " +
                                   std::to_string(initState.size()) + " state tensors");
    for (const Tensor &s : initState) {
      state.push_back(graph.clone(s, {dc, "state"}));
      prog.add(Copy(s, state.back()));
    }
    time.begin = graph.addConstant(poplar::UNSIGNED_INT, {}, 0u, {dc, "begin"});
    graph.setTileMapping(time.begin, 0);
    time.counter = counterScalar(graph, firstIndex, prog, {dc, "counter"});
    if (!params.variableTimeSteps()) {
      time.variableSeqFlag = graph.addConstant(poplar::BOOL, {}, false, {dc, "variableSeqFlag"});
      graph.setTileMapping(time.variableSeqFlag, 0);
    }
  }

  // Per step with variable time steps: which batch elements the step is within.
  RnnBatchwiseFlags flags(Sequence &body) {
    RnnBatchwiseFlags flags;
    if (!params.variableTimeSteps()) return flags;
    const Tensor index = time.counter.reshape({1});
    const Tensor &limits = params.varTimeSteps.flatten();
    const pe::Cast step(pe::_1, poplar::INT), limit(pe::_2, poplar::INT);
    Tensor past = popops::map(graph, pe::Gte(step, limit), {index, limits}, body, {dnai, "pastLimit"});
    flags.mask = popops::map(graph, pe::Cast(pe::Lt(step, limit), params.dataType), {index, limits}, body,
                             {dnai, "mask"});
    flags.inverse = popops::cast(graph, past, params.dataType, body, {dnai, "inverse"});
    if (limits.numElements() == 1) {
      flags.mask = flags.mask.broadcast(params.batchSize, 0);
      flags.inverse = flags.inverse.broadcast(params.batchSize, 0);
    }
    time.variableSeqFlag = popops::reduce(graph, past, poplar::BOOL, {0}, popops::Operation::LOGICAL_OR, body,
                                          {dnai, "variableSeqFlag"});
    return flags;
  }

  // The step's program: slices, the cell, then the state sequence; `created` and the
  // initialisation program go to the cell.
  Sequence step(const LoopBodyType &loopFn, RnnSlice &slice, const std::vector<Tensor> &inputs,
                const Tensor *interimIn, const StateSequence &stateSequence, std::vector<Tensor> &created,
                Sequence &init) {
    Sequence body;
    const RnnBatchwiseFlags batchwise = flags(body);
    for (const Tensor &in : inputs)
      slice.inputs.push_back(in.valid() ? stepOf(graph, in, time.counter, body, {dnai, "input"}) : Tensor());
    if (interimIn && interimIn->valid()) {
      checkSequence(params, *interimIn, "interimIn");
      slice.interimIn = stepOf(graph, *interimIn, time.counter, body, {dnai, "interimIn"});
    }
    body.add(loopFn(graph, time, batchwise, state, slice, created, &init, dnai));
    if (stateSequence.output.valid()) {
      const Tensor &s = state[stateSequence.stateIndex];
      const auto shape = stateSequence.output[0].shape();
      if (s.numElements() != stateSequence.output[0].numElements())
        throw poputil::poplibs_error("popnn::rnn::Rnn: state " + std::to_string(stateSequence.stateIndex) +
                                     " does not fit one step of stateSequence.output");
      update(stateSequence.output, s.reshape(shape), body);
    }
    return body;
  }

  void update(const Tensor &seq, const Tensor &value, Sequence &body) {
    popops::dynamicUpdate(graph, seq, value.expand({0}), time.counter.reshape({1}), {0}, {1}, body,
                          {dnai, "update"});
  }
};

} // namespace

std::vector<Tensor> Rnn(poplar::Graph &graph, const RnnParams &params, bool reverse,
                        const std::vector<Tensor> &initState, const StateSequence &stateSequence,
                        const std::vector<Tensor> &inputs, const Tensor *interimIn, Tensor *interimOut,
                        const std::vector<Tensor> &outputs, const std::vector<Tensor> &created, Sequence &prog,
                        const LoopBodyType &loopFn, unsigned numShards, poplar::OptionFlags &options,
                        const poplar::DebugContext &debugContext) {
  const unsigned steps = static_cast<unsigned>(params.maxTimeSteps);
  Sequence init;
  Stepper stepper(graph, params, initState, stateSequence, inputs, numShards, options, reverse ? steps - 1 : 0,
                  init, debugContext);
  // The cell writes each output's and interimOut's step into a temporary copied in after.
  RnnSlice slice;
  std::vector<Tensor> sequences;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    checkSequence(params, outputs[i], "output " + std::to_string(i));
    sequences.push_back(outputs[i]);
  }
  if (interimOut && interimOut->valid()) {
    checkSequence(params, *interimOut, "interimOut");
    sequences.push_back(*interimOut);
  }
  std::vector<Tensor> temporaries;
  for (const Tensor &seq : sequences) temporaries.push_back(graph.clone(seq[0], {debugContext, "stepOut"}));
  slice.outputs.assign(temporaries.begin(), temporaries.begin() + outputs.size());
  if (interimOut && interimOut->valid()) slice.interimOut = temporaries.back();
  std::vector<Tensor> made = created;
  Sequence body = stepper.step(loopFn, slice, inputs, interimIn, stateSequence, made, init);
  for (std::size_t i = 0; i < sequences.size(); ++i) stepper.update(sequences[i], temporaries[i], body);
  if (reverse)
    popops::subInPlace(graph, stepper.time.counter, 1u, body, {debugContext, "nextStep"});
  else
    popops::addInPlace(graph, stepper.time.counter, 1u, body, {debugContext, "nextStep"});
  prog.add(init);
  prog.add(Repeat(steps, body));
  return stepper.state;
}

std::vector<Tensor> Rnn(poplar::Graph &graph, const RnnParams &params, const std::vector<Tensor> &initState,
                        const StateSequence &stateSequence, const std::vector<Tensor> &inputs,
                        const Tensor &interimIn, const unsigned numTemps, Sequence &prog,
                        const LoopBodyType &loopFn, const std::vector<Tensor> &gatherInputs,
                        const GatherBodyType &gatherFn, unsigned numShards, unsigned stepsPerGather,
                        poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  if (stepsPerGather == 0) throw poputil::poplibs_error("popnn::rnn::Rnn: stepsPerGather must be at least 1");
  if (numTemps == 0) throw poputil::poplibs_error("popnn::rnn::Rnn: numTemps must be at least 1");
  for (std::size_t i = 0; i < gatherInputs.size(); ++i)
    checkSequence(params, gatherInputs[i], "gather input " + std::to_string(i));
  const unsigned steps = static_cast<unsigned>(params.maxTimeSteps);
  const unsigned per = std::min(stepsPerGather, steps), full = steps / per, rest = steps % per;
  Sequence init;
  Stepper stepper(graph, params, initState, stateSequence, inputs, numShards, options, steps - 1, init,
                  debugContext);
  // The interval's temporaries, [per][numTemps][batch][size], indexed by step - base.
  const std::size_t size = params.layerSizes[1];
  Tensor buffer = graph.addVariable(params.dataType, {per, numTemps, params.batchSize, size},
                                    {debugContext, "temporaries"});
  poputil::mapTensorLinearly(graph, buffer);
  Tensor base = counterScalar(graph, rest, init, {debugContext, "base"});
  RnnSlice slice;
  slice.interimOut = graph.clone(buffer[0], {debugContext, "stepTemporaries"});
  std::vector<Tensor> made;
  Sequence body = stepper.step(loopFn, slice, inputs, &interimIn, stateSequence, made, init);
  Tensor position = popops::map(graph, pe::Sub(pe::_1, pe::_2), {stepper.time.counter, base}, body,
                                {debugContext, "position"});
  popops::dynamicUpdate(graph, buffer, slice.interimOut.expand({0}), position.reshape({1}), {0}, {1}, body,
                        {debugContext, "keepTemporaries"});
  popops::subInPlace(graph, stepper.time.counter, 1u, body, {debugContext, "nextStep"});
  // One gather over `count` steps from `from` (a scalar) on.
  bool first = true;
  auto gather = [&](unsigned count, Sequence &into) {
    RnnSlice interval;
    for (const Tensor &in : gatherInputs)
      interval.inputs.push_back(popops::dynamicSlice(graph, in, base.reshape({1}), {0}, {count}, into,
                                                     {debugContext, "gatherInput"}));
    interval.interimIn = buffer.slice(0, count);
    into.add(gatherFn(graph, interval, count, first ? &init : nullptr, stepper.dnai));
    first = false;
  };
  Sequence groups;
  if (full > 0) {
    // The top steps first: bases steps - per, steps - 2 per, ..., rest.
    setScalar(graph, base, steps - per, groups);
    Sequence group;
    group.add(Repeat(per, body));
    gather(per, group);
    popops::subInPlace(graph, base, per, group, {debugContext, "nextGroup"});
    groups.add(Repeat(full, group));
  }
  if (rest > 0) {
    setScalar(graph, base, 0, groups);
    groups.add(Repeat(rest, body));
    gather(rest, groups);
  }
  prog.add(init);
  prog.add(groups);
  return stepper.state;
}

} // namespace rnn
} // namespace popnn
