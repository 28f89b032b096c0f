#pragma once
// The stream operators of the expression op types, in popops::expr::ostream_ext as the SDK
// declares them here (`using namespace popops::expr::ostream_ext;` brings them in); the
// emulator defines them beside the types, in ExprOp.hpp.
#include <iosfwd>

#include <popops/ExprOp.hpp>
