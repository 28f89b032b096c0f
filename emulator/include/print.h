#pragma once
// Codelet-side printf: on the emulator a vertex prints straight to the host's stdout.
#include <cstdio>
using std::printf;
