#pragma once
// InstanceExchange's MPI transport for programs that set the engine options themselves
// (no Python): a process that an MPI launcher started as one of several ranks (mpiexec,
// mpirun, srun, poprun) exchanges over MPI_COMM_WORLD of the MPI library found at run time
// (dlopen; nothing about MPI at build or link time).
#include <poplar/InstanceExchange.hpp>

#include <memory>

namespace poplar::detail {

// The exchange over the launcher's MPI, made on first use: MPI is initialised then (unless
// the program did) and, when this made it, finalised at exit, or aborted for every rank
// when the process exits with a non-zero status. Null when the environment names no launch
// of several ranks (OMPI_COMM_WORLD_SIZE/RANK, PMI_SIZE/RANK). Throws poplar_error when it
// does but no MPI library can be loaded (POPDSL_MPI_LIBRARY, the libraries already loaded,
// the launcher's own lib/ directory, then the standard sonames), or the library's
// MPI_COMM_WORLD disagrees with the launcher.
std::shared_ptr<InstanceExchange> launcherInstanceExchange();

} // namespace poplar::detail
