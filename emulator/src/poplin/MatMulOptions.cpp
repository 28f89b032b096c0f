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
const std::set<std::string> kConvBooleanOptions = {
    "use128BitConvUnitLoad", "enableMultiStageReduce", "enableFastReduce",
    "remapOutputTensor",     "enableConvDithering",    "disableSRForAMPVertices"};
const std::set<std::string> kConvPasses = {
    "NONE",           "INFERENCE_FWD",   "TRAINING_FWD",    "TRAINING_BWD",  "TRAINING_WU",
    "FC_INFERENCE_FWD", "FC_TRAINING_FWD", "FC_TRAINING_BWD", "FC_TRAINING_WU"};
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

bool isWholeNumber(const std::string &text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// partialsType, availableMemoryProportion, planConstraints, the boolean keys and
// the pass key (`passKey`, one of `passes`) are accepted; anything else throws.
poplar::Type parsePartialsType(const poplar::OptionFlags &options,
                               const std::set<std::string> &booleanKeys, const std::string &passKey,
                               const std::set<std::string> &passes) {
  poplar::Type partialsType = poplar::FLOAT;
  for (const auto &[key, value] : options) {
    if (key == "partialsType") {
      const auto it = kPartialsTypes.find(value);
      if (it == kPartialsTypes.end()) invalidValue(key, value, "half or float");
      partialsType = it->second;
    } else if (key == "availableMemoryProportion") {
      if (!isProportion(value)) invalidValue(key, value, "a number between 0 and 1");
    } else if (key == passKey) {
      if (!passes.count(value)) {
        std::string expected;
        for (const std::string &pass : passes) expected += (expected.empty() ? "" : ", ") + pass;
        invalidValue(key, value, "one of " + expected);
      }
    } else if (booleanKeys.count(key)) {
      if (value != "true" && value != "false") invalidValue(key, value, "true or false");
    } else if (key != "planConstraints") { // planConstraints only guides the planner
      throw poplar::invalid_option("Unrecognised option '" + key + "'");
    }
  }
  return partialsType;
}

} // namespace

MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options) {
  return {parsePartialsType(options, kBooleanOptions, "fullyConnectedPass",
                            kFullyConnectedPasses)};
}

MatMulOptions parseConvOptions(const poplar::OptionFlags &options) {
  return {parsePartialsType(options, kConvBooleanOptions, "pass", kConvPasses)};
}

void parseMultiConvOptions(const poplar::OptionFlags &options) {
  for (const auto &[key, value] : options) {
    if (key == "planType") {
      if (value != "serial" && value != "parallel") invalidValue(key, value, "serial or parallel");
    } else if (key == "perConvReservedTiles") {
      if (!isWholeNumber(value)) invalidValue(key, value, "a whole number");
    } else if (key == "cycleBackOff") {
      if (!isProportion(value)) invalidValue(key, value, "a number between 0 and 1");
    } else {
      throw poplar::invalid_option("Unrecognised option '" + key + "'");
    }
  }
}

} // namespace poplin::detail
