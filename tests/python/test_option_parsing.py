"""poputil/OptionParsing.hpp: poplibs' option specs (namespace poplibs) in a C++ program, each
handler with good values and with the bad ones it must refuse with poplar::invalid_option."""
import subprocess

from cpp_build import build_program

PROGRAM = r'''
#include <poputil/OptionParsing.hpp>
#include <cstdio>
#include <iostream>

enum class Mode { FAST, SMALL };

// Runs one parse and prints what it set, or the message it raised.
template <class F> void attempt(const char *label, F f) {
  try {
    f();
    std::cout << label << " ok\n";
  } catch (const poplar::invalid_option &e) {
    std::cout << label << " error: " << e.what() << "\n";
  }
}

int main() {
  int integer = 0;
  bool flag = false;
  double ratio = 0;
  std::string text;
  std::vector<unsigned> list;
  Mode mode = Mode::FAST;
  const std::map<std::string, Mode> modes = {{"fast", Mode::FAST}, {"small", Mode::SMALL}};
  const poplibs::OptionSpec spec{
      {"integer", poplibs::OptionHandler::createWithInteger(integer)},
      {"flag", poplibs::OptionHandler::createWithBool(flag)},
      {"ratio", poplibs::OptionHandler::createWithDouble(ratio, 0.0, false, 1.0, true)},
      {"text", poplibs::OptionHandler::createWithString(text)},
      {"list", poplibs::OptionHandler::createWithList(list)},
      {"mode", poplibs::OptionHandler::createWithEnum(mode, modes)},
  };
  attempt("integer", [&] { spec.parse("integer", "0x1f"); });
  attempt("flag", [&] { spec.parse("flag", "true"); });
  attempt("ratio", [&] { spec.parse("ratio", "0.25"); });
  attempt("text", [&] { spec.parse("text", "hello"); });
  attempt("list", [&] { spec.parse("list", "3,0x10,5"); });
  attempt("mode", [&] { spec.parse("mode", "small"); });
  std::cout << integer << " " << flag << " " << ratio << " " << text << " " << list.size() << ":" << list[0]
            << "," << list[1] << "," << list[2] << " " << (mode == Mode::SMALL) << "\n";
  attempt("bad integer", [&] { spec.parse("integer", "12abc"); });
  attempt("bad flag", [&] { spec.parse("flag", "yes"); });
  attempt("bad double", [&] { spec.parse("ratio", "much"); });
  attempt("open lower bound", [&] { spec.parse("ratio", "0"); });
  attempt("upper bound", [&] { spec.parse("ratio", "1.5"); });
  attempt("bad list", [&] { spec.parse("list", "1,x"); });
  attempt("bad mode", [&] { spec.parse("mode", "slow"); });
  attempt("unknown", [&] { spec.parse("colour", "red"); });
  attempt("ignored", [&] { spec.parse("colour", "red", true); });
  std::cout << poplibs::parse::asInteger<long>("-42") << " " << poplibs::parse::asFloatingPoint<float>("2.5") << " "
            << poplibs::parse::asBool("false") << " " << poplibs::parse::describeEnumValues(modes) << " "
            << (poplibs::parse::asEnum<Mode>("fast", modes) == Mode::FAST) << "\n";
  attempt("inclusive ends", [] {
    poplibs::OptionHandler::ensureValueIsWithinBounds(2, 2, true, 4, true);
    poplibs::OptionHandler::ensureValueIsWithinBounds(4, 2, true, 4, true);
  });
  attempt("open upper end", [] { poplibs::OptionHandler::ensureValueIsWithinBounds(4, 2, true, 4, false); });
  poplibs::OptionHandler own([&](poplar::StringRef v) { text = v.cloneAsString() + "!"; });
  own.parseValue("raw");
  std::cout << text << "\n";
#if __cplusplus >= 201703L
  std::optional<double> maybeRatio;
  std::optional<Mode> maybeMode;
  poplibs::createOptionalDoubleHandler(maybeRatio, 0.0, true, 2.0, true).parseValue("1.5");
  poplibs::createOptionalEnumHandler(maybeMode, modes).parseValue("small");
  attempt("optional bound", [&] { poplibs::createOptionalDoubleHandler(maybeRatio, 0.0, true, 2.0, true).parseValue("3"); });
  std::cout << *maybeRatio << " " << (*maybeMode == Mode::SMALL) << "\n";
#endif
}
'''

EXPECTED = [
    "integer ok", "flag ok", "ratio ok", "text ok", "list ok", "mode ok",
    "31 1 0.25 hello 3:3,16,5 1",
    "bad integer error: Invalid value '12abc' for option 'integer': Not a valid integer",
    "bad flag error: Invalid value 'yes' for option 'flag': Not one of the values: ['false', 'true']",
    "bad double error: Invalid value 'much' for option 'ratio': Not a floating point number",
    "open lower bound error: Invalid value '0' for option 'ratio': Value must be greater than 0.000000",
    "upper bound error: Invalid value '1.5' for option 'ratio': Value must be less than or equal to 1.000000",
    "bad list error: Invalid value '1,x' for option 'list': Not a comma-separated list of integers",
    "bad mode error: Invalid value 'slow' for option 'mode': Not one of the values: ['fast', 'small']",
    "unknown error: Unrecognised option 'colour'",
    "ignored ok",
    "-42 2.5 0 ['fast', 'small'] 1",
    "inclusive ends ok",
    "open upper end error: Value must be less than 4",
    "raw!",
]


def run(tmp_path, std):
    exe = build_program(tmp_path, PROGRAM, std=std, strict=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()


def test_option_spec_parses_each_handler_kind_and_refuses_bad_values(tmp_path):
    assert run(tmp_path, "c++17") == EXPECTED + ["optional bound error: Value must be less than or equal to 2.000000",
                                                 "1.5 1"]


def test_option_parsing_builds_as_cxx11_without_the_optional_handlers(tmp_path):
    assert run(tmp_path, "c++11") == EXPECTED
