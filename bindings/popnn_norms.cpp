// popnn's normalisations: popnn/Norms.hpp and the bn, gn, ln and in namespaces
// (popnn.bn, popnn.gn, popnn.ln and popnn.in_: `in` is a Python keyword).
#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/InstanceNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/Norms.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using poplar::Graph;
using poplar::OptionFlags;
using poplar::Tensor;
using poplar::Type;
using poplar::program::Sequence;
using T = const Tensor &;
using DC = const poplar::DebugContext &;
using OF = const OptionFlags &;
using Pair = std::pair<Tensor, Tensor>;

// The functions every namespace has, with the same parameters.
struct NormFamily {
  Tensor (*whiten)(Graph &, T, T, T, Sequence &, DC, OF);
  Pair (*normalise)(Graph &, T, T, T, T, T, Sequence &, DC, OF);
  Pair (*paramGradients)(Graph &, T, T, T, T, Sequence &, const Type &, DC, OF);
  Pair (*paramGradientsWhitened)(Graph &, T, T, Sequence &, const Type &, DC, OF);
  Tensor (*gradients)(Graph &, T, T, T, T, T, Sequence &, const Type &, DC, OF);
  Tensor (*gradientsWhitened)(Graph &, T, T, T, T, Sequence &, const Type &, DC, OF);
  void (*paramUpdate)(Graph &, T, T, float, Tensor &, Tensor &, Sequence &, DC, OF);
  void (*paramUpdateTensor)(Graph &, T, T, T, Tensor &, Tensor &, Sequence &, DC, OF);
};

// Binds `prefix`Whiten, `normaliseName`, `prefix`ParamGradients (both forms),
// `prefix`Gradients (both forms) and `prefix`ParamUpdate (float and Tensor scale).
void bindFamily(py::module_ &m, const std::string &prefix, const char *normaliseName, const NormFamily &f) {
  const auto graph = py::arg("graph"), acts = py::arg("acts"), whitened = py::arg("actsWhitened"),
             gradsIn = py::arg("gradsIn"), mean = py::arg("mean"), invStdDev = py::arg("invStdDev"),
             gamma = py::arg("gamma"), beta = py::arg("beta"), prog = py::arg("prog");
  const auto partials = py::arg("partialsType") = poplar::FLOAT;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  m.def((prefix + "Whiten").c_str(), f.whiten, graph, acts, mean, invStdDev, prog, dc, options);
  m.def(normaliseName, f.normalise, graph, acts, gamma, beta, mean, invStdDev, prog, dc, options);
  const auto paramGradients = prefix + "ParamGradients", gradients = prefix + "Gradients";
  m.def(paramGradients.c_str(), f.paramGradients, graph, acts, gradsIn, mean, py::arg("iStdDev"), prog, partials,
        dc, options);
  m.def(paramGradients.c_str(), f.paramGradientsWhitened, graph, whitened, gradsIn, prog, partials, dc, options);
  m.def(gradients.c_str(), f.gradients, graph, acts, gradsIn, mean, invStdDev, gamma, prog, partials, dc, options);
  m.def(gradients.c_str(), f.gradientsWhitened, graph, whitened, gradsIn, invStdDev, gamma, prog, partials, dc,
        options);
  const auto update = prefix + "ParamUpdate";
  const auto gammaDelta = py::arg("gammaDelta"), betaDelta = py::arg("betaDelta"), scale = py::arg("scale");
  m.def(update.c_str(), f.paramUpdate, graph, gammaDelta, betaDelta, scale, gamma, beta, prog, dc, options);
  m.def(update.c_str(), f.paramUpdateTensor, graph, gammaDelta, betaDelta, scale, gamma, beta, prog, dc, options);
}

} // namespace

