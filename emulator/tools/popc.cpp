// popc: the Poplar codelet compiler's command line, for the emulator. It compiles
// C and C++ codelet sources with the host compiler (as Graph::addCodelets does) and
// writes a codelet object (.gp) that Graph::addCodelets loads: one shared library per
// source, with the targets it was compiled for (CodeletObject.hpp).
#include <poplar/exceptions.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "CodeletObject.hpp"
#include "Codelets.hpp"

namespace {

using poplar::detail::CodeletObject;

const char *const kTargets[] = {"ipu1", "ipu2", "ipu21", "cpu"};

const char kUsage[] =
    "Usage: popc [options] <input files> -o <output.gp>\n"
    "Compiles codelets (C and C++ sources) into a codelet object that Graph::addCodelets loads.\n"
    "The emulator's popc compiles them for the host ($CXX, else g++); the object runs only on\n"
    "the emulator, on this machine.\n"
    "\n"
    "Options:\n"
    "  -h, --help               print this help and exit\n"
    "  --version                print the version and exit\n"
    "  -o, --output <file>      the codelet object to write (default: <input>.gp for one input)\n"
    "  -O0 -O1 -O2 -O3 -Os -Oz  optimisation level (default -O3)\n"
    "  -g                       debug information\n"
    "  -I <dir>                 add an include directory\n"
    "  -D <macro>[=<value>]     define a macro; -U <macro> undefines one\n"
    "  -W<warning>              warnings, as the compiler takes them (-Wall, -Werror, ...)\n"
    "  -X <option>              pass <option> to the compiler\n"
    "  -std=<standard>          the C++ standard (default c++17)\n"
    "  --target <list>          the targets the object is for: a comma-separated list of\n"
    "                           ipu1, ipu2, ipu21 and cpu (default: all of them)\n"
    "  --list-targets           print the targets and exit\n"
    "\n"
    "Inputs: .cpp/.cc/.cxx/.C/.c sources; .gp objects written by this popc (linked in);\n"
    "IPU assembly (.S, .s) is skipped with a warning: the host cannot run it.\n";

struct Options {
  std::vector<std::string> sources, objects, compilerFlags, targets;
  std::string output, optimisation = "-O3";
};

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "popc: error: " << message << "\n";
  std::exit(1);
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> parseTargets(const std::string &list) {
  if (!list.empty() && (list[0] == '[' || list[0] == '{'))
    fail("--target: JSON target descriptions are not supported by the emulator's popc; give a comma-separated "
         "list of ipu1, ipu2, ipu21 and cpu");
  std::vector<std::string> targets;
  std::istringstream in(list);
  for (std::string t; std::getline(in, t, ',');) {
    // ipu2:cpp and the like: a target with a variant is its architecture here.
    const std::string arch = t.substr(0, t.find(':'));
    bool known = false;
    for (const char *k : kTargets) known = known || arch == k;
    if (!known) fail("--target: unknown target '" + t + "' (targets: ipu1, ipu2, ipu21, cpu)");
    targets.push_back(arch);
  }
  if (targets.empty()) fail("--target: no target given");
  return targets;
}

// The value of an option given as "-Xvalue", "-X value" or (long options) "--opt=value".
std::string valueOf(int argc, char **argv, int &i, const std::string &arg, const std::string &name) {
  if (arg.size() > name.size()) return arg.substr(name.size() + (arg[name.size()] == '=' ? 1 : 0));
  if (i + 1 >= argc) fail("option '" + name + "' needs a value");
  return argv[++i];
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto starts = [&](const char *p) { return arg.rfind(p, 0) == 0; };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--version") {
      std::cout << "popc (popdsl emulator) for the Poplar SDK 3.3 API, codelet ABI " << poplar::detail::kCodeletAbi
                << "\nhost compiler: " << poplar::detail::codeletCompilerVersion() << "\n";
      std::exit(0);
    } else if (arg == "--list-targets") {
      for (const char *t : kTargets) std::cout << t << "\n";
      std::exit(0);
    } else if (arg == "-o" || arg == "--output" || starts("--output=") || (starts("-o") && arg.size() > 2)) {
      o.output = valueOf(argc, argv, i, arg, starts("--output") ? "--output" : "-o");
    } else if (starts("--target") || starts("-target")) {
      const std::string name = starts("--target") ? "--target" : "-target";
      for (const std::string &t : parseTargets(valueOf(argc, argv, i, arg, name))) o.targets.push_back(t);
    } else if (arg == "-O0" || arg == "-O1" || arg == "-O2" || arg == "-O3" || arg == "-Os" || arg == "-Oz" ||
               arg == "-O") {
      o.optimisation = arg;
    } else if (starts("-I") || starts("-D") || starts("-U")) {
      const std::string flag = arg.substr(0, 2);
      o.compilerFlags.push_back(flag + valueOf(argc, argv, i, arg, flag));
    } else if (starts("-X")) {
      o.compilerFlags.push_back(valueOf(argc, argv, i, arg, "-X"));
    } else if (starts("-W") || starts("-g") || starts("-std=") || starts("-f")) {
      o.compilerFlags.push_back(arg);
    } else if (arg == "-S" || arg == "-c") {
      fail("option '" + arg + "' asks for IPU assembly or a partial object, which the emulator's popc does not "
           "write: it writes a whole codelet object for the host");
    } else if (!arg.empty() && arg[0] == '-') {
      fail("unknown option '" + arg + "' (popc --help lists the options)");
    } else if (endsWith(arg, ".S") || endsWith(arg, ".s") || endsWith(arg, ".asm")) {
      std::cerr << "popc: warning: skipping IPU assembly '" << arg << "': the emulator runs codelets on the host; "
                << "vertices implemented in it need a C++ compute()\n";
    } else if (endsWith(arg, ".gp")) {
      o.objects.push_back(arg);
    } else {
      o.sources.push_back(arg);
    }
  }
  if (o.sources.empty() && o.objects.empty()) fail("no input files (popc --help shows the usage)");
  if (o.output.empty()) {
    if (o.sources.size() + o.objects.size() != 1) fail("several inputs: name the output with -o <file.gp>");
    // As compilers do: the input's file name, its extension replaced, in the working directory.
    const std::string &in = o.sources.empty() ? o.objects[0] : o.sources[0];
    const std::string name = in.substr(in.rfind('/') == std::string::npos ? 0 : in.rfind('/') + 1);
    o.output = name.substr(0, name.rfind('.')) + ".gp";
  }
  if (o.targets.empty()) o.targets.assign(std::begin(kTargets), std::end(kTargets));
  return o;
}

