#pragma once
// Codelet-side `half`: IEEE binary16 storage with arithmetic in float (ipudef.h).
#include <ipudef.h>
