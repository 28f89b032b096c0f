#pragma once
namespace poplar {
enum class SyncType { INTERNAL, EXTERNAL, GLOBAL };
} // namespace poplar
