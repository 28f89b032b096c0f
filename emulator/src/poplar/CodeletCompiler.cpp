// Graph::addCodelets' back end: scan, generate registration code, compile with
// the host compiler (argument vector, private temporary directory), cache by
// SHA-256 (CodeletCache.hpp), dlopen, and read the vertex descriptions the library exports.
#include <popdsl_codelet/VertexRegistration.hpp>
#include <poplar/exceptions.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "CodeletCache.hpp"
#include "CodeletObject.hpp"
#include "CodeletPrint.hpp"
#include "CodeletScanner.hpp"
#include "Codelets.hpp"
#include "Sha256.hpp"

extern char **environ;

namespace poplar::detail {

// Part of the cache key and of every codelet object: change it when the generated
// registration code or popdsl_codelet/VertexRegistration.hpp changes.
const char kCodeletAbi[] = "popdsl-vertex-registration-3";

namespace {

// The headers a codelet can include from the emulator's include directory, and the
// codelet ABI header the generated registration code includes; their contents are
// part of the cache key.
const char *const kCodeletHeaders[] = {"poplar/Vertex.hpp", "poplar/HalfFloat.hpp", "ipudef.h", "print.h",
                                       "ipu_builtins.h", "ipu_vector_math", "ipu_memory_intrinsics"};
const char kCodeletAbiHeader[] = "popdsl_codelet/VertexRegistration.hpp";
// Included before every codelet source: the IPU builtins codelets call without an include.
const char kHardwareBuiltinsHeader[] = "popdsl_codelet/HardwareBuiltins.hpp";


bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw graph_program_compilation_error("Cannot write '" + path + "' to compile codelets");
}

std::string directoryOf(const std::string &path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Where poplar/Vertex.hpp is: next to the library holding this code (an
// SDK-shaped prefix: <prefix>/lib/libpoplar.so and <prefix>/include; or the
// package: popdsl/_core*.so and popdsl/include), else the source tree's
// headers, else $POPDSL_INCLUDE_DIR.
std::string codeletIncludeDir() {
  std::vector<std::string> tried;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&codeletIncludeDir), &info) && info.dli_fname) {
    tried.push_back(directoryOf(info.dli_fname) + "/../include");
    tried.push_back(directoryOf(info.dli_fname) + "/include"); // the headers installed beside popdsl._core
  }
#ifdef POPDSL_SOURCE_INCLUDE_DIR
  tried.push_back(POPDSL_SOURCE_INCLUDE_DIR);
#endif
  if (const char *env = std::getenv("POPDSL_INCLUDE_DIR")) tried.push_back(env);
  for (const std::string &dir : tried)
    if (isFile(dir + "/poplar/Vertex.hpp")) return dir;
  std::string where;
  for (const std::string &dir : tried) where += "\n  " + dir;
  throw graph_program_compilation_error("Cannot compile codelets: poplar/Vertex.hpp is not in any of:" + where +
                                        "\nSet POPDSL_INCLUDE_DIR to the emulator's include directory.");
}

// Where the codelet ABI header is: <prefix>/lib/popdsl/codelet beside the library
// holding this code, else the source tree's emulator/codelet. It is not in the
// public include directory, which holds only SDK headers.
std::string codeletAbiDir() {
  std::vector<std::string> tried;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&codeletAbiDir), &info) && info.dli_fname)
    tried.push_back(directoryOf(info.dli_fname) + "/popdsl/codelet");
#ifdef POPDSL_SOURCE_CODELET_DIR
  tried.push_back(POPDSL_SOURCE_CODELET_DIR);
#endif
  for (const std::string &dir : tried)
    if (isFile(dir + "/" + kCodeletAbiHeader)) return dir;
  std::string where;
  for (const std::string &dir : tried) where += "\n  " + dir;
  throw graph_program_compilation_error(std::string("Cannot compile codelets: ") + kCodeletAbiHeader +
                                        " is not in any of:" + where);
}

