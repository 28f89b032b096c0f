#pragma once
// Debug information of poplibs operations: each API call records its arguments
// (and later its outputs) as profile values in a poplar::DebugInfo of layer
// "poplibs", which the debug streamer writes out (poplar/DebugContext.hpp):
//   {"layer": "poplibs", "api": <api>, "args": {<name>: <value>...},
//    "outputs": {<name>: <value>...}, ...}
// toProfileValue turns an argument into a profile value: numbers and bools as
// themselves, Type as its name, Tensor as {"shape", "type"}, ComputeSet as its
// id, OptionFlags as a map of strings, a Copy as {"src"|"stream", "dst"|"stream"},
// a pointer as what it points to (or "<nullptr>"), a vector as a map from the
// indices "0", "1", ... to its elements.
#include <string>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/ProfileValue.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

// Whether a default argument can name the calling function (__builtin_FUNCTION).
#if defined(__clang__)
#define SUPPORTS_FUNCTION_BUILTINS __has_builtin(__builtin_FUNCTION)
#elif __GNUC__ >= 7
#define SUPPORTS_FUNCTION_BUILTINS 1
#else
#define SUPPORTS_FUNCTION_BUILTINS 0
#endif

namespace poputil {

// Defined only for the types specialised below (and the templates that follow).
template <typename T> poplar::ProfileValue toProfileValue(const T &t);

template <> poplar::ProfileValue toProfileValue(const unsigned int &v);
template <> poplar::ProfileValue toProfileValue(const unsigned long &v);
template <> poplar::ProfileValue toProfileValue(const int &v);
template <> poplar::ProfileValue toProfileValue(const bool &v);
template <> poplar::ProfileValue toProfileValue(const float &v);

template <> poplar::ProfileValue toProfileValue(const poplar::ComputeSet &t);
template <> poplar::ProfileValue toProfileValue(const poplar::OptionFlags &t);
template <> poplar::ProfileValue toProfileValue(const poplar::program::Copy &t);
template <> poplar::ProfileValue toProfileValue(const poplar::Tensor &t);
template <> poplar::ProfileValue toProfileValue(const poplar::Type &t);

template <typename T> poplar::ProfileValue toProfileValue(const T *t) {
  return t == nullptr ? poplar::ProfileValue("<nullptr>") : toProfileValue(*t);
}

template <typename T> poplar::ProfileValue toProfileValue(T *const &t) {
  return t == nullptr ? poplar::ProfileValue("<nullptr>") : toProfileValue(*t);
}

template <typename T> poplar::ProfileValue toProfileValue(const std::vector<T> &vec) {
  poplar::ProfileValue::Map byIndex;
  for (std::size_t i = 0; i < vec.size(); ++i) byIndex.insert({std::to_string(i), toProfileValue(vec[i])});
  return byIndex;
}

template <> poplar::ProfileValue toProfileValue(const std::vector<bool> &vec);

// One named argument (or output) of an operation.
class ArgType {
public:
  std::string n;
  poplar::ProfileValue pv;

  ArgType(const std::string &name, const poplar::ProfileValue &value) : n(name), pv(value) {}
  ArgType(const std::pair<std::string, const poplar::ProfileValue> &p) : n(p.first), pv(p.second) {}
};

// The debug information of one call of `api`.
class OpDebugInfo : public poplar::DebugInfo {
public:
  OpDebugInfo(const poplar::DebugContext &debugContext, std::string api);
  OpDebugInfo &operator=(const OpDebugInfo &) = delete;
  OpDebugInfo(const OpDebugInfo &) = delete;
  virtual ~OpDebugInfo() = default;

  // Records `args` as the map `name`, or `value` under `name`; a name already recorded
  // is left as it was.
  void add(std::string name, const std::vector<ArgType> &args);
  void add(std::string name, poplar::ProfileValue value);
};

// A poplibs call's debug information: its arguments under "args", its outputs
// under "outputs"; `api` defaults to the calling function's name.
class PoplibsOpDebugInfo : public OpDebugInfo {
public:
#if SUPPORTS_FUNCTION_BUILTINS
  PoplibsOpDebugInfo(const poplar::DebugContext &debugContext, const std::vector<ArgType> &args = {},
                     const std::string &api = __builtin_FUNCTION());
#else
  PoplibsOpDebugInfo(const poplar::DebugContext &debugContext, const std::vector<ArgType> &args = {},
                     const std::string &api = "");
#endif
  PoplibsOpDebugInfo &operator=(const PoplibsOpDebugInfo &) = delete;
  PoplibsOpDebugInfo(const PoplibsOpDebugInfo &) = delete;
  virtual ~PoplibsOpDebugInfo() = default;

  void addOutputs(const std::vector<ArgType> &outputs);
  // addOutputs({{"output", toProfileValue(output)}}).
  void addOutput(const poplar::Tensor &output);
};

} // namespace poputil

// DI_ARGS(a, b, c) is {{"a", toProfileValue(a)}, {"b", ...}, {"c", ...}}, a
// std::vector<ArgType> initializer, for up to 11 arguments.
#define DI_STR(S) #S
#define DI_XSTR(S) DI_STR(S)

#define DI_NUM_ARGS(...) DI_NUM_ARGS_IMPL(__VA_ARGS__, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define DI_NUM_ARGS_IMPL(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, N, ...) N

#define DI_CONCAT_IMPL(x, y) x##y
#define DI_MACRO_CONCAT(x, y) DI_CONCAT_IMPL(x, y)

#define DI_KEY_VALUE_ARG_0() {}
#define DI_KEY_VALUE_ARG_1(T) { DI_XSTR(T), poputil::toProfileValue(T) }
#define DI_KEY_VALUE_ARG_2(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_1(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_3(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_2(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_4(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_3(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_5(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_4(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_6(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_5(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_7(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_6(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_8(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_7(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_9(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_8(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_10(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_9(__VA_ARGS__)
#define DI_KEY_VALUE_ARG_11(T, ...) DI_KEY_VALUE_ARG_1(T), DI_KEY_VALUE_ARG_10(__VA_ARGS__)
#define DI_KEY_VALUE_ARG(...) DI_MACRO_CONCAT(DI_KEY_VALUE_ARG_, DI_NUM_ARGS(__VA_ARGS__))(__VA_ARGS__)

#define DI_ARGS(...) { DI_KEY_VALUE_ARG(__VA_ARGS__) }
