#include <poputil/DebugInfo.hpp>

#include "poplar/ProgramNode.hpp"

namespace poputil {

using poplar::ProfileValue;

template <> ProfileValue toProfileValue(const unsigned int &v) { return ProfileValue(v); }
template <> ProfileValue toProfileValue(const unsigned long &v) { return ProfileValue(v); }
template <> ProfileValue toProfileValue(const int &v) { return ProfileValue(v); }
template <> ProfileValue toProfileValue(const bool &v) { return ProfileValue(v); }
template <> ProfileValue toProfileValue(const float &v) { return ProfileValue(double(v)); }

template <> ProfileValue toProfileValue(const poplar::ComputeSet &t) { return ProfileValue(t.getId()); }

template <> ProfileValue toProfileValue(const poplar::OptionFlags &t) {
  return poplar::getAsProfileValue(t);
}

template <> ProfileValue toProfileValue(const poplar::program::Copy &t) {
  using Kind = poplar::detail::ProgramNode::Kind;
  const poplar::detail::ProgramNode &node = poplar::detail::programNode(t);
  switch (node.kind) {
  case Kind::StreamToTensor:
    return ProfileValue::Map{{"stream", ProfileValue(node.stream.handle())},
                             {"dst", toProfileValue(node.tensors.at(0))}};
  case Kind::TensorToStream:
    return ProfileValue::Map{{"src", toProfileValue(node.tensors.at(0))},
                             {"stream", ProfileValue(node.stream.handle())}};
  case Kind::RemoteToTensor:
    return ProfileValue::Map{{"buffer", ProfileValue(node.text)}, {"dst", toProfileValue(node.tensors.at(0))}};
  case Kind::TensorToRemote:
    return ProfileValue::Map{{"src", toProfileValue(node.tensors.at(0))}, {"buffer", ProfileValue(node.text)}};
  default:
    return ProfileValue::Map{{"src", toProfileValue(node.tensors.at(0))},
                             {"dst", toProfileValue(node.tensors.at(1))}};
  }
}

template <> ProfileValue toProfileValue(const poplar::Tensor &t) {
  ProfileValue::Vector shape;
  for (std::size_t d : t.shape()) shape.push_back(ProfileValue(d));
  return ProfileValue::Map{{"shape", shape}, {"type", toProfileValue(t.elementType())}};
}

template <> ProfileValue toProfileValue(const poplar::Type &t) { return ProfileValue(t.toString().cloneAsString()); }

template <> ProfileValue toProfileValue(const std::vector<bool> &vec) {
  ProfileValue::Map byIndex;
  for (std::size_t i = 0; i < vec.size(); ++i) byIndex.insert({std::to_string(i), ProfileValue(bool(vec[i]))});
  return byIndex;
}

OpDebugInfo::OpDebugInfo(const poplar::DebugContext &debugContext, std::string api)
    : poplar::DebugInfo(debugContext, "poplibs") {
  setValue("api", ProfileValue(std::move(api)));
}

void OpDebugInfo::add(std::string name, const std::vector<ArgType> &args) {
  ProfileValue::Map values;
  for (const ArgType &arg : args) values.insert({arg.n, arg.pv});
  add(std::move(name), ProfileValue(std::move(values)));
}

void OpDebugInfo::add(std::string name, ProfileValue value) { setValue(std::move(name), std::move(value)); }

PoplibsOpDebugInfo::PoplibsOpDebugInfo(const poplar::DebugContext &debugContext,
                                       const std::vector<ArgType> &args, const std::string &api)
    : OpDebugInfo(debugContext, api) {
  if (!args.empty()) add("args", args);
}

void PoplibsOpDebugInfo::addOutputs(const std::vector<ArgType> &outputs) { add("outputs", outputs); }

void PoplibsOpDebugInfo::addOutput(const poplar::Tensor &output) {
  addOutputs({{"output", toProfileValue(output)}});
}

} // namespace poputil
