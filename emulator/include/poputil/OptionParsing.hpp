#pragma once
// Option parsing as poplibs' libraries do it (namespace poplibs): an OptionSpec maps option
// names to OptionHandlers, each of which parses its value into a variable of the caller's.
// Every bad name or value raises poplar::invalid_option naming the option and the value.
// Header-only; compiles as C++11 (the std::optional handlers need C++17, as in the SDK).
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#if __cplusplus >= 201703L
#include <optional>
#endif

#include <poplar/StringRef.hpp>
#include <poplar/exceptions.hpp>

namespace poplibs {
namespace parse {

// A decimal integer, or hexadecimal with "0x"; nothing may follow it.
template <typename T> T asInteger(const poplar::StringRef &str) {
  const std::string text = str.cloneAsString();
  std::istringstream in(text);
  T result;
  if (text.find("0x") != std::string::npos)
    in >> std::hex;
  in >> result;
  if (in.fail() || !in.eof())
    throw poplar::invalid_option("Not a valid integer");
  return result;
}

template <typename T> T asFloatingPoint(const poplar::StringRef &str) {
  std::istringstream in(str.cloneAsString());
  T result;
  if (!(in >> result))
    throw poplar::invalid_option("Not a floating point number");
  return result;
}

// "['a', 'b']": the map's keys in order.
template <typename T> std::string describeEnumValues(const std::map<std::string, T> &valueMap) {
  std::string text = "[";
  for (typename std::map<std::string, T>::const_iterator it = valueMap.begin(); it != valueMap.end(); ++it)
    text += (it == valueMap.begin() ? "'" : ", '") + it->first + "'";
  return text + "]";
}

template <typename T> T asEnum(const poplar::StringRef &value, const std::map<std::string, T> &map) {
  const typename std::map<std::string, T>::const_iterator found = map.find(value.cloneAsString());
  if (found == map.end())
    throw poplar::invalid_option("Not one of the values: " + describeEnumValues(map));
  return found->second;
}

inline bool asBool(const poplar::StringRef &value) {
  const std::map<std::string, bool> values = {{"true", true}, {"false", false}};
  return asEnum<bool>(value, values);
}

} // namespace parse

namespace option_parsing {
// The handlers' bodies as function objects (C++11 has no init-captures).
template <typename T, typename Map> struct SetEnum {
  T *output;
  Map values;
  void operator()(poplar::StringRef value) const { *output = parse::asEnum<T>(value, values); }
};
template <typename T> struct SetInteger {
  T *output;
  void operator()(poplar::StringRef value) const { *output = parse::asInteger<int>(value); }
};
template <typename T> struct SetDouble;
template <typename T> struct SetList {
  std::vector<T> *output;
  void operator()(poplar::StringRef values) const {
    std::istringstream in(values.cloneAsString());
    for (std::string element; std::getline(in, element, ',');)
      output->push_back(parse::asInteger<T>(element));
  }
};
} // namespace option_parsing

// Parses one option's value (a function of poplar::StringRef).
class OptionHandler {
  std::function<void(poplar::StringRef)> handle;

public:
  template <typename T> OptionHandler(T &&valueHandler) : handle(std::forward<T>(valueHandler)) {}
  void parseValue(poplar::StringRef value) const { handle(value); }

