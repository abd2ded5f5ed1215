"""Engines run a list of unfinished runs; each writes every finished run's result.json.

An engine has one job: `run(runs)` executes them (or hands them to a scheduler) and returns
when they have finished, or at once for a scheduler the user will collect from later. The
results are read back from the runs' folders by the caller, whichever engine ran them, so
another engine (a cloud batch service, ssh to a few hosts) needs only this method.
"""
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from .errors import EngineError
from .runs import execute, read_result, write_atomically


def available_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class Progress:
    """Counts and an ETA on standard error: a line per finished run (or, for a scheduler, whenever
    results appear). The ETA is the time so far per run finished in this invocation, times the
    runs left: it includes waiting for cores and the scheduler, which a run's own time does not."""

    def __init__(self, total, skipped, varying=None):
        self.varying = varying  # the parameters that differ between runs: the only ones shown
        self.total = total
        self.done = skipped
        self.failed = 0
        self.skipped = skipped
        self.started = time.monotonic()
        self.lock = threading.Lock()

    def eta(self):
        remaining, new = self.total - self.done, self.done - self.skipped
        if not remaining:
            return "0s"
        if new <= 0:
            return "?"
        seconds = (time.monotonic() - self.started) / new * remaining
        if seconds < 10:
            return f"{seconds:.1f}s"
        return f"{seconds:.0f}s" if seconds < 120 else f"{seconds / 60:.1f} min"

    def finished(self, run, record):
        with self.lock:
            self.done += 1
            if record["exit_status"] != 0:
                self.failed += 1
            outcome = "ok" if record["exit_status"] == 0 else f"FAILED ({record['error'] or record['exit_status']})"
            print(f"sweep: [{self.done}/{self.total}] {run.description(self.varying)}: {outcome}; "
                  f"{self.failed} failed, ETA {self.eta()}", file=sys.stderr, flush=True)

    def count(self, done, failed):
        """For engines that only see result files appear (Slurm)."""
        with self.lock:
            if done != self.done:
                self.done, self.failed = done, failed
                print(f"sweep: [{done}/{self.total}] finished, {failed} failed, ETA {self.eta()}",
                      file=sys.stderr, flush=True)


class LocalEngine:
    """A process pool on this machine: JOBS npuvp processes at a time (default: one per core)."""

    name = "local"

    def __init__(self, npuvp, jobs=None):
        self.npuvp = npuvp
        self.jobs = jobs or available_cores()
        self.processes = set()
        self.lock = threading.Lock()
        self.stopping = False

    def run(self, runs, progress):
        def one(run):
            if self.stopping:
                return
            record = execute(run, self.npuvp, run.attempt, on_start=self.track, stopped=lambda: self.stopping)
            if record is not None:
                progress.finished(run, record)

        pool = ThreadPoolExecutor(max_workers=self.jobs)
        futures = [pool.submit(one, run) for run in runs]
        try:
            for future in futures:
                while not future.done():
                    time.sleep(0.05)  # lets Ctrl-C in: a blocking result() would not
                future.result()
        except KeyboardInterrupt:
            self.stopping = True
            for future in futures:
                future.cancel()
            with self.lock:
                for process in self.processes:
                    if process.poll() is None:
                        process.send_signal(signal.SIGINT)
            pool.shutdown(wait=True)
            raise
        pool.shutdown(wait=True)
        return True

    def track(self, process):
        with self.lock:
            self.processes = {p for p in self.processes if p.poll() is None} | {process}


def slurm_command(command):
    """A Slurm client command; a missing client is an engine error, not a traceback."""
    try:
        return subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise EngineError(f"'{command[0]}' not found: --engine slurm runs on a Slurm submit host "
                          "(Debian: slurm-client)")


