"""Progress of long work: the engine-building bar (a Poplar progress function) and
reports from runs that last longer than LONG_RUN_SECONDS."""
import logging
import sys
import threading
import time

log = logging.getLogger("popdsl")

LONG_RUN_SECONDS = 2.0  # runs longer than this report progress while they run
PROGRESS_INTERVAL_SECONDS = {True: 1.0, False: 10.0}  # terminal bar, log lines
PROGRESS_POLL_SECONDS = 0.25  # how often the watcher looks at the runs going on


def engine_progress(what):
    """A Poplar progress function: a bar on stderr when it is a terminal, else log lines."""
    def report(done, total):
        if sys.stderr.isatty():
            filled = int(30 * done / max(total, 1))
            sys.stderr.write(f"\r{what}: [{'#' * filled}{' ' * (30 - filled)}] {done}/{total}")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        else:
            log.debug("%s: %d/%d", what, done, total)
    return report


class RunProgress:
    """While a run lasts longer than LONG_RUN_SECONDS, reports how long it has run (and,
    after a first run of the program, a bar against that run's time): on stderr when it
    is a terminal, else in log lines. The engine releases the GIL while it runs, so one
    watcher thread, shared by all runs and started once, can report; a run only
    registers itself, which keeps short runs cheap."""

    _active = {}  # id -> the runs going on now
    _lock = threading.Lock()  # a run does not end while the watcher reports it
    _watcher = None

    def __init__(self, what: str, expected_seconds):
        self.what, self.expected = what, expected_seconds
        self.terminal = sys.stderr.isatty()
        self.next_report = LONG_RUN_SECONDS  # seconds into the run
        self.reported = False
        self.width = 0  # of the line last written on the terminal, which the next one overwrites

    def __enter__(self):
        self.start = time.perf_counter()
        RunProgress._active[id(self)] = self
        if RunProgress._watcher is None:
            RunProgress._watcher = threading.Thread(target=RunProgress._watch, daemon=True)
            RunProgress._watcher.start()
        return self

    def __exit__(self, *exc):
        with RunProgress._lock:
            del RunProgress._active[id(self)]
        if self.reported and self.terminal:  # a final update, then a newline: the next output starts clean
            self._write(f"{self.what}: done in {time.perf_counter() - self.start:.1f} s")
            sys.stderr.write("\n")
            sys.stderr.flush()
        return False

    @staticmethod
    def _watch():
        while True:
            time.sleep(PROGRESS_POLL_SECONDS)
            with RunProgress._lock:
                for run in list(RunProgress._active.values()):
                    elapsed = time.perf_counter() - run.start
                    if elapsed >= run.next_report:
                        run._report(elapsed)
                        run.next_report = elapsed + PROGRESS_INTERVAL_SECONDS[run.terminal]

    def _report(self, elapsed):
        self.reported = True
        if not self.terminal:
            log.info("%s: still running after %.1f s", self.what, elapsed)
            return
        bar = ""
        if self.expected:
            filled = min(30, int(30 * elapsed / self.expected))
            bar = f" [{'#' * filled}{' ' * (30 - filled)}] of the last run's {self.expected:.1f} s"
        self._write(f"{self.what}: {elapsed:.0f} s{bar}")
        sys.stderr.flush()

    def _write(self, line: str):
        """Overwrites the terminal line with `line`, blanking what is left of a longer one."""
        sys.stderr.write("\r" + line.ljust(self.width))
        self.width = len(line)
