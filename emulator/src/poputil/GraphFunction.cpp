// Graph functions: the body is built once, on clones of the signature's tensors; every
// call is copies in, one Call of the body's Function (or the body itself when inlined),
// copies out.
#include <poputil/GraphFunction.hpp>
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {
namespace graphfn {

namespace {

std::string describe(const poplar::Tensor &t) {
  return std::string(t.elementType().toString()) + t.shapeToString();
}

// Each call's arguments must be like the tensors the body was built on.
void checkArguments(const Signature &sig, const std::vector<poplar::Tensor> &params,
                    const std::vector<poplar::Tensor> &args) {
  if (args.size() != sig.size())
    throw poplibs_error("graph function: called with " + std::to_string(args.size()) +
                        " argument(s); its signature has " + std::to_string(sig.size()));
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].type == CreatedArg) continue;
    if (!args[i].valid())
      throw poplibs_error("graph function: argument " + std::to_string(i) + " is not a valid tensor");
    if (args[i].elementType() != params[i].elementType() || args[i].shape() != params[i].shape())
      throw poplibs_error("graph function: argument " + std::to_string(i) + " is " + describe(args[i]) +
                          "; the signature expects " + describe(params[i]));
  }
}

} // namespace

VoidFunction::VoidFunction(poplar::Graph &graph, Signature sig,
                           std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f,
                           bool inlined, const poplar::DebugContext &debugContext)
    : VoidFunction(graph, std::move(sig),
                   [&f](std::vector<poplar::Tensor> &params, poplar::program::Sequence &body,
                        const poplar::DebugNameAndId &) { f(params, body); },
                   inlined, debugContext) {}

VoidFunction::VoidFunction(poplar::Graph &graph, Signature sig_,
                           std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                                              const poplar::DebugNameAndId &)>
                               f,
                           bool inlined, const poplar::DebugContext &debugContext)
    : graph(graph), sig(std::move(sig_)), inlined(inlined), prog(debugContext) {
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].type == CreatedArg) {
      params.emplace_back();
      continue;
    }
    if (!sig[i].similarTensor.valid())
      throw poplibs_error("graph function: signature entry " + std::to_string(i) +
                          " has no tensor to clone (only created() entries may omit it)");
    params.push_back(graph.clone(sig[i].similarTensor, {debugContext, sig[i].debugName}));
  }
  const poplar::DebugInfo debugInfo(debugContext, "poputil");
  f(params, prog, poplar::DebugNameAndId(debugInfo));
  for (std::size_t i = 0; i < sig.size(); ++i)
    if (sig[i].type == CreatedArg && !params[i].valid())
      throw poplibs_error("graph function: the body did not set created argument " + std::to_string(i));
  if (!inlined) func = graph.addFunction(prog);
}

VoidFunction::VoidFunction(VoidFunction &&other) = default;

void VoidFunction::operator()(std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                              const poplar::DebugContext &dc) {
  checkArguments(sig, params, args);
  for (std::size_t i = 0; i < sig.size(); ++i)
    if (sig[i].type == InputArg || sig[i].type == InOutArg)
      seq.add(poplar::program::Copy(args[i], params[i], false, dc));
  if (inlined)
    seq.add(prog);
  else
    seq.add(poplar::program::Call(func, dc));
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].type == OutputArg || sig[i].type == InOutArg)
      seq.add(poplar::program::Copy(params[i], args[i], false, dc));
    else if (sig[i].type == CreatedArg)
      // A fresh tensor per call: the next call overwrites the body's own.
      args[i] = duplicate(graph, params[i], seq, {dc, sig[i].debugName});
  }
}

ProgramFunction::ProgramFunction(poplar::Graph &graph, Signature sig,
                                 std::function<poplar::program::Program(std::vector<poplar::Tensor> &)> f,
                                 bool inlined, const poplar::DebugContext &debugContext)
    : voidFunc(graph, std::move(sig),
               [&f](std::vector<poplar::Tensor> &params, poplar::program::Sequence &body) { body.add(f(params)); },
               inlined, debugContext) {}

ProgramFunction::ProgramFunction(
    poplar::Graph &graph, Signature sig,
    std::function<poplar::program::Program(std::vector<poplar::Tensor> &, const poplar::DebugNameAndId &)> f,
    bool inlined, const poplar::DebugContext &debugContext)
    : voidFunc(graph, std::move(sig),
               [&f](std::vector<poplar::Tensor> &params, poplar::program::Sequence &body,
                    const poplar::DebugNameAndId &dnai) { body.add(f(params, dnai)); },
               inlined, debugContext) {}

poplar::program::Program ProgramFunction::operator()(std::vector<poplar::Tensor> &args,
                                                     const poplar::DebugContext &debugContext) {
  poplar::program::Sequence seq(debugContext);
  voidFunc(args, seq, debugContext);
  return seq;
}

namespace {

// The signature of a TensorFunction's VoidFunction: one created argument more, the result.
Signature withResult(Signature sig) {
  sig.push_back(created("result"));
  return sig;
}

} // namespace

TensorFunction::TensorFunction(
    poplar::Graph &graph, Signature sig,
    std::function<poplar::Tensor(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f, bool inlined,
    const poplar::DebugContext &debugContext)
    : TensorFunction(graph, std::move(sig),
                     [&f](std::vector<poplar::Tensor> &params, poplar::program::Sequence &body,
                          const poplar::DebugNameAndId &) { return f(params, body); },
                     inlined, debugContext) {}

TensorFunction::TensorFunction(poplar::Graph &graph, Signature sig,
                               std::function<poplar::Tensor(std::vector<poplar::Tensor> &,
                                                            poplar::program::Sequence &,
                                                            const poplar::DebugNameAndId &)>
                                   f,
                               bool inlined, const poplar::DebugContext &debugContext)
    : voidFunc(graph, withResult(std::move(sig)),
               [&f](std::vector<poplar::Tensor> &params, poplar::program::Sequence &body,
                    const poplar::DebugNameAndId &dnai) {
                 // The body sees the caller's signature; the result goes in the extra slot.
                 std::vector<poplar::Tensor> args(params.begin(), params.end() - 1);
                 params.back() = f(args, body, dnai);
               },
               inlined, debugContext) {}

poplar::Tensor TensorFunction::operator()(std::vector<poplar::Tensor> &args, poplar::program::Sequence &prog,
                                          const poplar::DebugContext &debugContext) {
  std::vector<poplar::Tensor> withSlot(args);
  withSlot.emplace_back();
  voidFunc(withSlot, prog, debugContext);
  return withSlot.back();
}

} // namespace graphfn
} // namespace poputil