std::vector<std::string> splitWords(const std::string &s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// $CXX (its words: "ccache g++" works) or g++.
std::vector<std::string> compilerCommand() {
  const char *cxx = std::getenv("CXX");
  std::vector<std::string> words = splitWords(cxx ? cxx : "");
  if (words.empty()) words.push_back("g++");
  return words;
}

struct ProcessResult {
  int status = -1; // the exit status, or -1 when the process did not exit normally
  std::string output;
};

// Runs argv (no shell) with stdout and stderr going to `logPath`.
ProcessResult runProcess(const std::vector<std::string> &argv, const std::string &logPath) {
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    throw graph_program_compilation_error("Cannot run the codelet compiler '" + argv[0] + "': " + std::strerror(err) +
                                          " (set CXX to a C++17 compiler)");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult result;
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.output = readFile(logPath);
  return result;
}

// A private directory, removed with its files.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/popdsl-codelet-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw graph_program_compilation_error("Cannot make a temporary directory to compile codelets: " +
                                            std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    for (const char *f : {"codelet.cpp", "codelet.ii", "codelet.d", "codelet.so", "compiler.log", "version.log"}) ::unlink((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

std::string compilerVersion(const std::vector<std::string> &compiler) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = versions.find(compiler);
  if (it != versions.end()) return it->second;
  TempDir dir;
  std::vector<std::string> argv = compiler;
  argv.push_back("--version");
  const ProcessResult r = runProcess(argv, dir.path() + "/version.log");
  if (r.status != 0)
    throw graph_program_compilation_error("The codelet compiler '" + compiler.back() + "' does not run:\n" + r.output);
  return versions[compiler] = r.output;
}

// popc's own options that mean nothing to the host compiler.
bool isPopcOnly(const std::string &flag) { return flag.rfind("--target", 0) == 0; }

std::string quoted(const std::string &s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

Type typeNamed(const std::string &name) {
  for (const Type *t : {&BOOL, &CHAR, &SIGNED_CHAR, &UNSIGNED_CHAR, &SHORT, &UNSIGNED_SHORT, &INT, &UNSIGNED_INT,
                        &LONGLONG, &UNSIGNED_LONGLONG, &HALF, &FLOAT})
    if (t->toString() == name) return *t;
  return Type();
}

std::shared_ptr<CodeletLibrary> readLibrary(void *handle, const std::string &key, const std::string &name) {
  using Describe = const popdsl_vertex_info *(*)(unsigned *);
  auto describe = reinterpret_cast<Describe>(::dlsym(handle, "popdsl_codelet_vertices"));
  if (!describe) throw graph_program_compilation_error("Codelets '" + name + "': the compiled library has no vertex table");
  // A library whose codelets include print.h prints through the running engine.
  using SetPrinter = void (*)(void (*)(const char *, std::size_t));
  if (auto setPrinter = reinterpret_cast<SetPrinter>(::dlsym(handle, "popdsl_codelet_set_printer")))
    setPrinter(&printFromCodelet);
  unsigned count = 0;
  const popdsl_vertex_info *infos = describe(&count);
  auto library = std::make_shared<CodeletLibrary>();
  library->key = key;
  for (unsigned i = 0; i < count; ++i) {
    const popdsl_vertex_info &info = infos[i];
    if (!info.run) continue; // a base class without compute()
    auto cls = std::make_shared<VertexClass>();
    cls->name = vertexNameFromPrettyFunction(info.prettyName);
    if (library->vertices.count(cls->name)) continue; // instantiated twice (`unsigned` and `unsigned int`)
    cls->size = info.size;
    cls->align = info.align;
    cls->run = info.run;
    cls->libraryKey = key;
    for (unsigned f = 0; f < info.numFields; ++f) {
      const popdsl_field_info &fi = info.fields[f];
      VertexField field;
      field.name = fi.name;
      field.kind = static_cast<FieldKind>(fi.kind);
      field.rank = fi.rank;
      field.elementType = typeNamed(fi.elementType);
      if (field.elementType == Type()) field.kind = FieldKind::Other;
      field.elementSize = fi.elementSize;
      field.minAlign = fi.minAlign ? fi.minAlign : 1;
      field.offset = fi.offset;
      field.layout[0] = fi.layout[0];
      field.layout[1] = fi.layout[1];
      cls->fields.push_back(field);
    }
    library->vertices[cls->name] = cls;
  }
  return library;
}

std::mutex gLibrariesMutex;
std::map<std::string, std::shared_ptr<const CodeletLibrary>> gLibraries; // by key
// Per key of a source (without its includes): the files it included when last compiled.
std::map<std::string, std::vector<std::string>> gDependencies;

// The files a `-MMD` dependency file lists after its target, unescaped.
std::vector<std::string> parseDependencyFile(const std::string &text) {
  std::vector<std::string> files;
  std::string current;
  const auto colon = text.find(": ");
  for (std::size_t i = colon == std::string::npos ? text.size() : colon + 2; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) continue;
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      current += text[++i];
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      current += text[++i];
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!current.empty()) files.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) files.push_back(current);
  return files;
}

// The key of the compiled library: the source's key and the contents of the files it
// includes (besides the emulator's headers); nullopt when one of them is gone.
std::optional<std::string> keyWithDependencies(const std::string &sourceKey, const std::vector<std::string> &files) {
  if (files.empty()) return sourceKey;
  std::string text = sourceKey;
  for (const std::string &file : files) {
    if (!isFile(file)) return std::nullopt;
    text += '\0' + file + '\0' + readFile(file);
  }
  return sha256Hex(text);
}

// What gDependencies or the cache knows.
std::optional<std::vector<std::string>> knownDependencies(const std::string &sourceKey, const std::string &cache) {
  if (const auto it = gDependencies.find(sourceKey); it != gDependencies.end()) return it->second;
  return cache.empty() ? std::nullopt : cachedDependencies(cache, sourceKey);
}

bool isWordCharacter(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `text` with each occurrence of `words` that stands on word boundaries (as a regular
// expression's \b...\b) replaced by `replacement`.
std::string replaceWholeWords(const std::string &text, const std::string &words, const char *replacement) {
  std::string out;
  std::size_t done = 0;
  for (auto at = text.find(words); at != std::string::npos; at = text.find(words, at + 1)) {
    const auto end = at + words.size();
    const bool boundaryBefore = at == 0 || !isWordCharacter(text[at - 1]);
    const bool boundaryAfter = end == text.size() || !isWordCharacter(text[end]);
    if (at < done || !boundaryBefore || !boundaryAfter) continue;
    out.append(text, done, at - done).append(replacement);
    done = end;
  }
  return out.append(text, done, std::string::npos);
}

} // namespace

int VertexClass::fieldIndex(const std::string &field) const {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return static_cast<int>(i);
  return -1;
}

std::string vertexNameFromPrettyFunction(const std::string &pretty) {
  const std::string marker = "V = ";
  const auto begin = pretty.find(marker);
  std::string name = begin == std::string::npos ? pretty : pretty.substr(begin + marker.size());
  if (begin != std::string::npos && !name.empty() && (name.back() == ']')) name.pop_back();
  // The compilers' spellings of built-in types, as Poplar's Type::toString writes them
  // (longest first: "long int" is also the tail of "long long int").
  static const std::pair<const char *, const char *> spellings[] = {
      {"_Float16", "half"},
      {"long long unsigned int", "unsigned long long"},
      {"long long int", "long long"},
      {"long unsigned int", "unsigned long"},
      {"long int", "long"},
      {"short unsigned int", "unsigned short"},
      {"short int", "short"}};
  for (const auto &[spelling, poplarName] : spellings) name = replaceWholeWords(name, spelling, poplarName);
  // templateVertex writes no spaces, except inside type names such as "unsigned int".
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] != ' ') {
      out += name[i];
      continue;
    }
    if (!out.empty() && i + 1 < name.size() && isWordCharacter(out.back()) && isWordCharacter(name[i + 1]))
      out += ' ';
  }
  return out;
}

