#pragma once
// The stream programs' loop: three times, copy one float in from stream "in", square it
// (popops), copy it out to stream "out".
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

inline poplar::program::Repeat squareStreamLoop(poplar::Graph &graph) {
  popops::addCodelets(graph);
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {1}, "x");
  graph.setTileMapping(x, 0);
  poplar::DataStream in = graph.addHostToDeviceFIFO("in", poplar::FLOAT, 1);
  poplar::DataStream out = graph.addDeviceToHostFIFO("out", poplar::FLOAT, 1);
  poplar::program::Sequence body;
  body.add(poplar::program::Copy(in, x));
  popops::mulInPlace(graph, x, x, body, "square");
  body.add(poplar::program::Copy(x, out));
  return poplar::program::Repeat(3, body);
}
