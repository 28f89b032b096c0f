#pragma once
// What a Device handle shares with its copies' engines.
#include <poplar/Device.hpp>
#include <poplar/Target.hpp>

namespace poplar {

struct Device::State {
  unsigned id;
  Target target;
  mutable bool attached = false;
  // The IPUs of the emulated system (IpuAsModel.hpp) the device spans, [first, first +
  // count); count 0 for model, CPU and simulator devices, which attach independently.
  unsigned firstSystemIPU = 0;
  unsigned systemIPUs = 0;
  ~State();
};

} // namespace poplar
