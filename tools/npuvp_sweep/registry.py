"""What the simulator knows: its parameters (`npuvp params`) and the statistics a run reports.

The study is checked against these before anything runs, so a typo costs one line, not a
night of failed runs.
"""
import fnmatch
import json
import os
import re
import subprocess
import tempfile

from .errors import StudyError

# `npuvp params --markdown`: | `name` | type | `default` | unit | meaning |
MARKDOWN_ROW = re.compile(r"^\| `([^`]+)` \| (.+?) \| `(.*?)` \| (.*?) \| (.*) \|$")
# `npuvp params` lists one traffic generator, one cluster hart and the configured AI Cores;
# their siblings share the parameters of the first.
INSTANCE_FAMILIES = [(re.compile(r"^soc\.tg\d+\."), "soc.tg0."),
                     (re.compile(r"^soc\.cluster\.hart\d+\."), "soc.cluster.hart0."),
                     (re.compile(r"^soc\.aicore\d+\."), "soc.aicore0.")]
NUMBER = r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
UNIT_SCALE = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
              "B": 1, "Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9,
              "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
              "B/s": 1, "kB/s": 1e3, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
              "KiB/s": 1 << 10, "MiB/s": 1 << 20, "GiB/s": 1 << 30}
WITH_UNIT = re.compile(rf"^\s*({NUMBER})\s*([A-Za-z/]*)\s*$")
# The run summary of every stats file (docs/cli.md), with its units.
SUMMARY_UNITS = {"npuvp.sim_time_seconds": "s", "npuvp.wall_seconds": "s", "npuvp.instructions": "instructions",
                 "npuvp.exit_status": "", "npuvp.guest_exit_code": ""}
SUMMARY_FIELDS = ("sim_time_seconds", "wall_seconds", "instructions", "exit_status", "guest_exit_code")
# Statistics that measure the host, not the model: they differ between two identical runs.
HOST_STATISTICS = {"npuvp.wall_seconds"}


def numeric(value):
    """A parameter value as a number for plots and sorting: 64KiB -> 65536, 10us -> 1e-05."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    match = WITH_UNIT.match(str(value))
    if not match or match.group(2) not in UNIT_SCALE:
        return None
    number = int(match.group(1), 0) if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+|[-+]?\d+", match.group(1)) \
        else float(match.group(1))
    scale = UNIT_SCALE[match.group(2)]
    return number * scale if scale != 1 else number


class Parameter:
    def __init__(self, name, type_text, default, unit):
        self.name = name
        self.type = type_text.split(" ")[0]
        choices = re.search(r"\{(.*)\}", type_text)
        self.choices = choices.group(1).split("|") if choices else None
        self.default = default
        self.unit = "s" if self.type == "time" else unit

    def type_error(self, value):
        """Why VALUE cannot be this parameter's, or None."""
        if isinstance(value, (dict, list)) or value is None:
            return f"a {self.type} value, not {value!r}"
        if self.type == "bool":
            return None if isinstance(value, bool) or str(value) in ("true", "false") else \
                f"true or false, not {value!r}"
        if self.type == "string":
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                return f"text, not {value!r}"
            if self.choices and str(value) not in self.choices:
                return f"one of {', '.join(self.choices)}, not {value!r}"
            return None
        if isinstance(value, bool):
            return f"a {self.type} value, not {value!r}"
        number = numeric(value)
        if number is None:
            return f"a {self.type} value (a number, optionally with a unit such as 64KiB, 1GHz, 10us), not {value!r}"
        if self.type == "uint" and (number < 0 or (isinstance(number, float) and not number.is_integer())):
            return f"a whole number >= 0, not {value!r}"
        if self.type == "time" and isinstance(value, (int, float)) and value != 0:
            return f"a time with its unit (e.g. 10us), not {value!r}"
        return None


