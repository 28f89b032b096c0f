#include "MpiInstanceExchange.hpp"

#include <poplar/exceptions.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace poplar::detail {

namespace {

// How long an aborting rank waits for the launcher to forward its last line.
constexpr int kAbortGraceMs = 500;

// This process's place in the launch, as the launcher's environment says.
struct MpiLaunch {
  unsigned rank = 0, size = 1;
  std::string variables; // where they came from, for errors
  bool openMpi = false;
};

MpiLaunch mpiLaunchFromEnvironment() {
  static const char *const names[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}};
  for (const auto &pair : names) {
    const char *size = std::getenv(pair[0]);
    if (!size) continue;
    const char *rank = std::getenv(pair[1]);
    MpiLaunch launch;
    launch.variables = std::string(pair[0]) + "/" + pair[1];
    launch.openMpi = &pair == &names[0];
    char *sizeEnd = nullptr, *rankEnd = nullptr;
    const unsigned long s = std::strtoul(size, &sizeEnd, 10), r = rank ? std::strtoul(rank, &rankEnd, 10) : 0;
    if (!*size || *sizeEnd || !rank || !*rank || *rankEnd || s == 0 || s > UINT_MAX || r >= s)
      throw poplar_error("poplar: the launcher's " + launch.variables + " = " + size + "/" + (rank ? rank : "(unset)") +
                         " do not name a rank of a run");
    launch.size = static_cast<unsigned>(s);
    launch.rank = static_cast<unsigned>(r);
    return launch;
  }
  return {};
}

// Directories whose ../lib may hold the launcher's libmpi: those of this process's
// ancestors (hydra_pmi_proxy, prted, mpiexec: the MPI that started it, e.g. the mpich
// wheel's in a Python environment) and that of an mpiexec on PATH.
std::vector<std::string> mpiLauncherDirectories() {
  std::vector<std::string> dirs;
  const auto add = [&dirs](const std::string &file) {
    const std::string dir = file.substr(0, file.rfind('/'));
    if (!dir.empty()) dirs.push_back(dir);
  };
  pid_t pid = getppid();
  for (int depth = 0; depth < 4 && pid > 1; ++depth) {
    const std::string proc = "/proc/" + std::to_string(pid);
    char exe[4096];
    const ssize_t n = readlink((proc + "/exe").c_str(), exe, sizeof exe);
    if (n > 0 && n < static_cast<ssize_t>(sizeof exe)) add(std::string(exe, static_cast<std::size_t>(n)));
    std::ifstream status(proc + "/status");
    pid_t parent = 0;
    for (std::string line; std::getline(status, line);)
      if (line.compare(0, 5, "PPid:") == 0) parent = static_cast<pid_t>(std::atol(line.c_str() + 5));
    pid = parent;
  }
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((dir + "/mpiexec").c_str(), X_OK) == 0) add(dir + "/mpiexec");
  return dirs;
}

struct MpiLibrary {
  void *handle = nullptr;
  std::string name;
};

// MPI_Get_library_version's text (callable before MPI_Init), or "(no MPI_Get_library_version)".
std::string mpiLibraryVersion(void *library) {
  const auto get = reinterpret_cast<int (*)(char *, int *)>(dlsym(library, "MPI_Get_library_version"));
  std::vector<char> text(8193, '\0'); // MPI_MAX_LIBRARY_VERSION_STRING: 8192 in MPICH, 256 in Open MPI
  int length = 0;
  if (!get || get(text.data(), &length) != 0) return "(no MPI_Get_library_version)";
  return std::string(text.data(), static_cast<std::size_t>(std::max(0, std::min(length, 8192))));
}

