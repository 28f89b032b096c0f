// poplar/IeeeHalf.hpp and poplar/TypeConversion.hpp on the host. argv[1] is a directory
// holding "floats" (float32) and "doubles" (float64); this writes there the half bits of
// each float by IeeeHalf ("ieee_bits") and by convertToDeviceType ("float_bits"), of each
// double ("double_bits"), every 16-bit pattern widened to float by IeeeHalf ("widened") and
// to double by convertFromDeviceType ("wide_doubles"), and prints the queries, operators
// and integer conversions as "label: value" lines (test_host_halves.py checks both).
#include <poplar/IeeeHalf.hpp>
#include <poplar/TypeConversion.hpp>
#include <poplar/exceptions.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "expect_error.hpp"

namespace {

template <class T> std::vector<T> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<T> values(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(T), reinterpret_cast<char *>(values.data()));
  return values;
}

template <class T> void writeAll(const std::string &path, const std::vector<T> &values) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(values.data()), std::streamsize(values.size() * sizeof(T)));
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const std::string dir = std::string(argv[1]) + "/";
  const std::vector<float> floats = readAll<float>(dir + "floats");
  const std::vector<double> doubles = readAll<double>(dir + "doubles");

  std::vector<uint16_t> bits;
  for (float v : floats) bits.push_back(poplar::IeeeHalf(v).bit16());
  writeAll(dir + "ieee_bits", bits);
  poplar::convertToDeviceType(poplar::HALF, poplar::ArrayRef<const float>(floats), bits.data());
  writeAll(dir + "float_bits", bits);
  std::vector<double> doublesCopy = doubles;
  std::vector<uint16_t> doubleBits(doubles.size());
  poplar::convertToDeviceType(poplar::HALF, poplar::ArrayRef<double>(doublesCopy), doubleBits.data());
  writeAll(dir + "double_bits", doubleBits);

  std::vector<uint16_t> patterns(65536);
  std::vector<float> widened;
  for (unsigned b = 0; b < patterns.size(); ++b) {
    patterns[b] = uint16_t(b);
    widened.push_back(float(poplar::IeeeHalf::fromBits(uint16_t(b))));
  }
  writeAll(dir + "widened", widened);
  std::vector<double> wideDoubles(patterns.size());
  poplar::convertFromDeviceType(poplar::HALF, patterns.data(), poplar::ArrayRef<double>(wideDoubles));
  writeAll(dir + "wide_doubles", wideDoubles);

  // qNaN, sNaN, +inf, 1, the smallest subnormal, -0.
  const uint16_t specials[] = {0x7e00, 0x7c01, 0x7c00, 0x3c00, 0x0001, 0x8000};
  std::cout << "queries:";
  for (uint16_t p : specials) {
    const poplar::IeeeHalf h = poplar::IeeeHalf::fromBits(p);
    std::cout << ' ' << h.isqNaN() << h.issNaN() << h.isNaN() << h.isInf() << h.isNorm() << h.isZero();
  }
  std::cout << '\n';
  poplar::IeeeHalf x(1.0f);
  x += 0.0004f; // below half an ulp of 1 (0.000488): stays 1
  std::cout << "accumulate: " << float(x) << ' ';
  x += 0.0005f; // above: the next half, 1.000977
  std::cout << float(x) << ' ';
  x -= 1.0f;
  x *= 1024.0f;
  x /= 4.0f;
  std::cout << float(x) << '\n';
  poplar::IeeeHalf y(3.0f);
  std::cout << "operators: " << float(y + 0.5f) << ' ' << float(y - 4.0f) << ' ' << float(y * 1e5f) << ' '
            << float(y / 2.0f) << ' ' << float(-y) << ' ' << (y < 3.5f) << (y > 3.5f) << (y <= 3.0f) << (y >= 3.5f)
            << (y == 3.0f) << (y != 3.0f) << (y == poplar::IeeeHalf(3.0f)) << (y != poplar::IeeeHalf(3.0f))
            << (poplar::IeeeHalf::fromBits(0x8000) == poplar::IeeeHalf(0.0f))
            << (poplar::IeeeHalf::fromBits(0x7e00) == poplar::IeeeHalf::fromBits(0x7e00)) << '\n';

  // Host floats to device INT and back to host ints and IeeeHalf; device FLOAT to host unsigned.
  const std::vector<float> mixed = {2.9f, -2.9f, 3e9f, -3e9f};
  std::vector<int> deviceInts(mixed.size()), hostInts(mixed.size());
  poplar::convertToDeviceType(poplar::INT, poplar::ArrayRef<const float>(mixed), deviceInts.data());
  poplar::convertFromDeviceType(poplar::INT, deviceInts.data(), poplar::ArrayRef<int>(hostInts));
  std::vector<poplar::IeeeHalf> halves(mixed.size());
  poplar::convertFromDeviceType(poplar::INT, deviceInts.data(), poplar::ArrayRef<poplar::IeeeHalf>(halves));
  std::vector<unsigned> unsigneds(mixed.size());
  poplar::convertFromDeviceType(poplar::FLOAT, mixed.data(), poplar::ArrayRef<unsigned>(unsigneds));
  std::cout << "integers:";
  for (std::size_t i = 0; i < mixed.size(); ++i)
    std::cout << ' ' << hostInts[i] << '/' << float(halves[i]) << '/' << unsigneds[i];
  std::cout << '\n';
  char byte = 0;
  expectError("quarter", [&] { poplar::convertToDeviceType(poplar::QUARTER, poplar::ArrayRef<const float>(mixed), &byte); });
  expectError("double", [&] { poplar::convertFromDeviceType(poplar::DOUBLE, &byte, poplar::ArrayRef<int>(hostInts)); });
  return 0;
}
