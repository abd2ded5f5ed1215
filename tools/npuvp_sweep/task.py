"""One Slurm array task: `python3 -m npuvp_sweep.task MANIFEST INDEX` runs run INDEX of MANIFEST.

The manifest (written by the Slurm engine into the study's shared output folder) holds each
run's folder and npuvp command line, so a task needs nothing but a shared file system.
"""
import json
import signal
import sys

from .runs import execute, read_result


class ManifestRun:
    def __init__(self, entry):
        self.folder = entry["folder"]
        self.key = entry["key"]
        self.point = entry["point"]
        self.repetition = entry["repetition"]
        self.attempt = entry["attempt"]
        self.arguments = entry["command"]

    def prepare(self):
        pass  # the engine wrote the run's folder before submitting

    def command(self, npuvp):
        return self.arguments


def main(arguments):
    if len(arguments) != 2:
        sys.exit("usage: python3 -m npuvp_sweep.task MANIFEST INDEX")
    with open(arguments[0]) as handle:
        manifest = json.load(handle)
    run = ManifestRun(manifest["runs"][int(arguments[1])])
    if read_result(run) is not None:
        return 0  # finished by an earlier job (e.g. a resubmission raced a slow queue)
    # scancel (or a time limit) sends SIGTERM to the task and the npuvp it runs: whatever npuvp
    # then exits with, the run did not finish and must not get a result record.
    stopped = []
    child = []

    def on_terminate(signal_number, frame):
        stopped.append(signal_number)
        for process in child:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_terminate)
    record = execute(run, manifest["npuvp"], run.attempt, on_start=child.append, stopped=lambda: bool(stopped))
    if record is None:
        print(f"npuvp_sweep.task: run {run.key} was interrupted", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