// The launcher's libmpi. MPICH's family (MPICH, Intel MPI, MVAPICH, Cray) is libmpi.so.12,
// Open MPI's libmpi.so.40, the MPI standard ABI's libmpi_abi.so.1.
MpiLibrary loadMpiLibrary(const MpiLaunch &launch) {
  const int flags = RTLD_NOW | RTLD_GLOBAL; // global: MPI's own plugins resolve against it
  if (const char *chosen = std::getenv("POPDSL_MPI_LIBRARY")) {
    if (void *h = dlopen(chosen, flags)) return {h, chosen};
    const char *why = dlerror();
    throw poplar_error(std::string("poplar: POPDSL_MPI_LIBRARY=") + chosen + " cannot be loaded: " + (why ? why : "?"));
  }
  std::vector<std::string> sonames = launch.openMpi ? std::vector<std::string>{"libmpi.so.40", "libmpi_abi.so.1"}
                                                    : std::vector<std::string>{"libmpi.so.12", "libmpi_abi.so.1"};
  for (const char *any : {"libmpi.so.12", "libmpi.so.40", "libmpi_abi.so.1", "libmpi.so"}) // the program's, mpi4py's
    if (void *h = dlopen(any, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) return {h, any};
  sonames.push_back("libmpi.so");
  std::string tried;
  // Loaded locally first: Open MPI's launcher takes only Open MPI (another MPI beside an
  // mpiexec on PATH, such as the mpich wheel's, would be a world of one rank).
  const auto load = [&](const std::string &path) -> void * {
    void *local = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!local) {
      const char *why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "?");
      return nullptr;
    }
    if (launch.openMpi) {
      const std::string version = mpiLibraryVersion(local);
      if (version.find("Open MPI") == std::string::npos) {
        tried += "\n  " + path + ": not Open MPI (" + version.substr(0, version.find_first_of("\n,")) +
                 "), but Open MPI's launcher started this process";
        dlclose(local);
        return nullptr;
      }
    }
    void *global = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    dlclose(local);
    return global;
  };
  for (const std::string &dir : mpiLauncherDirectories())
    for (const char *lib : {"/../lib/", "/../lib64/"})
      for (const std::string &soname : sonames) {
        const std::string path = dir + lib + soname;
        if (access(path.c_str(), R_OK) != 0) continue;
        if (void *h = load(path)) return {h, path};
      }
  for (const std::string &soname : sonames)
    if (void *h = load(soname)) return {h, soname};
  throw poplar_error("poplar: this process is rank " + std::to_string(launch.rank) + " of " +
                     std::to_string(launch.size) + " (" + launch.variables +
                     ") and its engine runs a slice of the replicas (target.firstRuntimeReplica/numberRuntimeReplica), "
                     "so the ranks must exchange over MPI, but no MPI library could be loaded (none beside the "
                     "launcher's processes or an mpiexec on PATH). Tried:" + tried +
                     "\nSet POPDSL_MPI_LIBRARY to the libmpi of the mpiexec that started the program.");
}

// The MPI calls the exchange makes. Handle: int in MPICH's ABI, a pointer in Open MPI's
// and the standard ABI (communicators and datatypes alike).
template <class Handle> struct MpiCalls {
  int (*Initialized)(int *);
  int (*Finalized)(int *);
  int (*Init_thread)(int *, char ***, int, int *);
  int (*Finalize)();
  int (*Comm_size)(Handle, int *);
  int (*Comm_rank)(Handle, int *);
  int (*Allgather)(const void *, int, Handle, void *, int, Handle, Handle);
  int (*Allgatherv)(const void *, int, Handle, void *, const int *, const int *, Handle, Handle);
  int (*Abort)(Handle, int);
  Handle world, byte;
  int threadMultiple;
};

template <class F> void mpiSymbol(const MpiLibrary &lib, const char *name, F &to) {
  void *found = dlsym(lib.handle, name);
  if (!found) throw poplar_error("poplar: " + lib.name + " has no " + name + ": is it an MPI library?");
  to = reinterpret_cast<F>(found);
}

class MpiWorld : public InstanceExchange {
public:
  virtual void atExit(int status) = 0;
};

MpiWorld *mpiWorldToEnd = nullptr; // the world whose MPI this library initialised

void endMpiAtExit(int status, void *) {
  if (mpiWorldToEnd) mpiWorldToEnd->atExit(status);
}

