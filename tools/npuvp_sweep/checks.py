"""The checks a study passes before anything runs: one line and exit status 125 otherwise.

Parameters against `npuvp params` of each point's scenario, patch entries against the
scenario's images, statistics against what a probe run of the platform reports, plot and
derived-column names against the table's columns.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import yaml

from . import study as study_format
from .engines import available_cores
from .errors import StudyError
from .registry import match_statistics, probe


def shown(path):
    """A path as short as it can be said: relative to here when below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def check_named_once_per_part(study):
    for index, part in enumerate(study.parts):
        where = f"{study.path}: space" + (f"[{index}]" if len(study.parts) > 1 else "")
        seen = {}
        for block in ("set", "grid", "zip", "random"):
            names = (part.get(block) or {}) if block != "random" else (part.get("random") or {}).get("parameters", {})
            for name in names:
                if name in seen:
                    raise StudyError(f"{where}.{block}.{name}: also in {seen[name]} (a parameter once per part)")
                seen[name] = block


def check_parameters(study, points, registry):
    """Every parameter known to its point's platform and of the right type; returns their --set names."""
    check_named_once_per_part(study)
    infer = "infer" in study.base
    base_scenario = None if infer else study.resolve(study.base["scenario"])
    base_set = study.base.get("set") or {}
    full_names, checked = {}, set()
    for part, values in points:
        scenario = base_scenario
        if study_format.SCENARIO_PARAMETER in values:
            if infer:
                raise StudyError(f"{study.path}: the parameter 'scenario' needs a scenario base, not infer")
            scenario = study.resolve(str(values[study_format.SCENARIO_PARAMETER]))
        if scenario and not os.path.isfile(scenario):
            raise StudyError(f"{study.path}: scenario '{scenario}' not found")
        space = f"{study.path}: space" + (f" part '{part}'" if part else "")
        mentions = [(f"{study.path}: base.set", name, value) for name, value in base_set.items() if name not in values]
        mentions += [(space, name, value) for name, value in values.items()]
        for where, name, value in mentions:
            if name == study_format.SCENARIO_PARAMETER or (scenario, name, repr(value)) in checked:
                continue
            checked.add((scenario, name, repr(value)))
            if name.startswith(study_format.PATCH_PREFIX):
                check_patch(where, name, value, scenario)
                continue
            if name == study_format.INFER_STREAMS:
                check_infer_streams(where, value, scenario)
                continue
            parameter = registry.find(scenario, name)
            if parameter is None:
                raise StudyError(f"{where}: unknown parameter '{name}' (`npuvp params"
                                 f"{' ' + shown(scenario) if scenario else ''}` lists them)")
            problem = parameter.type_error(value)
            if problem:
                raise StudyError(f"{where}: {name} expects {problem}")
            full_names[name] = parameter.name
    return full_names


def check_patch(where, name, value, scenario):
    """A patch.SYMBOL parameter names an entry of the scenario's images' `patch:` maps."""
    symbol = name[len(study_format.PATCH_PREFIX):]
    if scenario is None:
        raise StudyError(f"{where}: '{name}' patches a scenario's image; an infer base has none")
    with open(scenario) as handle:
        document = yaml.safe_load(handle) or {}
    entries = {}
    for image in document.get("images", []) or []:
        entries.update(image.get("patch") or {})
    if symbol not in entries:
        raise StudyError(f"{where}: unknown parameter '{name}': {shown(scenario)} has no "
                         f"'{symbol}' among its images' patch entries ({', '.join(entries) or 'none'})")
    if isinstance(entries[symbol], int) and (not isinstance(value, int) or isinstance(value, bool)):
        raise StudyError(f"{where}: {name} expects a whole number (as the scenario's {entries[symbol]}), "
                         f"not {value!r}")


def check_infer_streams(where, value, scenario):
    """infer.streams: a whole number of streams, for a base that compiles a model."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= study_format.MAX_STREAMS:
        raise StudyError(f"{where}: {study_format.INFER_STREAMS} expects a whole number of streams "
                         f"1 .. {study_format.MAX_STREAMS}, not {value!r}")
    if scenario is None:
        return
    with open(scenario) as handle:
        document = yaml.safe_load(handle) or {}
    if not isinstance(document.get("infer"), dict):
        raise StudyError(f"{where}: '{study_format.INFER_STREAMS}' needs a model: {shown(scenario)} has no "
                         "'infer' section")


def probe_commands(runs, npuvp):
    """The first and the last run of each base: their platforms' statistics are what the runs report."""
    chosen = {}
    for run in runs:
        identity = run.scenario or run.infer["model"]
        chosen.setdefault(identity, [run, run])[1] = run
    commands = []
    for first, last in chosen.values():
        for run in ([first] if first is last else [first, last]):
            if run.infer:
                command = [npuvp, "infer", run.infer["model"], "--input", run.infer["input"]] + run.streams_option()
            else:
                command = [npuvp, "run", run.scenario]
            for name, text in run.settings:
                command += ["--set", f"{name}={text}"]
            commands.append(command)
    return commands


def check_statistics(study, runs, npuvp):
    names, units = set(), {}
    with ThreadPoolExecutor(max_workers=available_cores()) as pool:
        for found, found_units in pool.map(lambda command: probe(command, study.path), probe_commands(runs, npuvp)):
            names |= found
            units.update(found_units)
    for pattern in study.statistics:
        if not match_statistics([pattern], names):
            raise StudyError(f"{study.path}: statistics: '{pattern}' matches no statistic the runs report "
                             "(see `npuvp run ... --stats FILE` for the names)")
    return match_statistics(study.statistics, names), units


def check_plots(study, columns):
    for index, plot in enumerate(study.plots):
        for role in ("x", "y", "value", "series"):
            name = plot.get(role)
            if name and name not in columns and not (study.console_prefix and name.startswith("console.")):
                raise StudyError(f"{study.path}: plots[{index}].{role}: '{name}' is neither a parameter of the "
                                 "space nor a collected statistic")
        for name in list(plot.get("where") or {}):
            if name not in columns:
                raise StudyError(f"{study.path}: plots[{index}].where: '{name}' is not a parameter of the space")


def parameter_units(study, points, registry, full_names):
    units = {}
    scenario = None if "infer" in study.base else study.resolve(study.base["scenario"])
    for _, values in points:
        for name in values:
            parameter = registry.find(scenario, name) if name in full_names else None
            if parameter and parameter.unit:
                units[name] = parameter.unit
    return units