std::string directoryOf(const std::string &path) {
  char *real = ::realpath(path.c_str(), nullptr);
  if (!real) fail("cannot read '" + path + "'");
  std::string absolute = real;
  std::free(real);
  return absolute.substr(0, absolute.rfind('/'));
}

std::string commandLine(int argc, char **argv) {
  std::string s = "popc";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  std::string flags = o.optimisation;
  for (const std::string &f : o.compilerFlags) flags += " " + f;
  CodeletObject object;
  object.targets = o.targets;
  object.host = poplar::detail::hostPlatform();
  object.abi = poplar::detail::kCodeletAbi;
  object.command = commandLine(argc, argv);
  try {
    object.compiler = poplar::detail::codeletCompilerVersion();
    for (const std::string &source : o.sources) {
      // Messages name the source as given, so a Makefile's paths come back as written.
      poplar::detail::CodeletSource s{source, readFile(source), flags, directoryOf(source)};
      object.modules.push_back({source, poplar::detail::compileCodeletModule(s)});
    }
    for (const std::string &path : o.objects) {
      const CodeletObject linked = poplar::detail::readCodeletObject(path, readFile(path), object.abi);
      object.modules.insert(object.modules.end(), linked.modules.begin(), linked.modules.end());
    }
  } catch (const poplar::poplar_error &e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  // Written beside the output and renamed over it, so a failed write leaves no half object.
  const std::string temp = o.output + ".popc-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out << poplar::detail::serializeCodeletObject(object);
    if (!out) {
      ::unlink(temp.c_str());
      fail("cannot write '" + o.output + "'");
    }
  }
  if (std::rename(temp.c_str(), o.output.c_str()) != 0) {
    ::unlink(temp.c_str());
    fail("cannot write '" + o.output + "'");
  }
  return 0;
}