namespace {

// How a codelet source compiles: the compiler, its arguments (the emulator's include
// directories and the user's flags) and the key of everything that decides the result
// but the files the source includes.
struct CodeletBuild {
  std::string includeDir, abiDir, text;
  std::vector<std::string> compiler, args;
  std::string sourceKey;
};

// The IPU's function targets (__attribute__((target("supervisor"))) on a SupervisorVertex's
// compute) mean nothing on the host: the SDK's host compile ignores them with a warning, GCC
// refuses them, so they become an attribute without effect.
std::string withoutIpuTargetAttributes(std::string text) {
  for (const char *target : {"target(\"supervisor\")", "target(\"worker\")"}) {
    const std::string from = target;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
      text.replace(at, from.size(), "__unused__");
  }
  return text;
}

CodeletBuild codeletBuild(const CodeletSource &source) {
  CodeletBuild b;
  b.includeDir = codeletIncludeDir();
  b.abiDir = codeletAbiDir();
  b.text = std::string("#include <") + kHardwareBuiltinsHeader + ">\n#line 1 " + quoted(source.name) + "\n" +
           withoutIpuTargetAttributes(source.text) + "\n";
  b.compiler = compilerCommand();
  b.args = {"-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-D__POPC__=1", "-U__IPU__"};
  const std::size_t includesAt = b.args.size(); // the include directories go here, before the user's flags
  if (!source.quoteDir.empty()) b.args.insert(b.args.end(), {"-iquote", source.quoteDir});
  for (const std::string &flag : splitWords(source.flags))
    if (!isPopcOnly(flag)) b.args.push_back(flag);
  // The emulator's include directories are keyed by their headers' contents, not their
  // paths: an executable finds its codelets again where popdsl is installed elsewhere
  // (another environment, a path through a symbolic link).
  std::string keyText = std::string(kCodeletAbi) + '\0' + b.text + '\0' + compilerVersion(b.compiler);
  for (const std::string &word : b.compiler) keyText += '\0' + word;
  for (const std::string &arg : b.args) keyText += '\0' + arg;
  for (const char *header : kCodeletHeaders) keyText += '\0' + readFile(b.includeDir + "/" + header);
  keyText += '\0' + readFile(b.abiDir + "/" + kCodeletAbiHeader);
  keyText += '\0' + readFile(b.abiDir + "/" + kHardwareBuiltinsHeader);
  b.sourceKey = sha256Hex(keyText);
  b.args.insert(b.args.begin() + static_cast<std::ptrdiff_t>(includesAt), {"-I" + b.includeDir, "-I" + b.abiDir});
  return b;
}

void runCompiler(const CodeletBuild &b, const TempDir &dir, const std::vector<std::string> &extra, const char *what,
                 const std::string &name) {
  std::vector<std::string> argv = b.compiler;
  argv.insert(argv.end(), b.args.begin(), b.args.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  const ProcessResult r = runProcess(argv, dir.path() + "/compiler.log");
  if (r.status != 0)
    throw graph_program_compilation_error(std::string(what) + " codelets '" + name + "' failed:\n" + r.output);
}

// Preprocesses the source into <dir>/codelet.ii and returns the files it includes
// (besides the emulator's headers). The vertex classes are found in the preprocessed
// source, so conditional code (#ifdef __IPU__, #if 0) and macros are seen as the
// compiler sees them.
std::vector<std::string> preprocess(const CodeletBuild &b, const TempDir &dir, const std::string &name) {
  const std::string unit = dir.path() + "/codelet.cpp";
  writeFile(unit, b.text);
  runCompiler(b, dir, {"-E", "-MMD", "-MF", dir.path() + "/codelet.d", "-o", dir.path() + "/codelet.ii", unit},
              "Preprocessing", name);
  std::vector<std::string> files;
  for (const std::string &file : parseDependencyFile(readFile(dir.path() + "/codelet.d")))
    if (file != unit && file.rfind(b.includeDir + "/", 0) != 0 && file.rfind(b.abiDir + "/", 0) != 0)
      files.push_back(file);
  return files;
}

// Compiles the preprocessed source's vertices, with their registration code, into
// <dir>/codelet.so and returns its path.
std::string compileLibrary(const CodeletBuild &b, const TempDir &dir, const std::string &name) {
  const std::vector<ScannedVertex> vertices = scanCodeletVertices(readFile(dir.path() + "/codelet.ii"));
  const std::string unit = dir.path() + "/codelet.cpp", library = dir.path() + "/codelet.so";
  writeFile(unit, b.text + "#line 1 " + quoted("<popdsl vertex registration for " + name + ">") + "\n" +
                      vertexRegistrationCode(vertices));
  runCompiler(b, dir, {"-shared", "-o", library, unit}, "Compiling", name);
  return library;
}

std::shared_ptr<const CodeletLibrary> openLibrary(const std::string &path, const std::string &key,
                                                  const std::string &name) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw graph_program_compilation_error("Codelets '" + name + "': cannot load the compiled library: " +
                                          ::dlerror());
  return readLibrary(handle, key, name);
}

// Loads a library from a private copy of `bytes` (checked bytes, which no other process can
// change or truncate under the loader).
std::shared_ptr<const CodeletLibrary> openLibraryCopy(const std::string &bytes, const std::string &key,
                                                      const std::string &name) {
  TempDir dir;
  const std::string path = dir.path() + "/codelet.so";
  writeFile(path, bytes);
  return openLibrary(path, key, name);
}

} // namespace