  // The value must be one of valueMap's keys; output gets its value (the map is copied).
  template <typename T, typename ValueMapT = std::map<std::string, T>>
  static OptionHandler createWithEnum(T &output, ValueMapT &&valueMap) {
    typedef typename std::decay<ValueMapT>::type Map;
    option_parsing::SetEnum<T, Map> set = {&output, Map(std::forward<ValueMapT>(valueMap))};
    return OptionHandler(set);
  }
  template <typename T> static OptionHandler createWithInteger(T &output) {
    option_parsing::SetInteger<T> set = {&output};
    return OptionHandler(set);
  }
  // "true" or "false".
  template <typename T> static OptionHandler createWithBool(T &output) {
    std::map<std::string, T> values = {{"true", static_cast<T>(true)}, {"false", static_cast<T>(false)}};
    return createWithEnum(output, std::move(values));
  }
  // Raises unless lowerBound <= value <= upperBound, each end open when not inclusive.
  template <typename T>
  static void ensureValueIsWithinBounds(T value, const T &lowerBound, bool lowerBoundIsInclusive,
                                        const T &upperBound, bool upperBoundIsInclusive) {
    if (value < lowerBound || (!lowerBoundIsInclusive && value == lowerBound))
      throw poplar::invalid_option(std::string("Value must be greater than ") +
                                   (lowerBoundIsInclusive ? "or equal to " : "") + std::to_string(lowerBound));
    if (value > upperBound || (!upperBoundIsInclusive && value == upperBound))
      throw poplar::invalid_option(std::string("Value must be less than ") +
                                   (upperBoundIsInclusive ? "or equal to " : "") + std::to_string(upperBound));
  }
  template <typename T>
  static OptionHandler createWithDouble(T &output, double lowerBound = std::numeric_limits<double>::min(),
                                        bool lowerBoundIsInclusive = true,
                                        double upperBound = std::numeric_limits<double>::max(),
                                        bool upperBoundIsInclusive = true);
  static OptionHandler createWithString(std::string &output) {
    std::string *target = &output;
    return OptionHandler([target](poplar::StringRef value) { *target = value.cloneAsString(); });
  }
  // A comma-separated list of integers, appended to output.
  template <typename T> static OptionHandler createWithList(std::vector<T> &output) {
    option_parsing::SetList<T> set = {&output};
    return OptionHandler([set](poplar::StringRef values) {
      try {
        set(values);
      } catch (const poplar::invalid_option &) {
        throw poplar::invalid_option("Not a comma-separated list of integers");
      }
    });
  }
};

namespace option_parsing {
template <typename T> struct SetDouble {
  T *output;
  double lower, upper;
  bool lowerInclusive, upperInclusive;
  void operator()(poplar::StringRef value) const {
    const double parsed = parse::asFloatingPoint<double>(value);
    OptionHandler::ensureValueIsWithinBounds(parsed, lower, lowerInclusive, upper, upperInclusive);
    *output = parsed;
  }
};
} // namespace option_parsing

template <typename T>
OptionHandler OptionHandler::createWithDouble(T &output, double lowerBound, bool lowerBoundIsInclusive,
                                              double upperBound, bool upperBoundIsInclusive) {
  option_parsing::SetDouble<T> set = {&output, lowerBound, upperBound, lowerBoundIsInclusive,
                                      upperBoundIsInclusive};
  return OptionHandler(set);
}

// Option names to their handlers.
class OptionSpec {
  using value_type = std::pair<const std::string, OptionHandler>;
  using map_type = std::map<const std::string, OptionHandler>;
  using initializer_list_t = std::initializer_list<value_type>;
  map_type handlers;

public:
  OptionSpec(initializer_list_t &&handlers) : handlers(handlers) {}
  // Hands value to the option's handler; an unknown option raises unless ignoreUnknown.
  void parse(poplar::StringRef option, poplar::StringRef value, bool ignoreUnknown = false) const {
    const map_type::const_iterator found = handlers.find(option.cloneAsString());
    if (found == handlers.end()) {
      if (ignoreUnknown)
        return;
      throw poplar::invalid_option("Unrecognised option '" + option.cloneAsString() + "'");
    }
    try {
      found->second.parseValue(value);
    } catch (const poplar::invalid_option &e) {
      throw poplar::invalid_option("Invalid value '" + value.cloneAsString() + "' for option '" +
                                   option.cloneAsString() + "': " + e.what());
    }
  }
};

#if __cplusplus >= 201703L
template <typename T>
OptionHandler createOptionalDoubleHandler(std::optional<T> &output,
                                          double lowerBound = std::numeric_limits<double>::min(),
                                          bool lowerBoundIsInclusive = true,
                                          double upperBound = std::numeric_limits<double>::max(),
                                          bool upperBoundIsInclusive = true) {
  return OptionHandler([&output, lowerBound, lowerBoundIsInclusive, upperBound,
                        upperBoundIsInclusive](poplar::StringRef value) {
    T parsed{};
    OptionHandler::createWithDouble(parsed, lowerBound, lowerBoundIsInclusive, upperBound, upperBoundIsInclusive)
        .parseValue(value);
    output = parsed;
  });
}

template <typename T, typename ValueMapT = std::map<std::string, T>>
OptionHandler createOptionalEnumHandler(std::optional<T> &output, ValueMapT &&valueMap) {
  return OptionHandler([&output, values = std::map<std::string, T>(std::forward<ValueMapT>(valueMap))](
                           poplar::StringRef value) { output = parse::asEnum<T>(value, values); });
}
#endif

} // namespace poplibs
