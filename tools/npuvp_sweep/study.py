"""The study file: its structure, and its expansion into points (docs/exploration.md)."""
import os
import random

import yaml

from .errors import StudyError

TOP_LEVEL_KEYS = {"name", "description", "base", "space", "repetitions", "statistics", "console", "derived", "units", "plots"}
BASE_KEYS = {"scenario", "infer", "set"}
PART_KEYS = {"name", "grid", "zip", "random", "set"}
RANDOM_KEYS = {"samples", "seed", "parameters"}
DISTRIBUTIONS = {"uniform", "log_uniform", "integers", "choice"}
PLOT_KEYS = {
    "line": ({"x", "y"}, {"kind", "series", "where", "title", "file", "log_x", "log_y"}),
    "heatmap": ({"x", "y", "value"}, {"kind", "where", "title", "file"}),
    "pareto": ({"x", "y"}, {"kind", "where", "title", "file", "maximise", "label", "log_x", "log_y"}),
}
# The parameter that chooses the base scenario per point (a path, like base.scenario).
SCENARIO_PARAMETER = "scenario"
# Parameters that patch a symbol of the scenario's images (its `patch:` entries).
PATCH_PREFIX = "patch."
# The streams a model is compiled for: `npuvp infer --streams N` for an infer base, the
# scenario's `infer: streams:` for a scenario base with an infer section.
INFER_STREAMS = "infer.streams"
# Its values, 1 .. the compiler's kMaxStreams (sw/compiler/include/npuvp/compiler/compiler.h).
MAX_STREAMS = 15


class Study:
    """A loaded study: its file's folder resolves the relative paths in it."""

    def __init__(self, path, document):
        self.path = path
        self.folder = os.path.dirname(os.path.abspath(path))
        self.document = document
        self.name = document["name"]
        self.description = document.get("description", "")
        self.base = document["base"]
        self.repetitions = document.get("repetitions", 1)
        self.statistics = document.get("statistics", [])
        self.console_prefix = document.get("console")
        self.plots = document.get("plots", [])
        self.parts = document["space"] if isinstance(document["space"], list) else [document["space"]]

    def resolve(self, relative):
        """A path of the study file, relative to the study's folder, made absolute."""
        return relative if os.path.isabs(relative) else os.path.normpath(os.path.join(self.folder, relative))


def load(path):
    """Reads and checks the structure of a study file (not yet its parameters)."""
    try:
        with open(path) as handle:
            document = yaml.safe_load(handle)
    except OSError as error:
        raise StudyError(f"{path}: cannot read the study: {error.strerror}")
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else path
        raise StudyError(f"{where}: not valid YAML: {getattr(error, 'problem', error)}")
    if not isinstance(document, dict):
        raise StudyError(f"{path}: a study is a mapping (name, base, space, statistics, ...)")
    check_structure(path, document)
    return Study(path, document)


def check_keys(where, mapping, allowed, required=()):
    if not isinstance(mapping, dict):
        raise StudyError(f"{where}: expected a mapping")
    for key in mapping:
        if key not in allowed:
            raise StudyError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in mapping:
            raise StudyError(f"{where}: '{key}' is missing")


def check_structure(path, document):
    check_keys(path, document, TOP_LEVEL_KEYS, ("name", "base", "space"))
    if not isinstance(document["name"], str) or not document["name"].strip() or "/" in document["name"]:
        raise StudyError(f"{path}: name: a non-empty word without '/' (it names the output folder)")
    base = document["base"]
    check_keys(f"{path}: base", base, BASE_KEYS)
    if ("scenario" in base) == ("infer" in base):
        raise StudyError(f"{path}: base: exactly one of 'scenario' or 'infer'")
    if "infer" in base:
        check_keys(f"{path}: base.infer", base["infer"], {"model", "input"}, ("model", "input"))
    if "set" in base:
        check_keys(f"{path}: base.set", base["set"], set(base["set"] or {}))
    repetitions = document.get("repetitions", 1)
    if not isinstance(repetitions, int) or isinstance(repetitions, bool) or repetitions < 1:
        raise StudyError(f"{path}: repetitions: a whole number of at least 1, got {repetitions!r}")
    statistics = document.get("statistics", [])
    if not isinstance(statistics, list) or not all(isinstance(s, str) and s for s in statistics):
        raise StudyError(f"{path}: statistics: a list of names or shell patterns")
    if "console" in document and (not isinstance(document["console"], str) or not document["console"]):
        raise StudyError(f"{path}: console: the text that starts the guest's key=value summary line")
    units = document.get("units", {})
    if not isinstance(units, dict) or not all(isinstance(u, str) for u in units.values()):
        raise StudyError(f"{path}: units: a mapping of column names to units (for patch.* and console.* columns)")
    space = document["space"]
    parts = space if isinstance(space, list) else [space]
    if not parts:
        raise StudyError(f"{path}: space: empty (no parts)")
    for index, part in enumerate(parts):
        where = f"{path}: space" + (f"[{index}]" if isinstance(space, list) else "")
        check_keys(where, part, PART_KEYS)
        if not any(key in part for key in ("grid", "zip", "random", "set")):
            raise StudyError(f"{where}: empty (give a grid, zip, random or set)")
        for block in ("grid", "zip"):
            if block in part:
                check_value_lists(f"{where}.{block}", part[block])
        if "zip" in part:
            lengths = {name: len(values) for name, values in part["zip"].items()}
            if len(set(lengths.values())) > 1:
                raise StudyError(f"{where}.zip: the lists differ in length ("
                                 + ", ".join(f"{n}: {l}" for n, l in lengths.items()) + ")")
        if "random" in part:
            check_random(f"{where}.random", part["random"])
        if "set" in part:
            check_keys(f"{where}.set", part["set"], set(part["set"] or {}))
    plots = document.get("plots", [])
    if not isinstance(plots, list):
        raise StudyError(f"{path}: plots: a list")
    for index, plot in enumerate(plots):
        where = f"{path}: plots[{index}]"
        if not isinstance(plot, dict) or plot.get("kind") not in PLOT_KEYS:
            raise StudyError(f"{where}: kind: one of {', '.join(PLOT_KEYS)}")
        required, optional = PLOT_KEYS[plot["kind"]]
        check_keys(where, plot, required | optional, sorted(required))