std::shared_ptr<const CodeletLibrary> loadCodeletLibrary(const CodeletSource &source) {
  if (isCodeletObject(source.text)) return loadCodeletObject(source.name, source.text);
  const CodeletBuild build = codeletBuild(source);
  const std::string &sourceKey = build.sourceKey;

  std::lock_guard<std::mutex> lock(gLibrariesMutex);
  const std::string cache = codeletCacheDir();
  // A library is cached under its source's key and the contents of the files the
  // source included last time (a manifest beside it lists them): a changed header
  // gives another key, so the codelets compile again.
  if (const auto files = knownDependencies(sourceKey, cache)) {
    if (const auto key = keyWithDependencies(sourceKey, *files)) {
      if (const auto it = gLibraries.find(*key); it != gLibraries.end()) return it->second;
      if (const std::optional<std::string> cached = cache.empty() ? std::nullopt : cachedCodeletLibrary(cache, *key)) {
        std::shared_ptr<const CodeletLibrary> library = openLibraryCopy(*cached, *key, source.name);
        gDependencies[sourceKey] = *files;
        return gLibraries[*key] = library;
      }
    }
  }

  TempDir dir;
  const std::vector<std::string> files = preprocess(build, dir, source.name);
  const std::string key = keyWithDependencies(sourceKey, files).value_or(sourceKey);
  gDependencies[sourceKey] = files;
  if (const auto it = gLibraries.find(key); it != gLibraries.end()) return it->second;

  const std::string library = compileLibrary(build, dir, source.name);
  if (!cache.empty()) {
    cacheCodeletLibrary(cache, key, readFile(library));
    cacheDependencies(cache, sourceKey, files);
  }
  return gLibraries[key] = openLibrary(library, key, source.name);
}