void bindPopnnNorms(py::module_ &m) {
  const auto graph = py::arg("graph"), acts = py::arg("acts"), eps = py::arg("eps"), prog = py::arg("prog"),
             unbiased = py::arg("unbiasedVarEstimate");
  const auto stable = py::arg("stableAlgo") = false;
  const auto partials = py::arg("partialsType") = poplar::FLOAT;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto options = py::arg("options") = OptionFlags();

  m.def("getNormFwdFlops", &popnn::getNormFwdFlops, py::arg("statisticsSize"), py::arg("numActsElements"),
        py::arg("computeStats") = true);
  m.def("getNormBwdFlops", &popnn::getNormBwdFlops, py::arg("statisticsSize"), py::arg("numActsElements"));
  m.def("getNormWuFlops", &popnn::getNormWuFlops, py::arg("paramsSize"), py::arg("numActsElements"));
  m.def("createNormGamma", &popnn::createNormGamma, graph, acts, dc);
  m.def("createNormBeta", &popnn::createNormBeta, graph, acts, dc);
  m.def("createNormParams", &popnn::createNormParams, graph, acts, dc);

  using namespace popnn;
  auto bnModule = m.def_submodule("bn", "namespace popnn::bn");
  bnModule.def("batchNormStatistics", &bn::batchNormStatistics, graph, acts, eps, prog, unbiased, stable, partials,
               dc, options);
  bindFamily(bnModule, "batchNorm", "batchNormalise",
             {&bn::batchNormWhiten, &bn::batchNormalise, &bn::batchNormParamGradients,
              &bn::batchNormParamGradients, &bn::batchNormGradients, &bn::batchNormGradients,
              &bn::batchNormParamUpdate, &bn::batchNormParamUpdate});
  bnModule.def("batchNormalise", py::overload_cast<Graph &, T, T, T, Sequence &, DC, OF>(&bn::batchNormalise),
               graph, acts, py::arg("combinedMultiplicand"), py::arg("addend"), prog, dc, options);
  const auto replicated = py::arg("replicatedGraph"), reduce = py::arg("reduceCallback"),
             normBatchSize = py::arg("normBatchSize"), gamma = py::arg("gamma"), invStdDev = py::arg("invStdDev");
  const char *callbackDoc =
      "reduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None";
  bnModule.def("distributedBatchNormStatistics",
               [](Graph &g, const Tensor &a, float e, Sequence &p, bool unbiasedVarEstimate, py::object r,
                  unsigned batch, bool stableAlgo, const Type &partialsType, DC d, OF o) {
                 return bn::distributedBatchNormStatistics(g, a, e, p, unbiasedVarEstimate,
                                                           normReduceCallback(r, "distributedBatchNormStatistics"),
                                                           batch, stableAlgo, partialsType, d, o);
               },
               replicated, acts, eps, prog, unbiased, reduce, normBatchSize, stable, partials, dc, options, callbackDoc);
  bnModule.def("distributedBatchNormGradients",
               [](Graph &g, T w, T grads, T inv, T gam, Sequence &p, py::object r, unsigned batch,
                  const Type &partialsType, DC d, OF o) {
                 return bn::distributedBatchNormGradients(g, w, grads, inv, gam, p,
                                                          normReduceCallback(r, "distributedBatchNormGradients"),
                                                          batch, partialsType, d, o);
               },
               replicated, py::arg("actsWhitened"), py::arg("gradsIn"), invStdDev, gamma, prog, reduce, normBatchSize,
               partials, dc, options, callbackDoc);
  bnModule.def("distributedBatchNormGradients",
               [](Graph &g, T a, T grads, T mean, T inv, T gam, Sequence &p, py::object r, unsigned batch,
                  const Type &partialsType, DC d, OF o) {
                 return bn::distributedBatchNormGradients(g, a, grads, mean, inv, gam, p,
                                                          normReduceCallback(r, "distributedBatchNormGradients"),
                                                          batch, partialsType, d, o);
               },
               replicated, acts, py::arg("gradsIn"), py::arg("mean"), invStdDev, gamma, prog, reduce, normBatchSize,
               partials, dc, options, callbackDoc);

  auto gnModule = m.def_submodule("gn", "namespace popnn::gn");
  gnModule.def("groupNormStatistics", &gn::groupNormStatistics, graph, acts, eps, prog, py::arg("numGroups"),
               unbiased, stable, partials, dc, options);
  bindFamily(gnModule, "groupNorm", "groupNormalise",
             {&gn::groupNormWhiten, &gn::groupNormalise, &gn::groupNormParamGradients,
              &gn::groupNormParamGradients, &gn::groupNormGradients, &gn::groupNormGradients,
              &gn::groupNormParamUpdate, &gn::groupNormParamUpdate});

  auto lnModule = m.def_submodule("ln", "namespace popnn::ln");
  lnModule.def("layerNormStatistics", &ln::layerNormStatistics, graph, acts, eps, prog, unbiased, stable, partials,
               dc, options);
  bindFamily(lnModule, "layerNorm", "layerNormalise",
             {&ln::layerNormWhiten, &ln::layerNormalise, &ln::layerNormParamGradients,
              &ln::layerNormParamGradients, &ln::layerNormGradients, &ln::layerNormGradients,
              &ln::layerNormParamUpdate, &ln::layerNormParamUpdate});

  auto inModule = m.def_submodule("in_", "namespace popnn::in");
  inModule.def("instanceNormStatistics", &in::instanceNormStatistics, graph, acts, eps, prog, unbiased,
               py::arg("stableAlgo"), partials, dc, options);
  bindFamily(inModule, "instanceNorm", "instanceNormalise",
             {&in::instanceNormWhiten, &in::instanceNormalise, &in::instanceNormParamGradients,
              &in::instanceNormParamGradients, &in::instanceNormGradients, &in::instanceNormGradients,
              &in::instanceNormParamUpdate, &in::instanceNormParamUpdate});
  const auto channels = py::arg("numChannels"), perChannel = py::arg("actsPerChannel");
  inModule.def("getFwdFlops", &in::getFwdFlops, channels, perChannel, py::arg("computeEstimates"));
  inModule.def("getBwdFlops", &in::getBwdFlops, channels, perChannel);
  inModule.def("getWuFlops", &in::getWuFlops, channels, perChannel);
}

} // namespace popdsl_bindings
