// poplin/ConvUtil.hpp over one field dimension of several convolutions: prints, per case,
// every getInputIndex and getKernelIndex and the ranges of a few windows, which
// test_conv_util.py derives independently from the transformed index sequences.
#include <poplin/ConvUtil.hpp>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

// input size, kernel size; input trunc lower/upper, dilation, pad lower/upper, flip; the
// kernel's; output trunc lower/upper, stride, pad lower/upper.
struct Case {
  unsigned in, kernel;
  unsigned it0, it1, id, ip0, ip1;
  bool iflip;
  unsigned kt0, kt1, kd, kp0, kp1;
  bool kflip;
  unsigned ot0, ot1, os, op0, op1;
};

const Case kCases[] = {
    {7, 3, 0, 0, 1, 0, 0, false, 0, 0, 1, 0, 0, false, 0, 0, 1, 0, 0},
    {6, 3, 1, 0, 2, 1, 2, false, 0, 1, 1, 0, 0, true, 0, 0, 2, 1, 0},
    {5, 2, 0, 1, 1, 2, 1, true, 0, 0, 3, 1, 0, false, 1, 0, 1, 0, 2},
    {8, 4, 2, 1, 3, 0, 1, true, 1, 0, 2, 0, 1, true, 0, 1, 3, 2, 1},
};

std::string text(std::pair<unsigned, unsigned> r) { return std::to_string(r.first) + "-" + std::to_string(r.second); }
std::string text(unsigned v) { return v == ~0U ? "x" : std::to_string(v); }

} // namespace

int main() {
  std::cout << "dilated: " << poplin::getDilatedSize(0, 3) << ' ' << poplin::getDilatedSize(1, 3) << ' '
            << poplin::getDilatedSize(4, 3) << '\n';
  for (std::size_t n = 0; n < sizeof kCases / sizeof kCases[0]; ++n) {
    const Case &c = kCases[n];
    const poplin::ConvParams params(
        poplar::FLOAT, poplar::FLOAT, 1, {c.in}, {c.kernel}, 1, 1, 1,
        poplin::ConvParams::InputTransform({c.it0}, {c.it1}, {c.id}, {c.ip0}, {c.ip1}, {c.iflip}),
        poplin::ConvParams::InputTransform({c.kt0}, {c.kt1}, {c.kd}, {c.kp0}, {c.kp1}, {c.kflip}),
        poplin::ConvParams::OutputTransform({c.ot0}, {c.ot1}, {c.os}, {c.op0}, {c.op1}));
    const unsigned outs = static_cast<unsigned>(params.getOutputSize(0));
    const std::string tag = "case " + std::to_string(n);
    std::cout << tag << " shapes: " << params.getInputFieldShape()[0] << ' ' << params.getKernelShape()[0] << '\n';
    std::cout << tag << " outputs: " << outs << '\n' << tag << " input index:";
    for (unsigned o = 0; o < outs; ++o)
      for (unsigned k = 0; k < c.kernel; ++k) std::cout << ' ' << text(poplin::getInputIndex(0, o, k, params));
    std::cout << '\n' << tag << " kernel index:";
    for (unsigned o = 0; o < outs; ++o)
      for (unsigned i = 0; i < c.in; ++i) std::cout << ' ' << text(poplin::getKernelIndex(0, o, i, params));
    // Windows of outputs; then per window: per kernel index, per input index, and the
    // range forms.
    const std::pair<unsigned, unsigned> windows[] = {{0, outs}, {1, outs > 2 ? outs - 1 : 1}, {0, 0}};
    for (const auto &w : windows) {
      std::cout << '\n' << tag << " window " << text(w) << ":";
      for (unsigned k = 0; k < c.kernel; ++k)
        std::cout << " ok" << k << '=' << text(poplin::getOutputRangeForKernelIndex(0, w, k, params)) << " ik" << k
                  << '=' << text(poplin::getInputRange(0, w, k, params));
      for (unsigned i = 0; i < c.in; ++i)
        std::cout << " oi" << i << '=' << text(poplin::getOutputRangeForInputIndex(0, w, i, params)) << " ki" << i
                  << '=' << text(poplin::getKernelRange(0, w, i, params));
      const std::pair<unsigned, unsigned> ks = {1, c.kernel}, is = {1, c.in - 1};
      std::cout << " okr=" << text(poplin::getOutputRangeForKernelRange(0, w, ks, params))
                << " oir=" << text(poplin::getOutputRangeForInputRange(0, w, is, params))
                << " ikr=" << text(poplin::getInputRange(0, w, ks, params))
                << " kir=" << text(poplin::getKernelRange(0, w, is, params))
                << " iall=" << text(poplin::getInputRange(0, w, params));
    }
    std::cout << '\n' << tag << " at output 1: " << text(poplin::getInputRange(0, 1u, {0u, c.kernel}, params)) << ' '
              << text(poplin::getInputRange(0, 1u, params)) << '\n';
  }
}
