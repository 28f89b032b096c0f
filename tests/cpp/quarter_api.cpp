// Quarter (fp8) metadata and host conversions: poplar/Quarter.hpp, the QuarterMetadata
// overloads of poplar/TypeConversion.hpp, poplar/MetadataCreation.hpp and quarter
// variables' metadata (Graph::addVariable, Tensor::getMetadata). Writes the conversions
// of every code and of the doubles in <dir>/inputs to files, and prints "label: value"
// lines; test_quarter.py checks both against numpy.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/MetadataCreation.hpp>
#include <poplar/Quarter.hpp>
#include <poputil/Util.hpp>
#include <poplar/TypeConversion.hpp>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "expect_error.hpp"

namespace {

using poplar::QuarterMetadata;

template <class T> void writeFile(const std::string &path, const std::vector<T> &values) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
}

std::vector<double> readDoubles(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<double> values(bytes.size() / sizeof(double));
  std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(double), reinterpret_cast<char *>(values.data()));
  return values;
}

// Every code decoded, and the inputs encoded with NaN on overflow and saturating, from
// doubles and (rounded to float first) from floats, under one metadata.
void convertAll(const std::string &dir, const std::string &label, const QuarterMetadata &metadata,
                const std::vector<double> &inputs) {
  std::vector<std::uint8_t> codes(256);
  for (unsigned i = 0; i < 256; ++i) codes[i] = static_cast<std::uint8_t>(i);
  std::vector<double> decoded(256);
  poplar::convertFromDeviceType(poplar::QUARTER, metadata, codes.data(), poplar::ArrayRef<double>(decoded));
  std::vector<float> decodedFloats(256);
  poplar::convertFromDeviceType(poplar::QUARTER, metadata, codes.data(), poplar::ArrayRef<float>(decodedFloats));
  std::vector<std::uint8_t> nanOnOverflow(inputs.size()), saturated(inputs.size()), fromFloats(inputs.size());
  poplar::convertToDeviceType(poplar::QUARTER, metadata, poplar::ArrayRef<const double>(inputs), nanOnOverflow.data());
  poplar::convertToDeviceType(poplar::QUARTER, metadata, poplar::ArrayRef<const double>(inputs), saturated.data(),
                              false);
  const std::vector<float> floats(inputs.begin(), inputs.end());
  poplar::convertToDeviceType(poplar::QUARTER, metadata, poplar::ArrayRef<const float>(floats), fromFloats.data());
  writeFile(dir + "/decoded_" + label, decoded);
  writeFile(dir + "/decoded_floats_" + label, decodedFloats);
  writeFile(dir + "/nan_" + label, nanOnOverflow);
  writeFile(dir + "/saturated_" + label, saturated);
  writeFile(dir + "/from_floats_" + label, fromFloats);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const std::vector<double> inputs = readDoubles(dir + "/inputs");
  const QuarterMetadata::Format F143 = QuarterMetadata::Format::F143, F152 = QuarterMetadata::Format::F152;
  for (int scale : {0, -3, 31}) convertAll(dir, "F143_" + std::to_string(scale), QuarterMetadata(F143, scale), inputs);
  for (int scale : {0, 5, -32}) convertAll(dir, "F152_" + std::to_string(scale), QuarterMetadata(F152, scale), inputs);

  const QuarterMetadata defaults;
  std::cout << "metadata: " << defaults << ", " << QuarterMetadata(F152, -7).toString() << ", "
            << (defaults.getFormat() == F143) << int(defaults.getScale()) << ' '
            << (QuarterMetadata(F152, 3) == QuarterMetadata(F152, 3)) << (QuarterMetadata(F152, 3) != QuarterMetadata(F143, 3))
            << (QuarterMetadata(F152, 3) == QuarterMetadata(F152, 2)) << '\n';
  expectError("scale 32", [] { QuarterMetadata(QuarterMetadata::Format::F143, 32); });
  // The metadata byte read back (what createConstantMetadataTensor stores, printed below).
  const QuarterMetadata fromByte(static_cast<std::uint8_t>(0x80 | 62)), positive(static_cast<std::uint8_t>(5));
  std::cout << "from bytes: " << fromByte << ", " << positive << '\n';
  // poplar::Half is the host half: the codes of 1.5 and -0.25 under F152 scale 1 widen to it.
  const std::vector<std::uint8_t> halfCodes{0x3a, 0xae};
  std::vector<poplar::Half> halves(2);
  poplar::convertFromDeviceType(poplar::QUARTER, QuarterMetadata(F152, 1), halfCodes.data(),
                                poplar::ArrayRef<poplar::Half>(halves));
  std::cout << "halves: " << float(halves[0]) << ' ' << float(halves[1]) << '\n';
  // A vector converts as its ArrayRef does.
  const std::vector<double> wide{0.1, -3.0};
  float narrow[2];
  poplar::convertToDeviceType(poplar::FLOAT, wide, narrow);
  std::cout << "from vector: " << narrow[0] << ' ' << narrow[1] << '\n';
  const std::vector<float> one{1.0f};
  std::uint8_t byte = 0;
  expectError("half with metadata",
              [&] { poplar::convertToDeviceType(poplar::HALF, defaults, poplar::ArrayRef<const float>(one), &byte); });
  expectError("float from metadata",
              [&] { poplar::convertFromDeviceType(poplar::FLOAT, defaults, &byte, poplar::ArrayRef<float>(nullptr, 0)); });

  poplar::IPUModel model("ipu21");
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  const poplar::Tensor constant = poplar::createConstantMetadataTensor(graph, F152, -2, "constant");
  const poplar::Tensor variable = poplar::createVariableMetadataTensor(graph, F143, 5, "variable");
  // poputil's deprecated forms of the two, without a debug context.
  const poplar::Tensor utilConstant = poputil::createConstantMetadataTensor(graph, F143, -3);
  const poplar::Tensor utilVariable = poputil::createVariableMetadataTensor(graph, F152, 4);
  const poplar::Tensor q = graph.addVariable(poplar::QUARTER, constant, {2, 3}, "q");
  const poplar::Tensor linear = graph.addVariable(poplar::QUARTER, variable, {8}, poplar::VariableMappingMethod::LINEAR, "linear");
  const poplar::Tensor own = graph.addVariable(poplar::QUARTER, {4}, "own");
  const poplar::Tensor none = graph.addVariable(poplar::QUARTER, static_cast<const poplar::Tensor *>(nullptr), {4}, "none");
  const poplar::Tensor pointed = graph.addVariable(poplar::QUARTER, &variable, {3}, poplar::VariableMappingMethod::LINEAR);
  const poplar::Tensor plain = graph.addVariable(poplar::FLOAT, {2}, "plain");
  graph.setTileMapping(q, 1);
  graph.setTileMapping(own, 2);
  graph.setTileMapping(none, 3);
  graph.setTileMapping(plain, 0);
  std::cout << "has metadata: " << q.hasMetadata() << linear.hasMetadata() << own.hasMetadata() << none.hasMetadata()
            << pointed.hasMetadata() << plain.hasMetadata() << q.reinterpret(poplar::UNSIGNED_CHAR).hasMetadata() << '\n';
  std::cout << "shared metadata: " << (q.getMetadata() == constant) << (q[1].slice(1, 3).getMetadata() == constant)
            << (linear.getMetadata() == variable) << (pointed.getMetadata() == variable)
            << (own.getMetadata() == none.getMetadata()) << ' ' << own.getMetadata().shapeToString() << ' '
            << own.getMetadata().elementType() << ' '
            << (graph.getTileMapping(own.getMetadata())[0].size() == 1) << '\n';
  expectError("metadata of float", [&] { plain.getMetadata(); });
  expectError("float with metadata", [&] { graph.addVariable(poplar::FLOAT, constant, {2}, "f"); });
  expectError("metadata of wrong type", [&] { graph.addVariable(poplar::QUARTER, plain, {2}, "w"); });
  poplar::Graph other(device.getTarget());
  expectError("metadata of another graph", [&] { other.addVariable(poplar::QUARTER, constant, {2}, "o"); });
  expectError("metadata scale 40", [&] { poplar::createConstantMetadataTensor(graph, F143, 40); });

  // The metadata tensors hold the format in bit 7 and the scale in bits 0-5.
  graph.createHostRead("constant", constant);
  graph.createHostRead("variable", variable);
  graph.createHostRead("utilConstant", utilConstant);
  graph.createHostRead("utilVariable", utilVariable);
  poplar::Engine engine(graph, poplar::program::Sequence{});
  engine.load(device);
  std::uint8_t bytes[4];
  engine.readTensor("constant", &bytes[0], &bytes[1]);
  engine.readTensor("variable", &bytes[1], &bytes[2]);
  engine.readTensor("utilConstant", &bytes[2], &bytes[3]);
  engine.readTensor("utilVariable", &bytes[3], &bytes[4]);
  std::cout << "metadata bytes: " << int(bytes[0]) << ' ' << int(bytes[1]) << ' ' << int(bytes[2]) << ' '
            << int(bytes[3]) << '\n';
  std::cout << "util metadata kinds: " << utilConstant.containsConstant() << utilVariable.containsConstant() << '\n';
  return 0;
}
