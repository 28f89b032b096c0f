#include <popops/ElementWise.hpp>

#include <poplar/exceptions.hpp>
#include <poputil/Broadcast.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "ExprEval.hpp"
#include "ExprTypes.hpp"
#include "MapKernel.hpp"
#include "poplar/CostModel.hpp"
#include "poplar/Kernel.hpp"

namespace popops {

namespace {

using poplar::Tensor;
using poputil::poplibs_error;

void checkOptions(const poplar::OptionFlags &options) {
  static const std::set<std::string> known = {"enableGenerateCodelet", "enableVectorBroadcastOptimisations",
                                              "forceGenerateCodelet", "enableExpressionOptimizations"};
  for (const auto &kv : options) {
    if (!known.count(kv.first)) throw poplar::invalid_option("Unrecognised option '" + kv.first + "'");
    if (kv.second != "true" && kv.second != "false")
      throw poplar::invalid_option("Invalid value '" + kv.second + "' for option '" + kv.first +
                                   "': expected true or false");
  }
}

std::string exprText(const expr::Expr &e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

std::vector<std::size_t> broadcastShape(const std::vector<Tensor> &ts, const expr::Expr &e) {
  std::vector<std::size_t> shape;
  for (const Tensor &t : ts) {
    const auto s = t.shape();
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::size_t &d = shape[shape.size() - s.size() + i];
      if (d == 1) d = s[i];
      else if (s[i] != 1 && s[i] != d) {
        std::string all;
        for (const Tensor &x : ts) all += (all.empty() ? "" : ", ") + x.getVarStr();
        throw poplibs_error("map " + exprText(e) + ": the shapes of the inputs (" + all +
                            ") cannot be broadcast together");
      }
    }
  }
  return shape;
}

struct Plan {
  std::vector<std::size_t> shape;
  detail::TypedExpr typed;
};

Plan plan(const expr::Expr &e, const std::vector<Tensor> &ts, const poplar::OptionFlags &options) {
  checkOptions(options);
  if (ts.empty()) throw poplibs_error("map " + exprText(e) + ": at least one input tensor is needed");
  std::vector<poplar::Type> types;
  for (const Tensor &t : ts) types.push_back(t.elementType());
  return Plan{broadcastShape(ts, e), detail::resolveTypes(e, types)};
}

void checkOutput(const Tensor &out, const Plan &p, const expr::Expr &e, const char *what) {
  if (out.shape() != p.shape || out.elementType() != p.typed.type) {
    std::string shape;
    for (std::size_t d : p.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    throw poplibs_error(std::string(what) + " " + exprText(e) + ": the output " + out.getVarStr() +
                        " must have shape [" + shape + "] and type " + p.typed.type.toString().str());
  }
}

void addMap(poplar::Graph &graph, const detail::TypedExpr &typed, const std::vector<Tensor> &ts,
            const Tensor &out, poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  poplar::detail::executeKernel(graph, prog, detail::mapKernel(typed, ts, out), dc);
}

// Estimated cycles per vector of one evaluation of `e` (CostModel.hpp): one per
// arithmetic op, more for divisions and transcendental functions.
unsigned opCycles(const detail::TypedExpr &e) {
  using K = detail::TypedExpr::Kind;
  using U = expr::UnaryOpType;
  using B = expr::BinaryOpType;
  unsigned cycles = 0;
  for (const auto &arg : e.args) cycles += opCycles(arg);
  if (e.kind == K::Input || e.kind == K::Const) return cycles;
  unsigned own = 1;
  if (e.kind == K::Unary) {
    static const std::set<U> transcendental = {
        U::ASIN, U::CBRT, U::COS, U::ERF, U::EXPONENT, U::EXPONENT_MINUS_ONE, U::EXPONENT2, U::GELU_ERF,
        U::LOGARITHM, U::LOGARITHM_ONE_PLUS, U::SIN, U::TAN, U::TANH, U::SQRT, U::SIGMOID, U::RSQRT};
    const auto op = static_cast<U>(e.op);
    if (transcendental.count(op)) own = poplar::detail::kTranscendentalCycles;
    else if (op == U::INVERSE) own = poplar::detail::kDivideCycles;
  } else if (e.kind == K::Binary) {
    const auto op = static_cast<B>(e.op);
    if (op == B::POWER || op == B::ATAN2) own = poplar::detail::kTranscendentalCycles;
    else if (op == B::DIVIDE || op == B::REMAINDER || op == B::INV_STD_DEV_TO_VARIANCE ||
             op == B::VARIANCE_TO_INV_STD_DEV)
      own = poplar::detail::kDivideCycles;
  }
  return cycles + own;
}

} // namespace

namespace detail {

poplar::detail::KernelCompile mapCompile(poplar::detail::ByteReader &params) {
  const TypedExpr typed = readTypedExpr(params);
  return [typed](const std::vector<poplar::detail::Access> &operands) {
    std::vector<poplar::detail::Access> inputs(operands.begin(), operands.end() - 1);
    std::vector<poplar::Type> inputTypes;
    for (const auto &input : inputs) inputTypes.push_back(input.type);
    checkTypedExpr(typed, inputTypes, operands.back().type);
    return compileExpression(typed, std::move(inputs), operands.back());
  };
}
const poplar::detail::KernelKind mapKind("popops::map", mapCompile);

poplar::detail::Kernel mapKernel(const TypedExpr &typed, const std::vector<Tensor> &ts, const Tensor &out) {
  std::vector<Tensor> reads;
  for (Tensor t : ts) {
    poputil::broadcastToMatch(t, out.shape());
    reads.push_back(t);
  }
  poplar::detail::ByteWriter params;
  writeTypedExpr(params, typed);
  auto kernel = poplar::detail::makeKernel("popops::map", std::move(reads), {out}, params.take());
  kernel.cyclesPerVector = std::max(1u, opCycles(typed));
  return kernel;
}

TypedExpr planMap(const expr::Expr &e, const std::vector<Tensor> &ts, const Tensor &out) {
  const Plan p = plan(e, ts, {});
  checkOutput(out, p, e, "map");
  return p.typed;
}

} // namespace detail

Tensor map(poplar::Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts,
           poplar::program::Sequence &prog, const poplar::DebugContext &dc,
           const poplar::OptionFlags &options) {
  const Plan p = plan(e, ts, options);
  // Map the result like an input of the same shape, else spread it over the tiles.
  Tensor out;
  for (const Tensor &t : ts) {
    bool complete = false;
    if (t.shape() == p.shape && !t.containsAliases()) {
      graph.getTileMapping(t, &complete);
      if (complete) {
        out = graph.clone(p.typed.type, t, poplar::DebugContext(dc, "out"));
        break;
      }
    }
  }
  if (!out.valid()) {
    out = graph.addVariable(p.typed.type, p.shape, poplar::DebugContext(dc, "out"));
    poputil::mapTensorLinearly(graph, out);
  }
  addMap(graph, p.typed, ts, out, prog, dc);
  return out;
}

std::vector<Tensor> map(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                        const std::vector<Tensor> &ts, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  std::vector<Tensor> outs;
  for (const auto &e : exprs) outs.push_back(map(graph, e.get(), ts, prog, dc, options));
  return outs;
}

void mapInPlace(poplar::Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                const poplar::OptionFlags &options) {
  const Plan p = plan(e, ts, options);
  checkOutput(ts[0], p, e, "mapInPlace");
  addMap(graph, p.typed, ts, ts[0], prog, dc);
}

void mapInPlace(poplar::Graph &graph, const std::vector<expr::Any> &exprs, const std::vector<Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                const poplar::OptionFlags &options) {
  for (const auto &e : exprs) mapInPlace(graph, e.get(), ts, prog, dc, options);
}

void mapWithOutput(poplar::Graph &graph, const expr::Expr &e, const std::vector<Tensor> &ts,
                   const Tensor &out, poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                   const poplar::OptionFlags &options) {
  const Plan p = plan(e, ts, options);
  checkOutput(out, p, e, "mapWithOutput");
  addMap(graph, p.typed, ts, out, prog, dc);
}

void mapWithOutput(poplar::Graph &graph, const std::vector<expr::Any> &exprs, const std::vector<Tensor> &ts,
                   const std::vector<Tensor> &outs, poplar::program::Sequence &prog,
                   const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  if (exprs.size() != outs.size())
    throw poplibs_error("mapWithOutput: " + std::to_string(exprs.size()) + " expressions but " +
                        std::to_string(outs.size()) + " outputs");
  for (std::size_t i = 0; i < exprs.size(); ++i) mapWithOutput(graph, exprs[i].get(), ts, outs[i], prog, dc, options);
}

} // namespace popops