template <class Handle> class MpiWorldOf final : public MpiWorld {
public:
  MpiWorldOf(const MpiLibrary &lib, const MpiLaunch &launch, MpiCalls<Handle> calls) : name_(lib.name), mpi_(calls) {
    mpiSymbol(lib, "MPI_Initialized", mpi_.Initialized);
    mpiSymbol(lib, "MPI_Finalized", mpi_.Finalized);
    mpiSymbol(lib, "MPI_Init_thread", mpi_.Init_thread);
    mpiSymbol(lib, "MPI_Finalize", mpi_.Finalize);
    mpiSymbol(lib, "MPI_Comm_size", mpi_.Comm_size);
    mpiSymbol(lib, "MPI_Comm_rank", mpi_.Comm_rank);
    mpiSymbol(lib, "MPI_Allgather", mpi_.Allgather);
    mpiSymbol(lib, "MPI_Allgatherv", mpi_.Allgatherv);
    mpiSymbol(lib, "MPI_Abort", mpi_.Abort);
    int done = 0;
    check(mpi_.Finalized(&done), "MPI_Finalized");
    if (done) throw poplar_error("poplar: MPI was finalised already; no engine can exchange over it");
    check(mpi_.Initialized(&done), "MPI_Initialized");
    if (!done) {
      int provided = 0;
      check(mpi_.Init_thread(nullptr, nullptr, mpi_.threadMultiple, &provided), "MPI_Init_thread");
    }
    int size = 0, rank = 0;
    check(mpi_.Comm_size(mpi_.world, &size), "MPI_Comm_size");
    check(mpi_.Comm_rank(mpi_.world, &rank), "MPI_Comm_rank");
    if (static_cast<unsigned>(size) != launch.size || static_cast<unsigned>(rank) != launch.rank)
      throw poplar_error("poplar: the launcher's " + launch.variables + " say rank " + std::to_string(launch.rank) +
                         " of " + std::to_string(launch.size) + ", but MPI_COMM_WORLD of " + name_ + " has rank " +
                         std::to_string(rank) + " of " + std::to_string(size) +
                         ": it is not the launcher's MPI (set POPDSL_MPI_LIBRARY to the libmpi of the mpiexec used)");
    size_ = launch.size;
    rank_ = launch.rank;
    if (!done) { // this initialised MPI, so this ends it
      mpiWorldToEnd = this;
      on_exit(endMpiAtExit, nullptr); // glibc: unlike atexit, it is given the exit status
    }
  }

  unsigned instances() const override { return size_; }
  unsigned index() const override { return rank_; }

  // Each rank's part starts with kContribution, or kLeaving in the last exchange a rank makes
  // as it exits: a rank waiting in a collective learns that the other is gone.
  std::vector<std::string> allGather(const std::string &mine) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!gone_.empty()) throw poplar_error(gone_);
    std::vector<std::string> all = gather(kContribution + mine);
    std::string left;
    for (unsigned k = 0; k < size_; ++k)
      if (all[k].front() == kLeaving) left += (left.empty() ? "" : ", ") + std::to_string(k);
    if (!left.empty()) {
      gone_ = "poplar: instance " + std::to_string(rank_) + " waits in an exchange between instances, but instance(s) " +
              left + " of " + std::to_string(size_) +
              " ended before reaching it (the program returned or exited): every instance must run the same programs";
      throw poplar_error(gone_);
    }
    for (std::string &part : all) part.erase(0, 1);
    return all;
  }

  // Ends every rank. The pause first lets the launcher forward the line just written: an
  // abort tears its output pipes down, and under load the line was lost.
  void abortAll(int status) {
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::milliseconds(kAbortGraceMs));
    mpi_.Abort(mpi_.world, status);
  }

  // A rank that ends badly takes every rank with it: the others may wait in a collective. One
  // that ends well tells any rank still waiting in one that it is gone, then ends MPI.
  void atExit(int status) override {
    int done = 0;
    if (mpi_.Finalized(&done) != 0 || done) return;
    if (status != 0) {
      std::fprintf(stderr, "[instance %u] exiting with status %d: MPI_Abort ends every instance\n", rank_, status);
      abortAll(status);
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    if (gone_.empty()) { // else its exchanges fail already: the others know
      std::vector<std::string> all;
      try {
        all = gather(std::string(1, kLeaving));
      } catch (const poplar_error &e) {
        std::fprintf(stderr, "[instance %u] %s: MPI_Abort ends every instance\n", rank_, e.what());
        abortAll(1);
        return;
      }
      std::string waiting;
      for (unsigned k = 0; k < size_; ++k)
        if (all[k].front() != kLeaving) waiting += (waiting.empty() ? "" : ", ") + std::to_string(k);
      if (!waiting.empty()) {
        std::fprintf(stderr, "[instance %u] ended while instance(s) %s wait in an exchange: they stop with an error\n",
                     rank_, waiting.c_str());
        std::fflush(stderr);
      }
    }
    mpi_.Finalize();
  }

private:
  static constexpr char kContribution = 'c', kLeaving = 'l';

  // Sizes first (8 bytes from each rank), then the bytes.
  std::vector<std::string> gather(const std::string &mine) {
    const std::uint64_t bytes = mine.size();
    std::vector<std::uint64_t> sizes(size_);
    check(mpi_.Allgather(&bytes, sizeof bytes, mpi_.byte, sizes.data(), sizeof bytes, mpi_.byte, mpi_.world),
          "MPI_Allgather");
    std::vector<int> counts(size_), offsets(size_);
    std::uint64_t total = 0;
    for (unsigned k = 0; k < size_; ++k) {
      counts[k] = static_cast<int>(sizes[k]);
      offsets[k] = static_cast<int>(total);
      total += sizes[k];
      if (total > INT_MAX)
        throw poplar_error("poplar: one exchange between instances would carry " + std::to_string(total) +
                           " bytes or more over MPI, past MPI's int counts");
    }
    std::vector<char> all(total + 1);
    check(mpi_.Allgatherv(mine.data(), static_cast<int>(bytes), mpi_.byte, all.data(), counts.data(), offsets.data(),
                          mpi_.byte, mpi_.world),
          "MPI_Allgatherv");
    std::vector<std::string> out(size_);
    for (unsigned k = 0; k < size_; ++k) out[k].assign(all.data() + offsets[k], sizes[k]);
    return out;
  }

  void check(int code, const char *call) const {
    if (code != 0)
      throw poplar_error("poplar: " + std::string(call) + " of " + name_ + " failed with error " +
                         std::to_string(code));
  }

  std::string name_;
  MpiCalls<Handle> mpi_;
  unsigned size_ = 1, rank_ = 0;
  std::mutex mutex_;
  std::string gone_; // why no exchange can complete any more
};