std::string compileCodeletModule(const CodeletSource &source) {
  const CodeletBuild build = codeletBuild(source);
  TempDir dir;
  preprocess(build, dir, source.name);
  return readFile(compileLibrary(build, dir, source.name));
}

std::string codeletCompilerVersion() {
  const std::string version = compilerVersion(compilerCommand());
  return version.substr(0, version.find('\n'));
}

std::shared_ptr<const CodeletLibrary> loadCodeletObject(const std::string &name, const std::string &bytes) {
  const CodeletObject object = readCodeletObject(name, bytes, kCodeletAbi);
  const std::string key = sha256Hex(bytes);
  std::lock_guard<std::mutex> lock(gLibrariesMutex);
  if (const auto it = gLibraries.find(key); it != gLibraries.end()) return it->second;
  // Each module's library is loaded from a private copy of the bytes the user named,
  // never from the shared cache.
  auto merged = std::make_shared<CodeletLibrary>();
  merged->key = key;
  merged->targets = object.targets;
  for (const CodeletObject::Module &module : object.modules) {
    const std::shared_ptr<const CodeletLibrary> part = openLibraryCopy(module.library, key, name + " (" + module.source + ")");
    for (const auto &[vertex, cls] : part->vertices)
      if (!merged->vertices.emplace(vertex, cls).second)
        throw graph_program_compilation_error("Codelets '" + name + "': vertex '" + vertex +
                                              "' is defined by two of its sources");
  }
  return gLibraries[key] = merged;
}

std::shared_ptr<const VertexClass> findLoadedVertexClass(const std::string &libraryKey, const std::string &name) {
  std::lock_guard<std::mutex> lock(gLibrariesMutex);
  const auto it = gLibraries.find(libraryKey);
  if (it == gLibraries.end()) return nullptr;
  const auto cls = it->second->vertices.find(name);
  return cls == it->second->vertices.end() ? nullptr : cls->second;
}

} // namespace poplar::detail
