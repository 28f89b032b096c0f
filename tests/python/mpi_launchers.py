"""The MPI launchers the MPI tiers run under: MPICH's mpiexec (hydra; the mpich wheel's beside
this Python first, as `pip install '.[test]'` brings it) and Open MPI's mpirun, where a system
Open MPI is installed (`apt-get install openmpi-bin`; CI has none, so its tests skip)."""
import os
import shutil
import subprocess
import sys

BESIDE_PYTHON = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
OPEN_MPI_MISSING = "no Open MPI mpirun on PATH (apt-get install openmpi-bin): Open MPI's path is tested only there"
MPICH_MISSING = "no MPICH mpiexec: pip install 'popdsl[test]' installs MPICH's"


def _version(launcher):
    try:
        return subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _find(names, path, markers):
    for name in names:
        found = shutil.which(name, path=path)
        if found is not None and any(marker in _version(found) for marker in markers):
            return found
    return None


MPICH = _find(["mpiexec", "mpiexec.hydra", "mpiexec.mpich"], BESIDE_PYTHON, ["HYDRA"])
# Open MPI's launcher names itself "Open MPI", or "OpenRTE" when started as mpirun.openmpi.
OPEN_MPI = _find(["mpirun.openmpi", "mpirun", "mpiexec"], os.environ.get("PATH", ""), ["Open MPI", "OpenRTE"])

# Open MPI refuses root without these and counts slots by cores; the tests run 2 ranks anywhere.
OPEN_MPI_ENVIRONMENT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def open_mpi_untagged(text):
    """Open MPI's --tag-output lines ("[1,R]<stdout>:line") as the lines alone."""
    return "\n".join(line.split(">:", 1)[1] if line.startswith("[1,") else line for line in text.splitlines())
