"""Runs: one npuvp process per point and repetition, keyed by a hash of everything it depends on.

A run's folder OUT/runs/<key>/ holds the scenario it ran (when patched), its statistics
(stats.json), its console (console.txt, errors.txt) and, once npuvp has exited, result.json,
written last and atomically: a run with a result.json has finished (passed or failed), any
other run has not, whatever happened to it (Ctrl-C, a lost node, a cancelled job).
"""
import hashlib
import json
import os
import re
import socket
import subprocess
import time

import yaml

from .registry import set_text
from .study import INFER_STREAMS, PATCH_PREFIX, SCENARIO_PARAMETER

RESULT_FILE = "result.json"
STATS_FILE = "stats.json"
CONSOLE_FILE = "console.txt"
ERRORS_FILE = "errors.txt"
# Stopped from outside (SIGINT: 130, docs/cli.md; SIGTERM: 143, as Slurm cancels): not a result.
INTERRUPTED = {130, 143}


def file_digest(path, digest=None):
    digest = digest or hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest


def version_digest(npuvp, firmware_dir):
    """The simulator and firmware as they are now: the npuvp binary and every firmware ELF."""
    digest = file_digest(npuvp)
    if firmware_dir and os.path.isdir(firmware_dir):
        elves = []
        for folder, subfolders, files in os.walk(firmware_dir):
            subfolders[:] = sorted(d for d in subfolders if d != "CMakeFiles")
            elves += [os.path.join(folder, name) for name in files if name.endswith(".elf")]
        for path in sorted(elves):
            digest.update(os.path.relpath(path, firmware_dir).encode())
            file_digest(path, digest)
    return digest.hexdigest()


class Run:
    """One simulation of the study: a point of the space and a repetition."""

    def __init__(self, point, part, repetition, parameters, scenario, patches, settings, infer, streams=None):
        self.point = point                  # index of the point in the expanded space
        self.part = part                    # name of the space part it comes from
        self.repetition = repetition
        self.parameters = parameters        # {name as written in the study: value}
        self.scenario = scenario            # absolute path of the base scenario (None for infer)
        self.patches = patches              # {symbol: value} for the scenario's images
        self.settings = settings            # [(parameter, text)] passed with --set
        self.infer = infer                  # {"model": path, "input": path} or None
        self.streams = streams              # infer.streams (None: the base's)
        self.key = None
        self.folder = None

    def rewrites_scenario(self):
        """Whether the run boots its own copy of the base scenario (patched, or other streams)."""
        return not self.infer and bool(self.patches or self.streams is not None)

    def streams_option(self):
        """`npuvp infer`'s --streams for this run (an infer base), or nothing."""
        return ["--streams", str(self.streams)] if self.streams is not None else []

    def scenario_text(self):
        """The scenario the run boots: the base with its images' patch entries replaced and its
        infer section's streams set."""
        with open(self.scenario) as handle:
            text = handle.read()
        if not self.rewrites_scenario():
            return text
        document = yaml.safe_load(text)
        scenario_folder = os.path.dirname(self.scenario)

        def beside_base(entry, key):
            # The patched copy lives in the run's folder: a file found beside the base stays found.
            path = entry.get(key)
            if path and not os.path.isabs(path) and os.path.exists(os.path.join(scenario_folder, path)):
                entry[key] = os.path.join(scenario_folder, path)

        if self.streams is not None:
            infer = document["infer"]
            infer["streams"] = self.streams
            for role in ("model", "input", "reference"):
                beside_base(infer, role)
        for image in document.get("images", []):
            beside_base(image, "elf")
            patch = image.get("patch") or {}
            for symbol in self.patches:
                if symbol in patch:
                    patch[symbol] = self.patches[symbol]
        return yaml.safe_dump(document, sort_keys=False)

    def assign_key(self, version, out_dir):
        inputs = {"settings": sorted(self.settings), "repetition": self.repetition, "version": version}
        if self.infer:
            inputs["infer"] = {name: file_digest(path).hexdigest() for name, path in sorted(self.infer.items())}
            if self.streams is not None:
                inputs["streams"] = self.streams
        else:
            inputs["scenario"] = self.scenario_text()
        text = json.dumps(inputs, sort_keys=True)
        self.key = hashlib.sha256(text.encode()).hexdigest()[:20]
        self.folder = os.path.join(out_dir, "runs", self.key)

    def command(self, npuvp):
        """The npuvp command line of this run (absolute paths: any node, any folder)."""
        if self.infer:
            command = [npuvp, "infer", self.infer["model"], "--input", self.infer["input"]] + self.streams_option()
        else:
            scenario = os.path.join(self.folder, "scenario.yaml") if self.rewrites_scenario() else self.scenario
            command = [npuvp, "run", scenario]
        for name, text in self.settings:
            command += ["--set", f"{name}={text}"]
        return command + ["--stats", os.path.join(self.folder, STATS_FILE), "--quiet"]

    def prepare(self):
        """Writes what the run needs into its folder (before it is handed to an engine)."""
        os.makedirs(self.folder, exist_ok=True)
        if self.rewrites_scenario():
            write_atomically(os.path.join(self.folder, "scenario.yaml"), self.scenario_text())

    def description(self, varying=None):
        """The run in words for the progress lines: its part and the parameters that vary."""
        shown = [f"{name}={value}" for name, value in self.parameters.items() if varying is None or name in varying]
        text = ", ".join(shown) or "the base"
        return f"{self.part}: {text}" if self.part else text


