#include "MatMulOptions.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <poplar/exceptions.hpp>

namespace poplin::detail {

namespace {

const std::set<std::string> kBooleanOptions = {
    "inputRHSIsPreArranged", "use128BitConvUnitLoad", "enableMultiStageReduce",
    "enableFastReduce",      "remapOutputTensor",     "gatherOutput",
    "disableSRForAMPVertices"};
const std::set<std::string> kFullyConnectedPasses = {"NONE", "INFERENCE_FWD", "TRAINING_FWD",
                                                     "TRAINING_BWD", "TRAINING_WU"};
const std::map<std::string, poplar::Type> kPartialsTypes = {{"half", poplar::HALF},
                                                            {"float", poplar::FLOAT}};

[[noreturn]] void invalidValue(const std::string &key, const std::string &value,
                               const std::string &expected) {
  throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key +
                               "': expected " + expected);
}

bool isProportion(const std::string &text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    return used == text.size() && value >= 0.0 && value <= 1.0;
  } catch (const std::logic_error &) { // not a number, or out of double's range
    return false;
  }
}

} // namespace

MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options) {
  MatMulOptions parsed;
  for (const auto &[key, value] : options) {
    if (key == "partialsType") {
      const auto it = kPartialsTypes.find(value);
      if (it == kPartialsTypes.end()) invalidValue(key, value, "half or float");
      parsed.partialsType = it->second;
    } else if (key == "availableMemoryProportion") {
      if (!isProportion(value)) invalidValue(key, value, "a number between 0 and 1");
    } else if (key == "fullyConnectedPass") {
      if (!kFullyConnectedPasses.count(value))
        invalidValue(key, value,
                     "NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD or TRAINING_WU");
    } else if (kBooleanOptions.count(key)) {
      if (value != "true" && value != "false") invalidValue(key, value, "true or false");
    } else if (key != "planConstraints") { // planConstraints only guides the planner
      throw poplar::invalid_option("Unrecognised option '" + key + "'");
    }
  }
  return parsed;
}

} // namespace poplin::detail
