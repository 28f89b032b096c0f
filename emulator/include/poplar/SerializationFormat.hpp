#pragma once
namespace poplar {

// How Graph::serializeTensors writes tensors (and deserializeTensors reads them).
enum class SerializationFormat { Binary, JSON };

} // namespace poplar