def set_text(value):
    """A value as `--set NAME=VALUE` writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


class ParameterRegistry:
    """`npuvp params` of each base scenario, asked once."""

    def __init__(self, npuvp):
        self.npuvp = npuvp
        self.listings = {}

    def listing(self, scenario, settings=()):
        cache_key = (scenario, tuple(settings))
        if cache_key not in self.listings:
            command = [self.npuvp, "params", "--markdown"] + ([scenario] if scenario else [])
            for name, value in settings:
                command += ["--set", f"{name}={value}"]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
                raise StudyError(f"{scenario or 'npuvp params'}: {last.removeprefix('npuvp: error: ')}")
            parameters = {}
            for line in result.stdout.splitlines():
                match = MARKDOWN_ROW.match(line)
                if match and match.group(1) != "parameter":
                    parameters[match.group(1)] = Parameter(match.group(1), match.group(2), match.group(3),
                                                           match.group(4).strip())
            self.listings[cache_key] = parameters
        return self.listings[cache_key]

    def find(self, scenario, name):
        """The parameter NAME (a leading "soc." may be omitted) of SCENARIO's platform, or None."""
        parameters = self.listing(scenario)
        for candidate in (name, "soc." + name):
            if candidate in parameters:
                return parameters[candidate]
            for pattern, first in INSTANCE_FAMILIES:
                if pattern.match(candidate):
                    sibling = parameters.get(pattern.sub(first, candidate))
                    if sibling:
                        return Parameter(candidate, sibling.type + (" {" + "|".join(sibling.choices) + "}"
                                                                    if sibling.choices else ""),
                                         sibling.default, sibling.unit)
        return None

    def check_values(self, scenario, settings_per_point, where):
        """Lets npuvp itself parse every distinct value: one `npuvp params` per value position."""
        distinct = {}
        for settings in settings_per_point:
            for name, text in settings:
                values = distinct.setdefault(name, [])
                if text not in values:
                    values.append(text)
        rounds = max((len(values) for values in distinct.values()), default=0)
        for index in range(rounds):
            settings = [(name, values[index]) for name, values in distinct.items() if index < len(values)]
            try:
                self.listing(scenario, settings)
            except StudyError as error:
                raise StudyError(f"{where}: {str(error).split(': ', 1)[-1]}")


def flatten(tree, prefix=""):
    """Nested statistics as dotted names; a histogram gives NAME.count, NAME.mean, ... (no buckets)."""
    flat = {}
    for key, value in tree.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, name))
        elif not isinstance(value, list):
            flat[name] = value
    return flat


def statistics_of(document):
    """{name: value} of one stats file: the run summary (npuvp.*) and every statistic."""
    values = {f"npuvp.{field}": document.get("npuvp", {}).get(field) for field in SUMMARY_FIELDS}
    values.update(flatten(document.get("statistics", {})))
    return values


def units_of(document):
    """{name: unit} of one stats file (its `units` section), with the summary's."""
    units = dict(SUMMARY_UNITS)
    for name, unit in document.get("units", {}).items():
        units[name] = unit
        for field in ("min", "max", "mean"):  # a histogram's summary (flatten) keeps its unit
            units[f"{name}.{field}"] = unit
    return units


def probe(command, where):
    """The statistic names and units a run of COMMAND reports, from a run stopped at once.

    Statistics are registered when the platform is built, so a run that stops after its first
    instruction (status 124) writes them all.
    """
    with tempfile.TemporaryDirectory(prefix="npuvp-sweep-probe-") as folder:
        stats = os.path.join(folder, "stats.json")
        full = command + ["--set", "sim.limit.instructions=1", "--stats", stats, "--quiet"]
        result = subprocess.run(full, capture_output=True, text=True, cwd=folder,
                                env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
        if not os.path.exists(stats):
            last = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            raise StudyError(f"{where}: the base does not start: {last.removeprefix('npuvp: error: ')}")
        with open(stats) as handle:
            document = json.load(handle)
    return set(statistics_of(document)), units_of(document)


def match_statistics(patterns, names):
    """The names each pattern selects, in pattern order, each name once.

    A pattern with wildcards leaves out the host's own measurements (npuvp.wall_seconds): the
    table's host.wall_seconds has it, and the other columns stay identical between two runs.
    """
    selected = []
    for pattern in patterns:
        wildcard = any(c in pattern for c in "*?[")
        for name in sorted(names):
            if wildcard and name in HOST_STATISTICS:
                continue
            if fnmatch.fnmatchcase(name, pattern) and name not in selected:
                selected.append(name)
    return selected