class SlurmEngine:
    """One Slurm job array per submission: task i runs run i of a manifest in the shared OUT folder.

    Every node must see OUT, the study's files and the npuvp build at the same paths (a shared
    file system), as every task runs `python3 -m npuvp_sweep.task MANIFEST` there.
    """

    name = "slurm"

    def __init__(self, npuvp, out_dir, partition=None, jobs=None, wait=False, python=sys.executable):
        self.npuvp = npuvp
        self.out_dir = out_dir
        self.partition = partition
        self.jobs = jobs
        self.wait = wait
        self.python = python
        self.folder = os.path.join(out_dir, "slurm")
        self.job_id = None

    def queued_jobs(self):
        """Job arrays of this study still in Slurm's queue (from earlier submissions)."""
        path = os.path.join(self.folder, "jobs.json")
        try:
            with open(path) as handle:
                jobs = json.load(handle)
        except (OSError, ValueError):
            return []
        return [job for job in jobs if self.in_queue(job["id"])]

    @staticmethod
    def in_queue(job_id):
        """Whether the job (array) is pending or running; a job Slurm has forgotten is not."""
        result = slurm_command(["squeue", "-h", "-j", str(job_id), "-o", "%i"])
        if result.returncode != 0:
            if "Invalid job id" in result.stderr:
                return False
            last = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            raise EngineError(f"squeue cannot reach Slurm: {last}")
        return bool(result.stdout.strip())

    def submit(self, runs):
        os.makedirs(os.path.join(self.folder, "logs"), exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
        manifest = os.path.join(self.folder, f"manifest-{stamp}.json")
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        write_atomically(manifest, json.dumps({
            "npuvp": self.npuvp, "submitted": time.time(),
            "runs": [{"folder": run.folder, "key": run.key, "point": run.point, "repetition": run.repetition, "attempt": run.attempt,
                      "command": run.command(self.npuvp)} for run in runs]}, indent=1))
        script = os.path.join(self.folder, f"task-{stamp}.sh")
        write_atomically(script, "#!/bin/sh\n# One run of the study per array task (npuvp sweep, docs/exploration.md).\n"
                         f"PYTHONPATH={shlex.quote(package_root)} exec {shlex.quote(self.python)} "
                         f"-m npuvp_sweep.task {shlex.quote(manifest)} \"$SLURM_ARRAY_TASK_ID\"\n")
        array = f"0-{len(runs) - 1}" + (f"%{self.jobs}" if self.jobs else "")
        command = ["sbatch", "--parsable", f"--array={array}", "--job-name=npuvp-sweep",
                   "--ntasks=1", "--cpus-per-task=1", f"--chdir={self.folder}",
                   f"--output={os.path.join(self.folder, 'logs', '%A_%a.out')}"]
        if self.partition:
            command.append(f"--partition={self.partition}")
        result = slurm_command(command + [script])
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            raise EngineError(f"sbatch refused the job array: {last}")
        self.job_id = result.stdout.strip().split(";")[0]
        jobs_path = os.path.join(self.folder, "jobs.json")
        try:
            with open(jobs_path) as handle:
                jobs = json.load(handle)
        except (OSError, ValueError):
            jobs = []
        jobs.append({"id": self.job_id, "manifest": manifest, "runs": len(runs), "submitted": time.time()})
        write_atomically(jobs_path, json.dumps(jobs, indent=1))
        print(f"sweep: submitted Slurm job array {self.job_id} ({len(runs)} runs"
              + (f", at most {self.jobs} at once" if self.jobs else "") + ")", file=sys.stderr, flush=True)
        return self.job_id

    def run(self, runs, progress):
        for run in runs:
            run.prepare()
        self.submit(runs)
        if not self.wait:
            print("sweep: the array runs on; gather its results later with the same command and --collect "
                  "(or --wait)", file=sys.stderr)
            return False
        self.wait_for(self.job_id, runs, progress)
        return True

    def wait_for(self, job_id, runs, progress):
        """Until the array has left the queue, counting result files as they appear."""
        base_done, base_failed = progress.done, progress.failed
        while True:
            queued = self.in_queue(job_id)
            records = [read_result(run) for run in runs]
            finished = [r for r in records if r is not None]
            progress.count(base_done + len(finished),
                           base_failed + sum(1 for r in finished if r["exit_status"] != 0))
            if not queued:
                return
            time.sleep(1)