def check_value_lists(where, block):
    if not isinstance(block, dict) or not block:
        raise StudyError(f"{where}: empty (map each parameter to a list of values)")
    for name, values in block.items():
        if not isinstance(values, list):
            raise StudyError(f"{where}.{name}: a list of values, got {values!r}")
        if not values:
            raise StudyError(f"{where}.{name}: empty list: the space has no points")


def check_random(where, block):
    check_keys(where, block, RANDOM_KEYS, ("samples", "seed", "parameters"))
    samples = block["samples"]
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise StudyError(f"{where}.samples: a whole number of at least 1 (an empty space otherwise), got {samples!r}")
    if not isinstance(block["seed"], int) or isinstance(block["seed"], bool):
        raise StudyError(f"{where}.seed: a whole number, got {block['seed']!r}")
    if not isinstance(block["parameters"], dict) or not block["parameters"]:
        raise StudyError(f"{where}.parameters: empty (map each parameter to a distribution)")
    for name, distribution in block["parameters"].items():
        at = f"{where}.parameters.{name}"
        if not isinstance(distribution, dict) or len(distribution) != 1 or next(iter(distribution)) not in DISTRIBUTIONS:
            raise StudyError(f"{at}: one of {', '.join(sorted(DISTRIBUTIONS))}, e.g. {{uniform: [1, 4]}}")
        kind, argument = next(iter(distribution.items()))
        if kind == "choice":
            if not isinstance(argument, list) or not argument:
                raise StudyError(f"{at}.choice: a non-empty list of values")
            continue
        if (not isinstance(argument, list) or len(argument) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in argument)
                or argument[0] > argument[1]):
            raise StudyError(f"{at}.{kind}: [low, high] with low <= high, got {argument!r}")
        if kind == "integers" and not all(isinstance(v, int) for v in argument):
            raise StudyError(f"{at}.integers: whole-number bounds, got {argument!r}")
        if kind == "log_uniform" and argument[0] <= 0:
            raise StudyError(f"{at}.log_uniform: bounds above 0, got {argument!r}")


def draw(generator, kind, argument):
    """One sample of a distribution (Python's Mersenne Twister: the same on every machine)."""
    if kind == "choice":
        return argument[generator.randrange(len(argument))]
    if kind == "integers":
        return generator.randint(argument[0], argument[1])
    if kind == "uniform":
        return generator.uniform(argument[0], argument[1])
    low, high = argument
    import math
    return math.exp(generator.uniform(math.log(low), math.log(high)))


def expand_part(part):
    """The part's points as {parameter: value}, in order: grid (last name fastest) x zip x random."""
    blocks = []
    if "grid" in part:
        points = [{}]
        for name, values in part["grid"].items():
            points = [dict(point, **{name: value}) for point in points for value in values]
        blocks.append(points)
    if "zip" in part:
        names = list(part["zip"])
        count = len(part["zip"][names[0]])
        blocks.append([{name: part["zip"][name][i] for name in names} for i in range(count)])
    if "random" in part:
        block = part["random"]
        generator = random.Random(block["seed"])
        blocks.append([{name: draw(generator, *next(iter(distribution.items())))
                        for name, distribution in block["parameters"].items()}
                       for _ in range(block["samples"])])
    points = [dict(part.get("set") or {})]
    for block in blocks:
        points = [dict(point, **extra) for point in points for extra in block]
    return points


def expand(study):
    """Every point of the study as (part name, {parameter: value}) in the order they run."""
    points = []
    for index, part in enumerate(study.parts):
        name = part.get("name", str(index) if len(study.parts) > 1 else "")
        for values in expand_part(part):
            points.append((str(name), values))
    return points
