"""npuvp sweep: run an exploration study (docs/exploration.md).

`npuvp sweep STUDY.yaml ...` execs `python3 -m npuvp_sweep --npuvp <itself> ...` with this
package on PYTHONPATH; it may also be run that way directly.
"""
import argparse
import json
import os
import sys
import time

import yaml

from . import plots, study as study_format
from .derived import Derived
from .engines import LocalEngine, Progress, SlurmEngine
from .errors import (EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED, EngineError,
                     StudyError)
from .checks import check_parameters, check_plots, check_statistics, parameter_units
from .registry import ParameterRegistry
from .results import gather, write_tables
from .runs import RESULT_FILE, build_runs, read_result, version_digest


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ArgumentError(message)


def parse_arguments(arguments):
    parser = Parser(prog="npuvp sweep", description="Run an exploration study: expand its parameter space "
                    "into runs, execute them, gather one results table and draw its plots.")
    parser.add_argument("study", help="the study file (YAML; docs/exploration.md)")
    parser.add_argument("--engine", choices=["local", "slurm"], default="local",
                        help="local: a process pool on this machine (default); slurm: one job array")
    parser.add_argument("--partition", help="slurm: the partition to submit to")
    parser.add_argument("--out", help="output folder (default: sweeps/<study name>/)")
    parser.add_argument("--limit", type=int, help="run only the first N points of the space")
    parser.add_argument("--retry", type=int, default=0, help="run a failing run again up to N times")
    parser.add_argument("--jobs", type=int, help="runs at once (local: default one per core; slurm: the "
                        "array's %%N limit, default none)")
    parser.add_argument("--wait", action="store_true", help="slurm: wait for the job array, then gather")
    parser.add_argument("--collect", action="store_true",
                        help="run nothing: gather the finished runs into the table and plots")
    parser.add_argument("--dry-run", action="store_true", help="print the runs the study expands to; run nothing")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter for every run (as the study's base.set; repeatable)")
    parser.add_argument("--npuvp", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--firmware-dir", default="", help=argparse.SUPPRESS)
    options = parser.parse_args(arguments)
    for name in ("limit", "jobs"):
        if getattr(options, name) is not None and getattr(options, name) < 1:
            raise ArgumentError(f"--{name} expects a number of at least 1, got {getattr(options, name)}")
    if options.retry < 0:
        raise ArgumentError(f"--retry expects a number >= 0, got {options.retry}")
    if options.engine != "slurm" and (options.partition or options.wait):
        raise ArgumentError("--partition and --wait go with --engine slurm")
    return options


def apply_command_line_settings(study, settings):
    base_set = dict(study.base.get("set") or {})
    for setting in settings:
        name, equals, value = setting.partition("=")
        if not equals or not name:
            raise ArgumentError(f"--set expects NAME=VALUE, got '{setting}'")
        base_set[name] = yaml.safe_load(value) if value else value
    study.base["set"] = base_set


def prepare(options):
    """Loads and checks the study; returns (study, runs, statistics, units). Runs nothing."""
    study = study_format.load(options.study)
    apply_command_line_settings(study, options.set)
    points = study_format.expand(study)
    if options.limit:
        points = points[:options.limit]
    registry = ParameterRegistry(options.npuvp)
    full_names = check_parameters(study, points, registry)
    runs = build_runs(study, points, lambda name: full_names[name], study.repetitions)
    for scenario in sorted({run.scenario for run in runs if run.scenario}) or [None]:
        registry.check_values(scenario, [run.settings for run in runs if run.scenario == scenario], study.path)
    return study, points, runs, registry, full_names


def main(arguments):
    options = parse_arguments(arguments)
    npuvp = os.path.abspath(options.npuvp)
    study, points, runs, registry, full_names = prepare(options)
    out_dir = os.path.abspath(options.out or os.path.join("sweeps", study.name))
    version = version_digest(npuvp, options.firmware_dir)
    for run in runs:
        run.assign_key(version, out_dir)
    statistics, units = check_statistics(study, runs, npuvp)
    columns = {"exit_status"} | set(statistics) | {name for _, values in points for name in values}
    if len(study.parts) > 1:
        columns.add("part")
    derived = Derived(study)
    derived.check(columns, bool(study.console_prefix))
    check_plots(study, columns)
    units.update(derived.units())
    for name, unit in (study.document.get("units") or {}).items():
        units.setdefault(name, unit)  # the study's units fill in where npuvp declares none
    units.update(parameter_units(study, points, registry, full_names))

    if options.dry_run:
        for run in runs:
            print(f"{run.point}\t{run.repetition}\t{run.key}\t"
                  + json.dumps({name: value for name, value in run.parameters.items()}, sort_keys=False))
        return EXIT_OK

    os.makedirs(out_dir, exist_ok=True)
    several_parts = len(study.parts) > 1
    status = EXIT_OK
    if not options.collect:
        status = execute(options, study, runs, npuvp, out_dir)
    rows, column_names = gather(runs, statistics, study.console_prefix, several_parts, derived)
    written = plots.draw(study, rows, units, out_dir)
    write_tables(out_dir, study, rows, column_names, units, written)
    return summarise(options, study, rows, written, out_dir, status)


def summarise(options, study, rows, plots_written, out_dir, status):
    """The closing line (runs finished and failed, where the table is) and the exit status."""
    runs_by_key = {row["key"]: row for row in rows}  # a point shared by two parts is one run, two rows
    finished = [row for row in runs_by_key.values() if row["exit_status"] is not None]
    failed = [row for row in finished if row["exit_status"] != 0]
    count = len(plots_written)
    print(f"sweep: {study.name}: {len(finished)} of {len(runs_by_key)} runs finished, {len(failed)} failed; "
          f"table {os.path.join(out_dir, 'results.csv')}" + (f", {count} plot{'s' if count != 1 else ''}" if count else ""),
          file=sys.stderr)
    if status != EXIT_OK:
        return status
    if len(finished) < len(runs_by_key):
        if options.engine == "slurm" and not options.wait and not options.collect:
            return EXIT_OK  # submitted: `--collect` (or `--wait`) later
        print(f"sweep: {len(runs_by_key) - len(finished)} runs have not finished; run the same command again "
              "to resume", file=sys.stderr)
        return EXIT_RUNS_FAILED
    return EXIT_RUNS_FAILED if failed else EXIT_OK


def failed_attempts(run):
    """Earlier failed attempts of a run that was retried (their records are kept beside it)."""
    try:
        return sum(1 for name in os.listdir(run.folder) if name.startswith("result.failed-"))
    except OSError:
        return 0


def queued_keys(engine):
    """Runs in job arrays of this study that are still in Slurm's queue: not submitted again."""
    keys = set()
    for job in engine.queued_jobs():
        with open(job["manifest"]) as handle:
            keys |= {entry["key"] for entry in json.load(handle)["runs"]}
        print(f"sweep: job array {job['id']} of this study is still queued ({job['runs']} runs)", file=sys.stderr)
    return keys


def varying_parameters(runs):
    """The parameters whose value differs between runs (the progress lines show only these)."""
    values = {}
    for run in runs:
        for name, value in run.parameters.items():
            values.setdefault(name, set()).add(repr(value))
    return {name for name, seen in values.items() if len(seen) > 1}


def pending_runs(unique, in_queue, retry, progress):
    """Runs without a result, and failed runs with retries left (their record set aside)."""
    pending = []
    for key, run in unique.items():
        if key in in_queue:
            continue
        record, earlier = read_result(run), failed_attempts(run)
        if record is None:
            run.attempt = earlier + 1
            pending.append(run)
        elif record["exit_status"] != 0 and earlier < retry:
            os.replace(os.path.join(run.folder, RESULT_FILE),
                       os.path.join(run.folder, f"result.failed-{earlier + 1}.json"))
            progress.done -= 1
            progress.failed -= 1
            run.attempt = earlier + 2
            pending.append(run)
    return pending


def report_speed(ran, started):
    """How well the engine packed the runs: its wall time against the runs' own times added up."""
    records = [record for record in (read_result(run) for run in ran) if record]
    if not records:
        return
    wall = time.monotonic() - started
    total = sum(record["wall_seconds"] for record in records)
    if total:
        print(f"sweep: ran {len(records)} run{'s' if len(records) != 1 else ''} in {wall:.1f} s; their run times "
              f"add up to {total:.1f} s (wall / sum = {wall / total:.2f})", file=sys.stderr)


def execute(options, study, runs, npuvp, out_dir):
    """Runs what has not finished (and, with --retry, what failed); returns an exit status."""
    unique = {}
    for run in runs:
        unique.setdefault(run.key, run)  # two parts may share a point: it runs once
    slurm = options.engine == "slurm"
    engine = (SlurmEngine(npuvp, out_dir, options.partition, options.jobs, options.wait) if slurm
              else LocalEngine(npuvp, options.jobs))
    in_queue = queued_keys(engine) if slurm else set()
    records = {key: read_result(run) for key, run in unique.items()}
    finished = sum(1 for record in records.values() if record is not None)
    progress = Progress(len(unique), finished, varying_parameters(runs))
    progress.failed = sum(1 for record in records.values() if record and record["exit_status"] != 0)
    if finished:
        print(f"sweep: {finished} of {len(unique)} runs finished earlier (kept)", file=sys.stderr)
    started, ran = time.monotonic(), []
    try:
        if in_queue and options.wait:
            queued = [run for key, run in unique.items() if key in in_queue]
            for job in engine.queued_jobs():
                engine.wait_for(job["id"], queued, progress)
            in_queue = set()
        for _ in range(options.retry + 1):
            pending = pending_runs(unique, in_queue, options.retry, progress)
            if not pending:
                break
            ran += pending
            if not engine.run(pending, progress):
                return EXIT_OK  # submitted to Slurm: --collect (or --wait) later
    except KeyboardInterrupt:
        print("sweep: interrupted; finished runs are kept, the same command resumes", file=sys.stderr)
        return EXIT_INTERRUPTED
    report_speed(ran, started)
    return EXIT_OK


def entry(arguments):
    try:
        return main(arguments)
    except ArgumentError as error:
        print(f"npuvp sweep: error: {error}\nRun `npuvp sweep --help` for usage.", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StudyError as error:
        print(f"npuvp sweep: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EngineError as error:
        print(f"npuvp sweep: error: {error}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("sweep: interrupted; finished runs are kept, the same command resumes", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(entry(sys.argv[1:]))