// Which ABI the library speaks, with its predefined handles (values from the ABIs' mpi.h).
MpiWorld *openMpiWorld(const MpiLaunch &launch) {
  const MpiLibrary lib = loadMpiLibrary(launch);
  if (void *world = dlsym(lib.handle, "ompi_mpi_comm_world")) {
    MpiCalls<void *> calls{};
    calls.world = world;
    calls.byte = dlsym(lib.handle, "ompi_mpi_byte");
    calls.threadMultiple = 3;
    if (!calls.byte) throw poplar_error("poplar: " + lib.name + " looks like Open MPI but has no ompi_mpi_byte");
    return new MpiWorldOf<void *>(lib, launch, calls);
  }
  int major = -1, minor = -1;
  int (*abiVersion)(int *, int *) = nullptr;
  if (void *found = dlsym(lib.handle, "MPI_Abi_get_version"))
    abiVersion = reinterpret_cast<int (*)(int *, int *)>(found);
  if (abiVersion && abiVersion(&major, &minor) == 0 && major >= 1) { // the MPI-5 standard ABI
    MpiCalls<void *> calls{};
    calls.world = reinterpret_cast<void *>(std::uintptr_t{0x101});
    calls.byte = reinterpret_cast<void *>(std::uintptr_t{0x247});
    calls.threadMultiple = 4096;
    return new MpiWorldOf<void *>(lib, launch, calls);
  }
  MpiCalls<int> calls{}; // MPICH's ABI
  calls.world = 0x44000000;
  calls.byte = 0x4c00010d;
  calls.threadMultiple = 3;
  return new MpiWorldOf<int>(lib, launch, calls);
}

} // namespace

std::shared_ptr<InstanceExchange> launcherInstanceExchange() {
  static std::mutex making;
  static MpiWorld *world = nullptr; // lives as long as the process: MPI ends at exit
  const std::lock_guard<std::mutex> lock(making);
  if (!world) {
    const MpiLaunch launch = mpiLaunchFromEnvironment();
    if (launch.size < 2) return nullptr;
    world = openMpiWorld(launch);
  }
  return std::shared_ptr<InstanceExchange>(world, [](InstanceExchange *) {});
}

} // namespace poplar::detail