def build_runs(study, points, settings_of, repetitions):
    """Runs of POINTS ([(part, {parameter: value})]) for each repetition, in order."""
    runs = []
    base_settings = dict(study.base.get("set") or {})
    for index, (part, values) in enumerate(points):
        scenario = study.resolve(study.base["scenario"]) if "scenario" in study.base else None
        if SCENARIO_PARAMETER in values:
            scenario = study.resolve(str(values[SCENARIO_PARAMETER]))
        # The point's values win over the base's (and --set's).
        merged = dict(base_settings, **{k: v for k, v in values.items() if k != SCENARIO_PARAMETER})
        patches = {name[len(PATCH_PREFIX):]: value for name, value in merged.items() if name.startswith(PATCH_PREFIX)}
        streams = merged.get(INFER_STREAMS)
        settings = [(settings_of(name), set_text(value)) for name, value in merged.items()
                    if not name.startswith(PATCH_PREFIX) and name != INFER_STREAMS]
        infer = None
        if "infer" in study.base:
            infer = {"model": study.resolve(study.base["infer"]["model"]),
                     "input": study.resolve(study.base["infer"]["input"])}
        for repetition in range(repetitions):
            runs.append(Run(index, part, repetition, values, scenario, patches, settings, infer, streams))
    return runs


def write_atomically(path, text):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


def read_result(run):
    """The run's result record, or None when it has not finished."""
    try:
        with open(os.path.join(run.folder, RESULT_FILE)) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


# The verdict's run summary, "[1,000 instructions, ... s wall, ... MIPS]": host time.
RUN_SUMMARY = re.compile(r"\s*\[[^\]]*\bs wall\b[^\]]*\]\s*$")


def error_line(exit_status, stderr_text):
    """What went wrong, in one line: npuvp's last error or verdict line, without its host times
    (so the line is the same wherever the run ran)."""
    if exit_status == 0:
        return ""
    lines = [line.strip() for line in stderr_text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("npuvp:"):
            return RUN_SUMMARY.sub("", line)
    return lines[-1] if lines else f"exit status {exit_status}"


def execute(run, npuvp, attempt=1, on_start=None, stopped=None):
    """Runs one simulation to the end and writes its result record; returns the record, or None
    when the run was stopped from outside (a signal to it, or `stopped()` true afterwards)."""
    run.prepare()
    started = time.time()
    with open(os.path.join(run.folder, CONSOLE_FILE), "w") as console, \
            open(os.path.join(run.folder, ERRORS_FILE), "w+") as errors:
        process = subprocess.Popen(run.command(npuvp), stdout=console, stderr=errors, stdin=subprocess.DEVNULL,
                                   cwd=run.folder, env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
        if on_start:
            on_start(process)
        status = process.wait()
        errors.seek(0)
        stderr_text = errors.read()
    if status < 0 or status in INTERRUPTED or (stopped and stopped()):
        return None  # killed or interrupted: not a result of the model; the run stays unfinished
    record = {"key": run.key, "point": run.point, "repetition": run.repetition, "exit_status": status,
              "error": error_line(status, stderr_text), "wall_seconds": round(time.time() - started, 6),
              "started": started, "host": socket.gethostname(), "attempt": attempt}
    write_atomically(os.path.join(run.folder, RESULT_FILE), json.dumps(record, indent=1) + "\n")
    return record
