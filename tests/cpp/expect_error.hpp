#pragma once
// For the C++ test programs: runs f and prints "label: <what poplar_error said>", or
// "label: no error" (the Python tests compare the printed lines).
#include <iostream>

#include <poplar/exceptions.hpp>

template <class F> void expectError(const char *label, F f) {
  try {
    f();
    std::cout << label << ": no error\n";
  } catch (const poplar::poplar_error &e) {
    std::cout << label << ": " << e.what() << '\n';
  }
}
