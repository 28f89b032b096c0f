// What layers say they cost before they are built: the flop counts of the recurrent
// layers' passes and the matrix products the vanilla RNN and fully connected layers plan.
// Prints "name: value" lines (test_layer_costs.py checks them against formulas).
#include <poplin/FullyConnected.hpp>
#include <popnn/Gru.hpp>
#include <popnn/Lstm.hpp>
#include <popnn/Recurrent.hpp>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string shape(const std::vector<std::size_t> &dims) {
  std::string text;
  for (std::size_t d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

// "AxB type type option=value ..." per product, separated by "; ".
std::string products(const std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> &planned) {
  std::string text;
  for (const auto &p : planned) {
    text += (text.empty() ? "" : "; ") + shape(p.first.aShape) + "*" + shape(p.first.bShape) + " " +
            p.first.inputType.toString().str() + " " + p.first.outputType.toString().str();
    for (const auto &option : p.second) text += " " + option.first + "=" + option.second;
  }
  return text;
}

} // namespace

int main() {
  // The vanilla RNN: 5 steps, batch 3, input 7, output 4.
  std::cout << "rnn fwd: " << popnn::rnn::getFwdFlops(5, 3, 7, 4) << ' ' << popnn::rnn::getFwdFlops(5, 3, 7, 4, false)
            << '\n';
  std::cout << "rnn bwd: " << popnn::rnn::getBwdFlops(5, 3, 7, 4) << ' ' << popnn::rnn::getBwdFlops(5, 3, 7, 4, false)
            << '\n';
  std::cout << "rnn wu: " << popnn::rnn::getWuFlops(5, 3, 7, 4) << '\n';
  std::cout << "rnn training: "
            << products(popnn::rnn::getMatMulPrePlanParameters(5, 3, 7, 4, poplar::HALF, poplar::HALF)) << '\n';
  std::cout << "rnn inference: "
            << products(popnn::rnn::getMatMulPrePlanParameters(5, 3, 7, 4, poplar::FLOAT, poplar::FLOAT, true, false))
            << '\n';
  try {
    popnn::rnn::getMatMulPrePlanParameters(5, 3, 7, 4, poplar::FLOAT, poplar::INT);
  } catch (const std::exception &error) {
    std::cout << "bad partials: " << error.what() << '\n';
  }

  // LSTM and GRU: 6 steps, batch 2, input 5, output 3.
  popnn::lstm::LstmParams lstm(poplar::FLOAT, 2, 6, {5, 3});
  std::cout << "lstm: " << popnn::lstm::getBasicLstmCellFwdFlops(lstm) << ' '
            << popnn::lstm::getBasicLstmCellBwdFlops(lstm) << ' ' << popnn::lstm::getBasicLstmCellWuFlops(lstm) << '\n';
  std::cout << "lstm training: " << products(popnn::lstm::getMatMulPrePlanParameters(lstm, {})) << '\n';
  std::cout << "lstm inference: "
            << products(popnn::lstm::getMatMulPrePlanParameters(lstm, {{"inferenceOnly", "true"}})) << '\n';
  try {
    popnn::lstm::getMatMulPrePlanParameters(lstm, {{"inferenceOnly", "yes"}});
  } catch (const std::exception &error) {
    std::cout << "bad lstm option: " << error.what() << '\n';
  }
  lstm.doInputWeightCalc = false;
  lstm.calcInputGradients = false;
  std::cout << "lstm without input products: " << popnn::lstm::getBasicLstmCellFwdFlops(lstm) << ' '
            << popnn::lstm::getBasicLstmCellBwdFlops(lstm) << '\n';
  popnn::gru::GruParams gru(poplar::HALF, 2, 6, {5, 3});
  std::cout << "gru: " << popnn::gru::getBasicGruCellFwdFlops(gru) << ' ' << popnn::gru::getBasicGruCellBwdFlops(gru)
            << ' ' << popnn::gru::getBasicGruCellWuFlops(gru) << '\n';
  gru.calcInputGradients = false;
  std::cout << "gru without input gradients: " << popnn::gru::getBasicGruCellBwdFlops(gru) << '\n';

  // A fully connected layer: 2 groups, batch 8, input 16, output 10.
  const poplin::fc::FullyConnectedParams fc{2, 8, 16, 10};
  std::cout << "fc training: "
            << products(poplin::fc::getMatMulPrePlanParameters(fc, {{"partialsType", "half"}}, poplar::HALF, false))
            << '\n';
  std::cout << "fc inference: "
            << products(poplin::fc::getMatMulPrePlanParameters(fc, {{"fullyConnectedPass", "NONE"}}, poplar::FLOAT,
                                                               true))
            << '\n';
}
