// Debug contexts, debug information streamed to a file, profile values and option
// flags, printed as "name: value" lines that test_core_api.py checks. argv[1]: the
// file the debug information goes to.
#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/ProfileValue.hpp>
#include <poplar/exceptions.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "expect_error.hpp"

namespace {

int sum(poplar::ArrayRef<const int> values) {
  int total = 0;
  for (auto it = values.cbegin(); it != values.cend(); ++it) total += *it;
  return total;
}

// A library call taking the usual trailing debug context.
std::string layerCall(const poplar::DebugContext &dc = {}) {
  poplar::DebugInfo info(dc, "mylib");
  info.setValue("answer", 42);
  poplar::DebugNameAndId dnai(info);
  poplar::DebugContext inner(dnai, "inner");
  std::ostringstream out;
  out << inner.getPathName() << " id " << (inner.getId() == info.getId()) << " caller "
      << dc.getSourceLocation().getFunctionName() << ':' << dc.getSourceLocation().getLineNumber();
  return out.str();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const poplar::SourceLocation here = poplar::SourceLocation::Current();
  std::cout << "location: " << here.getFunctionName() << ' ' << here.getLineNumber() << ' ' << here.isValid() << ' '
            << std::string(here.getFileName()).substr(std::string(here.getFileName()).rfind('/') + 1) << ' '
            << poplar::SourceLocation().isValid() << '\n';

  poplar::DebugInfo::initializeStreamer(argv[1], poplar::DebugSerializationFormat::JSON);
  expectError("second streamer", [&] { poplar::DebugInfo::initializeStreamer(argv[1]); });
  std::cout << "layer call: " << layerCall({"outer"}) << '\n';
  {
    poplar::DebugContext top("model");
    poplar::DebugInfo info(top, "popdsl");
    std::cout << "values: " << info.setValue("shape", poplar::ProfileValue::Vector{2, 3}) << ' '
              << info.setValue("shape", true) << ' ' << info.setValue("id", 1) << ' '
              << info.setValue("kind", "matmul") << '\n';
    poplar::DebugNameAndId child(poplar::DebugNameAndId(info, "weights"), "w0");
    std::cout << "name and id: " << child.getPathName() << ' ' << (child.getId() == info.getId()) << ' '
              << info.getPathName() << '\n';
    poplar::DebugNameAndId byId(poplar::DebugId(7));
    poplar::DebugNameAndId fromText("plain");
    poplar::DebugContext nested(poplar::DebugContext(info, "block"), "step");
    std::cout << "contexts: " << byId.getId() << ' ' << fromText.getPathName() << ' ' << nested.getPathName() << ' '
              << (nested.getId() == info.getId()) << '\n';
  }
  poplar::DebugInfo::closeStreamer();
  expectError("cbor", [&] { poplar::DebugInfo::initializeStreamer(argv[1], poplar::DebugSerializationFormat::CBOR); });

  const poplar::ProfileValue value(poplar::ProfileValue::Map{
      {"name", "conv"},
      {"cycles", poplar::ProfileValue::Vector{poplar::ProfileValue::Vector{1, 2}, poplar::ProfileValue::Vector{3, 4}}},
      {"flops", 2.5},
      {"ok", true}});
  const poplar::ProfileValue &cycles = value["cycles"];
  std::cout << "profile types: " << (poplar::ProfileValue(true).type() == poplar::ProfileValue::Type::BOOL_)
            << (value["name"].type() == poplar::ProfileValue::Type::STRING)
            << (value["flops"].type() == poplar::ProfileValue::Type::NUMBER)
            << (cycles.type() == poplar::ProfileValue::Type::VECTOR)
            << (value.type() == poplar::ProfileValue::Type::MAP) << '\n';
  std::cout << "profile value: " << value << '\n';
  std::cout << "profile queries: " << (value.type() == poplar::ProfileValue::Type::MAP) << ' ' << value.size() << ' '
            << value["name"].asString() << ' ' << value.getOrNull("ok")->asBool() << ' '
            << (value.getOrNull("missing") == nullptr) << ' ' << value["flops"].asDouble() << ' '
            << cycles.sum2DInt() << ' ' << cycles.sum2DUint() << ' ' << cycles[1].sumInt() << ' ' << cycles[1].sumUint()
            << ' ' << cycles[0].sumDouble() << ' ' << cycles[0].toUintVector().size() << ' ' << cycles[1][0].asInt()
            << ' ' << cycles[1][1].asUint() << ' ' << value.asMap().size() << ' ' << cycles.asVector().size() << ' '
            << (value == poplar::ProfileValue(value)) << ' ' << (value["ok"] != poplar::ProfileValue(false)) << '\n';
  expectError("string as int", [&] { value["name"].asInt(); });
  expectError("fraction as int", [&] { value["flops"].asInt(); });
  expectError("index past end", [&] { cycles[2]; });
  expectError("missing member", [&] { value["nope"]; });

  const std::string text = "stream-name";
  const poplar::StringRef whole(text), part(text.data(), 6), literal("stream"), copy(part);
  std::cout << "string refs: " << whole.size() << ' ' << part << ' ' << (part == literal) << ' '
            << (whole != literal) << ' ' << copy.cloneAsString() << ' ' << (whole.data() == text.data()) << ' '
            << std::string(literal) << '\n';
  std::vector<int> numbers = {3, 1, 4};
  const poplar::ArrayRef<int> view(numbers);
  const poplar::ArrayRef<const int> constView(view);
  std::cout << "array refs: " << view.size() << ' ' << view[1] << ' ' << view.front() << ' ' << view.back() << ' '
            << (constView.data() == numbers.data()) << ' ' << sum(constView) << ' ' << sum({5, 6}) << ' '
            << poplar::ArrayRef<int>().empty() << ' ' << (view.end() - view.begin()) << ' '
            << poplar::ArrayRef<int>(numbers.data() + 1, 2).vec().size() << '\n';

  poplar::OptionFlags flags{{"b", "2"}, {"a", "1"}};
  flags.set("c", "3");
  flags.set({{"a", "10"}});
  std::cout << "flags:";
  for (poplar::OptionFlags::iterator it = flags.begin(); it != flags.end(); ++it)
    std::cout << ' ' << it->first << '=' << it->second;
  std::cout << ' ' << flags.size() << ' ' << flags.at("a") << ' ' << (flags.find("zz") == flags.end()) << ' '
            << poplar::getAsProfileValue(flags) << '\n';
  poplar::OptionFlags parsed;
  poplar::readJSON("{\"x\": {\"y\": true}, \"n\": 4}", parsed);
  std::istringstream json("{\"s\": \"t\"}");
  poplar::readJSON(json, parsed);
  std::cout << "json: " << parsed << ' ' << poplar::readJSONFromEnv("POPDSL_DEBUG_API_UNSET", parsed) << '\n';
  flags.clear();
  std::cout << "cleared: " << flags.size() << ' ' << (flags == poplar::OptionFlags()) << '\n';
  expectError("unset option", [&] { flags.at("a"); });
  return 0;
}
