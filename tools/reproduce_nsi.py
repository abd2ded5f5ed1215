#!/usr/bin/env python3
"""Reproduction study: NSI against MESI on the mesh cluster (issues 7 and 22).

Part "workloads": the thesis's workloads (docs/workloads.md) at Table 5.3's inputs
(scenarios/full/mesh-*.yaml; --size ci runs the small scenarios/mesh-*.yaml) under
mesh.coherence=mesi, nsi and msi with the thesis's Table 5.2 parameters. Part "periodic": NSI
again at other periodic-synchronisation periods (§5.7's "e.g. once every 100,000 cycles" is
our default; the study adds 0 and 1,000,000). Parts "thesis-mesi" and "literal-nsi", when
the study has them: the thesis's MESI baseline and its literal NSI validation, as options.
Per workload and geometric mean: execution time, flits, flit-hops, network energy, L1 miss
rate and the fate of NSI's suspect (SUS) lines under each baseline and validation option,
the thesis's published numbers beside ours, and for every figure that differs from the
thesis's in sign or by more than half its size the statistics that explain it. Figures are
the region of interest's (roi.* statistics) when the build writes them.

Parts "interval" and "footprint": the thesis's synthetic random programs (Figs. 5.11,
5.12) with firmware/mesh/synthetic.c (scenarios/mesh-synthetic.yaml, parameters patched
per run): the synchronisation interval swept at a fixed footprint and the footprint
swept at a fixed interval, NSI/MESI per point beside the thesis's (qualitative) claims,
and two PNG plots of the time ratio when matplotlib can be imported.

Every run goes through `npuvp sweep` (docs/exploration.md): the study is
studies/coherence-nsi-mesi-msi.yaml (its parts are this script's parts, its values the
sweeps' points, MSI included), copied to OUT/study.yaml with the chosen parts, workloads,
size, operations and seed; the sweep's runs and table go to OUT/sweep/, so a re-run resumes
where an interrupted one stopped and reuses every finished run. This script checks the
parameters against Table 5.2, checks each synthetic run's summary line against its
patched values, and writes the report.

The Markdown report is printed and written to OUT/report.md. Reading the study needs
python3-yaml; plotting imports matplotlib (Debian: python3-matplotlib) and is skipped,
with the reason in the report, when it cannot.

Usage: tools/reproduce_nsi.py [--npuvp PATH] [--out DIR] [--part workloads,periodic,interval,...]
                              [--workloads lu,fft] [--size full|ci]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

# The thesis's workloads we ship (firmware/mesh/, docs/workloads.md): the study runs
# scenarios/full/mesh-NAME.yaml (Table 5.3's inputs), --size ci the small scenarios/mesh-NAME.yaml.
# adopt_study() takes the list from the study's `workloads` part.
WORKLOADS = []
SIZES = {"full": "scenarios/full", "ci": "scenarios"}
PARTS = ["workloads", "periodic", "thesis-mesi", "literal-nsi", "interval", "footprint"]
# The parts that run the workloads (each a variant of the protocols, see VARIANTS).
WORKLOAD_PARTS = ["workloads", "periodic", "thesis-mesi", "literal-nsi"]

# The study every run of this script belongs to (the one source of its points).
STUDY = os.path.join("studies", "coherence-nsi-mesi-msi.yaml")
SYNTHETIC_SCENARIO = "scenarios/mesh-synthetic.yaml"
# The synthetic sweeps (Figs. 5.11 and 5.12; docs/reproduce-nsi.md explains the choices), set
# from the study's `interval` and `footprint` parts by adopt_study(): the intervals swept at
# a 16 KiB footprint (fits every 64 KiB L1, so misses come from sharing and synchronisation
# only), the footprints swept at one sync per 200 memory instructions (inside the range
# where the thesis says NSI wins), 65,536 memory instructions per hart (16 x 65,536 accesses
# touch ~825,000 distinct lines of the 64 MiB region: 1.6x the LLC), 30% stores, seed 1.
SYNC_INTERVALS = []
FOOTPRINTS = []
INTERVAL_SWEEP_FOOTPRINT = None
FOOTPRINT_SWEEP_INTERVAL = None
SYNTHETIC_OPERATIONS = None
STORE_PERCENT = None
SYNTHETIC_SEED = None
HARTS = 16
# Ratios within 0.5% of 1 are a tie: seeds 1, 2 and 3 give 1.001, 0.998 and 1.000 at 64 MiB.
TIE_BAND = 0.005
# The thesis's claims ([nsi] §7, docs/references.md; the bar values are lost).
THESIS_INTERVAL_CLAIM_FROM = 120
THESIS_INTERVAL_CLAIM = "NSI still beats MESI at one sync per 120 instructions (Fig. 5.11)"
THESIS_FOOTPRINT_CLAIM = ("NSI beats MESI at every footprint and the advantage grows with footprint "
                          "(Fig. 5.12)")

# Table 5.2 of the thesis ([nsi] §6.2, docs/references.md) as npuvp parameters:
# (parameter, expected value, value as the thesis writes it).  The periodic
# synchronisation period is from §5.4.3.2 / §5.7, not Table 5.2.
TABLE_5_2 = [
    ("soc.cluster.hart0.clock", 1e9, "1 GHz (every hart; hart0 checked)"),
    ("soc.mesh.clock", 1e9, "1 GHz"),
    ("soc.cluster.memory.l1.size", 65536, "64 KB"),
    ("soc.cluster.memory.l1.ways", 4, "4-way"),
    ("soc.cluster.memory.l1.latency", 3, "3 cycles"),
    ("soc.cluster.memory.llc.size", 16 * 1024 * 1024, "16 MB"),
    ("soc.cluster.memory.llc.ways", 4, "4-way"),
    ("soc.cluster.memory.llc.latency", 10, "10 cycles"),
    ("soc.cluster.memory.line_size", 32, "256 bits (32 B)"),
    ("soc.mesh.width", 4, "4x4 mesh"),
    ("soc.mesh.height", 4, "4x4 mesh"),
    ("soc.mesh.router_latency", 2, "2 cycles"),
    ("soc.mesh.link_latency", 2, "2 cycles"),
    ("soc.mesh.link_width", 128, "128 bits"),
    ("soc.mesh.router_energy", 3.77e-10, "3.77e-10 J"),
    ("soc.mesh.link_energy", 2.22e-10, "2.22e-10 J"),
    ("soc.mesh.arbitration_energy", 9.01e-13, "9.01e-13 J"),
]
# NSI's periodic synchronisation is not a Table 5.2 setting: §5.4.3.2 and §5.7 give "e.g. once
# every 100,000 cycles" as an example. The study runs NSI at our default period (the example)
# and, in its `periodic` part, at the other periods; the report shows all of them.
PERIODIC_PARAMETER = "soc.mesh.nsi.periodic_synchronisation_cycles"
# `npuvp params` lists a one-hart cluster (it overrides these itself); a cluster run
# uses the defaults, so for these the default column is the value that applies.
LISTING_OVERRIDES = {"soc.mesh.width", "soc.mesh.height", "soc.mesh.memory_controllers"}

# The thesis's published numbers ([nsi] §7, docs/references.md; thesis §5.6.2), as NSI/MESI
# ratios. Only what the text gives; the figures' bars are lost. The thesis names its benchmarks
# (Table 5.3); ours map to them by name (our lu is SPLASH-2's contiguous lu, which the thesis
# calls lu).
THESIS_BENCHMARK = {"lu": "lu", "lu-non": "lu (non-contiguous)", "ocean": "ocean-con", "ocean-non": "ocean-non"}
THESIS_NUMBERS = {  # benchmark -> metric -> (ratio, where)
    "lu": {"flits": (1 - 0.8192, "−81.92%, the best, Fig. 5.8")},
    "ocean-non": {"time": (1 - 0.2834, "−28.34%, the best, Fig. 5.6")},
}
THESIS_MISS_RATE = {"lu": (0.0061, 0.0185)}   # NSI, MESI (Fig. 5.10)
THESIS_MEAN = {  # metric -> (ratio, text)
    "time": (1 - 0.078, "−7.80% (Fig. 5.6; 8 of 10 faster)"),
    "flits": (1 - 0.311, "−31.10% (headline; −30.10% in §5.6.2; Fig. 5.8)"),
    "energy": (1 - 0.1239, "−12.39% (Fig. 5.9; barnes −46.52% best)"),
}
THESIS_SUS = (0.6858, 0.2807, 0.0335)   # never accessed / current / stale (Fig. 5.7)

L1 = "soc.cluster.memory.l1."

# The runs of the workloads, by variant: (variant, label, part, coherence, extra) where extra
# is {parameter: value} a row must have. The `workloads` part has the three protocols at
# their defaults; `periodic` NSI at other periodic-synchronisation periods; `thesis-mesi`
# and `literal-nsi` the thesis's baseline and message options (their parameters are in the
# study file, the one place that names them).
BASE_VARIANTS = [
    ("mesi", "MESI", "workloads", "mesi"),
    ("nsi", "NSI", "workloads", "nsi"),
    ("msi", "MSI", "workloads", "msi"),
    ("mesi-thesis", "thesis-style MESI", "thesis-mesi", "mesi"),
    ("nsi-literal", "NSI, literal validation", "literal-nsi", "nsi"),
]
# NSI/MESI pairs the report compares: (numerator, denominator, label).
COMPARISONS = [
    ("nsi", "mesi", "NSI / MESI"),
    ("nsi", "mesi-thesis", "NSI / thesis-style MESI"),
    ("nsi-literal", "mesi", "literal NSI / MESI"),
    ("nsi-literal", "mesi-thesis", "literal NSI / thesis-style MESI"),
    ("msi", "mesi", "MSI / MESI"),
]
# (key, label, unit formatter) of the per-workload metrics.
METRICS = [
    ("time", "execution time", lambda v: f"{v * 1e3:.3f} ms"),
    ("flits", "network flits", lambda v: f"{v:,.0f}"),
    ("flit_hops", "flit-hops", lambda v: f"{v:,.0f}"),
    ("energy", "network energy", lambda v: f"{v * 1e6:.2f} µJ"),
    ("miss_rate", "L1 miss rate", lambda v: f"{v * 100:.2f}%"),
]
# Statistics that may be missing in an older build: (metric, statistic names tried in order).
# Flit-hops: flits times the links each crossed (the mesh's link traversals).
OPTIONAL_STATISTICS = {
    "flit_hops": ["soc.mesh.flit_hops", "soc.mesh.link_traversals"],
    "energy_static": ["soc.mesh.energy.static"],
}
# Region-of-interest counting: a statistic's value over the parallel region only, when the
# build writes one (the whole run's otherwise; the report says which).
ROI_PREFIXES = ["roi."]


def parse_value(text):
    """A parameter value as npuvp prints it: 0x10000, 4, 1GHz, 9.01e-13, 1us."""
    match = re.fullmatch(r"([-+0-9.eExXa-fA-F]+)\s*([kMG]?)(Hz)?", text.strip())
    if not match:
        return text.strip()
    number, prefix = match.group(1), match.group(2)
    try:
        value = int(number, 0)
    except ValueError:
        try:
            value = float(number)
        except ValueError:
            return text.strip()
    return value * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[prefix]


def list_parameters(npuvp, scenario):
    """{name: effective value} from `npuvp params SCENARIO`."""
    result = subprocess.run([npuvp, "params", scenario], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"reproduce_nsi: '{npuvp} params {scenario}' failed:\n{result.stderr}")
    values = {}
    for line in result.stdout.splitlines():
        # NAME TYPE [{CHOICES}] default VALUE [(set: VALUE)] [[UNIT]]
        match = re.match(r"^(\S+)\s+\S+(?:\s+\{[^}]*\})?\s+default\s+(.*?)(?:\s+\(set: (.*?)\))?(?:\s+\[.*\])?\s*$",
                         line)
        if not match:
            continue
        name, default, overridden = match.group(1), match.group(2), match.group(3)
        use = default if overridden is None or name in LISTING_OVERRIDES else overridden
        values[name] = parse_value(use)
    return values


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)


def check_table_5_2(npuvp, scenario):
    """Rows (name, thesis, ours, action) and the --set options for values that differ."""
    values = list_parameters(npuvp, scenario)
    rows, settings = [], []
    for name, expected, thesis_text in TABLE_5_2:
        if name not in values:
            sys.exit(f"reproduce_nsi: parameter {name} is not listed by '{npuvp} params {scenario}'")
        ours = values[name]
        if same(ours, expected):
            rows.append((name, thesis_text, format_param(ours), "default"))
        else:
            names = [name]
            if name.startswith("soc.cluster.hart0."):  # the same for every hart
                names = [name.replace("hart0", f"hart{h}") for h in range(16)]
            for n in names:
                settings += ["--set", f"{n}={format_param(expected)}"]
            rows.append((name, thesis_text, format_param(ours), f"--set {format_param(expected)}"))
    return rows, settings


def format_param(value):
    if isinstance(value, float) and value >= 1e6:
        return f"{value / 1e9:g}GHz" if value >= 1e9 else f"{value:g}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def flatten(tree, prefix=""):
    flat = {}
    for key, value in tree.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def roi_name(s, name):
    """The region-of-interest version of statistic NAME if the stats have one, else NAME."""
    for prefix in ROI_PREFIXES:
        if prefix + name in s:
            return prefix + name
    return name


def metrics(data):
    s = flatten(data["statistics"])
    roi = any(name.startswith(tuple(ROI_PREFIXES)) for name in s)
    def stat(name):
        name = roi_name(s, name)
        if name not in s:
            sys.exit(f"reproduce_nsi: statistic {name} missing from the stats JSON")
        return s[name]
    def optional(key):
        for name in OPTIONAL_STATISTICS[key]:
            name = roi_name(s, name)
            if name in s:
                return s[name]
        return None
    # Over the region: its simulated time (roi.seconds) and the harts' instructions; ratios
    # such as the miss rate are not additive, so they are computed from the region's counts.
    hart_instructions = [value for name, value in s.items()
                         if re.fullmatch(r"roi\.soc\.cluster\.hart\d+\.instructions", name)]
    m = {
        "roi": roi,
        "time": s["roi.seconds"] if roi and "roi.seconds" in s else data["npuvp"]["sim_time_seconds"],
        "instructions": sum(hart_instructions) if roi and hart_instructions else data["npuvp"]["instructions"],
        "flits": stat("soc.mesh.flits"),
        "flit_hops": optional("flit_hops"),
        "energy": stat("soc.mesh.energy.total"),
        "energy_static": optional("energy_static"),
        "miss_rate": None if roi else stat(L1 + "miss_rate"),
        # Counts as well as the rate: spin-loop hits swell the denominator under MESI.
        "misses": stat(L1 + "load_misses") + stat(L1 + "store_misses") + stat(L1 + "atomic_misses"),
        "accesses": sum(stat(L1 + f"{kind}_{outcome}") for kind in ("load", "store")
                        for outcome in ("hits", "misses")) + stat(L1 + "atomic_misses")
                    + s.get(roi_name(s, L1 + "atomic_hits"), 0),
        "synchronisations": stat(L1 + "synchronisations"),
        "periodic_synchronisations": s.get(roi_name(s, L1 + "periodic_synchronisations"), 0),
        "evictions": s.get(roi_name(s, L1 + "evictions"), 0),
        "contention": s.get(roi_name(s, "soc.mesh.contention.mean"), None),
    }
    if m["miss_rate"] is None:
        m["miss_rate"] = m["misses"] / m["accesses"] if m["accesses"] else 0.0
    for key in ("suspect_lines_created", "suspect_validated_current",
                "suspect_validated_stale", "suspect_dropped_unread"):
        m[key] = stat(L1 + key)
    # Still suspect when the program ended: neither read nor dropped yet.
    m["suspect_still_at_end"] = m["suspect_lines_created"] - (
        m["suspect_validated_current"] + m["suspect_validated_stale"] + m["suspect_dropped_unread"])
    # Messages and flits by message type (soc.mesh.type.T.messages / .flits).
    m["types"] = {}
    for name, value in s.items():
        match = re.fullmatch(r"(?:roi\.)?soc\.mesh\.type\.(\w+)\.(messages|flits)", name)
        if match and roi_name(s, f"soc.mesh.type.{match.group(1)}.{match.group(2)}") == name:
            m["types"].setdefault(match.group(1), {})[match.group(2)] = value
    return m


def pct(part, whole):
    return f"{100.0 * part / whole:.2f}%" if whole else "—"


def change(ratio):
    return f"{ratio:.3f} ({(ratio - 1) * 100:+.2f}%)"


def geomean(values):
    product = 1.0
    for v in values:
        product *= v
    return product ** (1.0 / len(values)) if values else float("nan")


def parameter_report(param_rows, settings, parts, periodic_default):
    lines = ["# NSI vs MESI on the npuvp mesh cluster (reproduction study)", ""]
    lines += ["Ratios are NSI/MESI (below 1 = NSI better) unless a column says otherwise. Thesis numbers: "
              "[nsi] §7 (thesis §5.6.2; docs/references.md). Parts in this report: " + ", ".join(parts) + ".", ""]
    lines += ["## Table 5.2 parameters", "",
              "| parameter | thesis | npuvp default | applied |", "| --- | --- | --- | --- |"]
    for name, thesis_text, ours, action in param_rows:
        lines.append(f"| `{name}` | {thesis_text} | {ours} | {action} |")
    lines += ["", "Options passed to every run besides the variant's own (`mesh.coherence=…` and the options "
              "below): " + (("`" + " ".join(settings) + "`") if settings else "none (every value above is our default)")
              + ". Not modelled from Table 5.2: out-of-order 4-issue cores with GShare and a 64-entry "
              "ROQ (our harts are in-order, one instruction at a time), and SimpleScalar's MIPS ISA "
              "(ours is RV64).", "",
              f"NSI's periodic synchronisation is not in Table 5.2: §5.4.3.2 and §5.7 give \"e.g. once every "
              f"100,000 cycles\" as an example. NSI runs at our default, `{PERIODIC_PARAMETER}` = "
              f"{periodic_default:,} cycles, unless a table says otherwise; the `periodic` part runs it at the "
              "other periods.", ""]
    return lines


def period_text(period):
    return "no periodic synchronisation" if period == 0 else f"a periodic synchronisation every {period:,} cycles"


def ratio_of(results, workload, numerator, denominator, key):
    a, b = results.get((workload, numerator)), results.get((workload, denominator))
    if not a or not b or a.get(key) is None or b.get(key) is None or not b[key]:
        return None
    return a[key] / b[key]


def cell(ratio):
    return change(ratio) if ratio is not None else "—"


def differs(ours, thesis):
    """A figure that differs from the thesis's in sign or by more than half its size."""
    o, t = ours - 1, thesis - 1
    return (o > 0) != (t > 0) or abs(o - t) > 0.5 * abs(t)


def comparisons_present(results, workloads):
    return [(n, d, label) for n, d, label in COMPARISONS
            if all((w, n) in results and (w, d) in results for w in workloads)]


def geomean_ratio(results, workloads, numerator, denominator, key):
    ratios = [ratio_of(results, w, numerator, denominator, key) for w in workloads]
    ratios = [r for r in ratios if r is not None and r > 0]
    return geomean(ratios) if len(ratios) == len(workloads) else None


def workload_report(results, workloads, variants, periods, periodic_default, size):
    lines = ["## Cluster workloads", ""]
    roi = all(results[(w, "mesi")]["roi"] for w in workloads)
    lines += [f"Inputs: {'Table 5.3 (`scenarios/full/`)' if size == 'full' else 'the small CI inputs (`--size ci`)'}. "
              + ("Every figure is counted over the parallel region only (`roi.*` statistics)."
                 if roi else "Every figure is counted over the whole run (this build writes no `roi.*` statistics): "
                 "start-up and hart 0's sequential self-check are included."), ""]
    lines += ["| workload | thesis benchmark | input (the program's own line) |", "| --- | --- | --- |"]
    for w in workloads:
        lines.append(f"| {w} | {THESIS_BENCHMARK.get(w, w)} | `{results[(w, 'mesi')].get('console', '')}` |")
    missing = [label for key, label, *_ in variants if not any((w, key) in results for w in workloads)]
    if missing:
        lines += ["", "Not run in this report (the option does not exist in this build, or its part was not "
                  "chosen): " + ", ".join(missing) + "."]
    comparisons = comparisons_present(results, workloads)

    lines += ["", "### Geometric means over the workloads", "",
              "| comparison | " + " | ".join(label for _, label, _ in METRICS) + " |",
              "| --- |" + " --- |" * len(METRICS)]
    for n, d, label in comparisons:
        row = [cell(geomean_ratio(results, workloads, n, d, key)) for key, _, _ in METRICS]
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    for p in periods:
        row = [cell(geomean_ratio(results, workloads, f"nsi-periodic-{p}", "mesi", key)) for key, _, _ in METRICS]
        lines.append(f"| NSI with {period_text(p)} / MESI | " + " | ".join(row) + " |")
    thesis_row = [THESIS_MEAN[key][1] if key in THESIS_MEAN else "—" for key, _, _ in METRICS]
    lines.append("| **thesis** (NSI / its MESI) | " + " | ".join(thesis_row) + " |")

    for key, label, fmt in METRICS:
        lines += ["", f"### {label[0].upper() + label[1:]} per workload", "",
                  "| workload | MESI | " + " | ".join(c[2] for c in comparisons) + " | thesis |",
                  "| --- | --- |" + " --- |" * len(comparisons) + " --- |"]
        for w in workloads:
            base = results[(w, "mesi")].get(key)
            thesis = THESIS_NUMBERS.get(w, {}).get(key)
            if key == "miss_rate" and w in THESIS_MISS_RATE:
                nsi_rate, mesi_rate = THESIS_MISS_RATE[w]
                thesis_text = f"{THESIS_BENCHMARK.get(w, w)}: NSI {nsi_rate:.2%} / MESI {mesi_rate:.2%}"
            else:
                thesis_text = f"{THESIS_BENCHMARK.get(w, w)}: {change(thesis[0])} ({thesis[1]})" if thesis else "—"
            lines.append(f"| {w} | {fmt(base) if base is not None else '—'} | "
                         + " | ".join(cell(ratio_of(results, w, n, d, key)) for n, d, _ in comparisons)
                         + f" | {thesis_text} |")
        lines.append(f"| geometric mean | | " + " | ".join(
            cell(geomean_ratio(results, workloads, n, d, key)) for n, d, _ in comparisons)
            + f" | {THESIS_MEAN[key][1] if key in THESIS_MEAN else '—'} |")
    if all(results[(w, "mesi")].get("energy_static") is not None for w in workloads):
        lines += ["", "Network energy includes the static (leakage × time) part: "
                  + ", ".join(f"{w} {results[(w, 'mesi')]['energy_static'] / results[(w, 'mesi')]['energy']:.0%}"
                              for w in workloads) + " of MESI's."]

    if periods:
        lines += ["", "### The periodic synchronisation (§5.7's example period and others)", "",
                  "NSI/MESI (MESI has no periodic synchronisation) at each period; \"periodic\" is the number of "
                  "periodic self-invalidations (all L1s), \"validations\" the SUS lines read again (current + stale).", "",
                  "| workload | period (cycles) | time | flits | energy | periodic | validations |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for w in workloads:
            for p in sorted(set(periods) | {periodic_default}):
                key = "nsi" if p == periodic_default else f"nsi-periodic-{p}"
                r = results.get((w, key))
                if not r:
                    continue
                lines.append(f"| {w} | {p:,}{' (default)' if p == periodic_default else ''} | "
                             f"{cell(ratio_of(results, w, key, 'mesi', 'time'))} | "
                             f"{cell(ratio_of(results, w, key, 'mesi', 'flits'))} | "
                             f"{cell(ratio_of(results, w, key, 'mesi', 'energy'))} | "
                             f"{r['periodic_synchronisations']:,} | "
                             f"{r['suspect_validated_current'] + r['suspect_validated_stale']:,} |")

    lines += sus_report(results, workloads, periods, periodic_default)
    lines += difference_report(results, workloads, comparisons)
    return lines


def speed_report(results, workloads):
    """Simulation speed: instructions of all harts per host second, per run and aggregated."""
    runs = [r for (w, _), r in results.items() if w in workloads and r.get("host_seconds")]
    if not runs:
        return []
    # Whole runs: the host time covers start-up and the self-checks too, not only the region.
    instructions = sum(r["run_instructions"] for r in runs)
    seconds = sum(r["host_seconds"] for r in runs)
    lines = ["", "### Simulation speed", "",
             f"{len(runs)} workload runs: {instructions / 1e9:.2f} G instructions (whole runs, all harts) "
             f"in {seconds:.0f} host seconds, **{instructions / seconds / 1e6:.1f} MIPS** per run "
             "(each run's own wall time; two runs at a time on a shared machine). Per variant:", "",
             "| variant | runs | instructions | host seconds | MIPS |", "| --- | --- | --- | --- | --- |"]
    by_variant = {}
    for (w, variant), r in results.items():
        if w in workloads and r.get("host_seconds"):
            by_variant.setdefault(variant, []).append(r)
    for variant, rs in by_variant.items():
        i, t = sum(r["run_instructions"] for r in rs), sum(r["host_seconds"] for r in rs)
        lines.append(f"| {variant} | {len(rs)} | {i / 1e9:.2f} G | {t:.0f} | {i / t / 1e6:.1f} |")
    if "nsi" in by_variant and "mesi" in by_variant:
        host = {v: sum(r["host_seconds"] for r in by_variant[v]) for v in ("nsi", "mesi")}
        lines += ["", f"NSI's host time is {host['nsi'] / host['mesi']:.2f}× MESI's over the same workloads "
                      "(the goal: within 1.15×; the machine's load varies between runs)."]
    return lines + [""]


def sus_report(results, workloads, periods, periodic_default):
    lines = ["", "### Fate of NSI's suspect (SUS) lines", "",
             "Shares of the SUS lines created (SHD lines turned suspect by a synchronisation, "
             "`soc.cluster.memory.l1.suspect_*`). \"Never read\" = dropped unread (evicted or written "
             "before any read) + still suspect when the program ended; the thesis's \"never accessed "
             "before replacement\" is its counterpart. Over the region of interest \"at end\" is created "
             "minus the other fates, negative when lines made suspect before the region are read in it.", "",
             "| workload | NSI variant | synchronisations (periodic) | SUS created | never read (dropped + at end) | "
             "read, current (hit) | read, stale (miss) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    nsi_variants = [("nsi", "NSI")] + [(f"nsi-periodic-{p}", f"NSI, period {p:,}") for p in periods] + [
        ("nsi-literal", "NSI, literal validation")]
    pooled = {}
    for w in workloads:
        for key, label in nsi_variants:
            n = results.get((w, key))
            if not n:
                continue
            created = n["suspect_lines_created"]
            never = n["suspect_dropped_unread"] + n["suspect_still_at_end"]
            total = pooled.setdefault(label, {"created": 0, "never": 0, "current": 0, "stale": 0})
            total["created"] += created
            total["never"] += never
            total["current"] += n["suspect_validated_current"]
            total["stale"] += n["suspect_validated_stale"]
            lines.append(f"| {w} | {label} | {n['synchronisations']:,} ({n['periodic_synchronisations']:,}) | "
                         f"{created:,} | {pct(never, created)} "
                         f"({n['suspect_dropped_unread']:,} + {n['suspect_still_at_end']:,}) | "
                         f"{pct(n['suspect_validated_current'], created)} | {pct(n['suspect_validated_stale'], created)} |")
    for label, t in pooled.items():
        lines.append(f"| all (pooled) | {label} | | {t['created']:,} | {pct(t['never'], t['created'])} | "
                     f"{pct(t['current'], t['created'])} | {pct(t['stale'], t['created'])} |")
    never, current, stale = THESIS_SUS
    lines.append(f"| thesis average (Fig. 5.7) | | | | {never:.2%} | {current:.2%} | {stale:.2%} |")
    return lines


def type_deltas(numerator, denominator, top=4):
    """The message types that changed the flits most, numerator minus denominator, as text."""
    types = set(numerator["types"]) | set(denominator["types"])
    deltas = [(t, numerator["types"].get(t, {}).get("flits", 0) - denominator["types"].get(t, {}).get("flits", 0))
              for t in types]
    deltas = sorted((d for d in deltas if d[1]), key=lambda d: -abs(d[1]))[:top]
    return ", ".join(f"{t} {d:+,}" for t, d in deltas) or "none"


def invalidation_flits(r):
    return sum(r["types"].get(t, {}).get("flits", 0) for t in ("Invalidation", "Ack", "InvAck"))


def difference_report(results, workloads, comparisons):
    """Every figure that differs from the thesis's in sign or by more than half its size, and the
    statistics that explain it."""
    flagged = []   # (comparison, text)
    # The thesis's numbers are NSI against MESI: MSI/MESI has no counterpart.
    for n, d, label in [c for c in comparisons if c[0].startswith("nsi")]:
        for key, (thesis, thesis_text) in THESIS_MEAN.items():
            ours = geomean_ratio(results, workloads, n, d, key)
            if ours is not None and differs(ours, thesis):
                flagged.append(((n, d, label), f"{label}, geometric mean {key}: ours {change(ours)}, thesis {thesis_text}"))
        for w in workloads:
            for key, (thesis, thesis_text) in THESIS_NUMBERS.get(w, {}).items():
                ours = ratio_of(results, w, n, d, key)
                if ours is not None and differs(ours, thesis):
                    flagged.append(((n, d, label), f"{label}, {w} {key}: ours {change(ours)}, thesis {thesis_text}"))
    sus_flagged = []
    for key, label in (("nsi", "NSI"), ("nsi-literal", "literal NSI")):
        runs = [results[(w, key)] for w in workloads if (w, key) in results]
        created = sum(r["suspect_lines_created"] for r in runs)
        if not runs or not created:
            continue
        shares = (sum(r["suspect_dropped_unread"] + r["suspect_still_at_end"] for r in runs) / created,
                  sum(r["suspect_validated_current"] for r in runs) / created,
                  sum(r["suspect_validated_stale"] for r in runs) / created)
        for name, ours, thesis in zip(("never read", "read current", "read stale"), shares, THESIS_SUS):
            if abs(ours - thesis) > 0.5 * thesis:
                flagged.append(((key, "mesi", f"{label}: SUS lines"),
                                f"{label}, SUS lines {name} (pooled): ours {ours:.2%}, thesis {thesis:.2%} (Fig. 5.7)"))
                sus_flagged.append(key)
    lines = ["", "### Where we differ from the thesis, and why", ""]
    if not flagged:
        return lines + ["No figure with a thesis number differs from it in sign or by more than half its size.", ""]
    lines += ["Figures that differ from the thesis's in sign or by more than half its size:", ""]
    lines += [f"* {text}" for _, text in flagged]
    lines += ["", "The statistics behind them, per comparison: the flits each message type added (+) or saved (−), "
              "the invalidation traffic MESI pays and NSI saves (Invalidation + Ack flits, share of the "
              "baseline's flits), the validations NSI pays instead (SUS lines read again: current / stale), "
              "program synchronisations (in brackets the periodic ones, counted apart), L1 misses and executed "
              "instructions (spinning included)."]
    for key in dict.fromkeys(sus_flagged):
        lines += ["", f"**SUS lines under {key}**: a suspect line is never read when it is evicted or written "
                  "first (our reading of the thesis's 68.58% never accessed: its inputs overflow its L1s, so most of its suspect lines were evicted unread; the thesis does not break this down). "
                  "Per workload: SUS lines created, never read, and the L1 evictions of the run (all L1s).", "",
                  "| workload | SUS created | never read | read current | read stale | L1 evictions |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for w in workloads:
            r = results.get((w, key))
            if not r:
                continue
            created = r["suspect_lines_created"]
            lines.append(f"| {w} | {created:,} | {pct(r['suspect_dropped_unread'] + r['suspect_still_at_end'], created)} | "
                         f"{pct(r['suspect_validated_current'], created)} | {pct(r['suspect_validated_stale'], created)} | "
                         f"{r['evictions']:,} |")
    for comparison in dict.fromkeys(c for c, _ in flagged if "SUS" not in c[2]):
        n, d, label = comparison
        lines += ["", f"**{label}**", "",
                  "| workload | time | flits | flits by message type | baseline's Inv + Ack flits | validations "
                  "(current / stale) | syncs (periodic) | L1 misses | instructions |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for w in workloads:
            a, b = results[(w, n)], results[(w, d)]
            inv = invalidation_flits(b)
            lines.append(
                f"| {w} | {cell(ratio_of(results, w, n, d, 'time'))} | {cell(ratio_of(results, w, n, d, 'flits'))} | "
                f"{type_deltas(a, b)} | {inv:,} ({pct(inv, b['flits'])}) | "
                f"{a['suspect_validated_current']:,} / {a['suspect_validated_stale']:,} | "
                f"{a['synchronisations']:,} ({a['periodic_synchronisations']:,}) | "
                f"{cell(ratio_of(results, w, n, d, 'misses'))} | {cell(ratio_of(results, w, n, d, 'instructions'))} |")
    lines.append("")
    return lines


# ---- synthetic random programs (Figs. 5.11 and 5.12) -----------------------------------

def size_text(size):
    """256 -> '256 B', 4096 -> '4 KiB', 67108864 -> '64 MiB'."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def parse_summary(console):
    """The key=value fields of synthetic.c's summary line (lists left as text)."""
    match = re.search(r"^synthetic: (interval=.*)$", console, re.MULTILINE)
    if not match:
        return None
    return dict(token.split("=", 1) for token in match.group(1).split() if "=" in token)


def check_synthetic(summary, patch, where):
    """The program ran with the patched values and executed the whole stream."""
    problems = []
    if summary is None:
        problems.append("no 'synthetic:' summary line")
    else:
        for symbol, expected in patch.items():
            field = symbol[len("synthetic_"):]
            if summary.get(field) != str(expected):
                problems.append(f"{field}={summary.get(field)} (patched {expected})")
        operations, interval = patch["synthetic_operations"], patch["synthetic_interval"]
        if int(summary["total_loads"]) + int(summary["total_stores"]) != HARTS * operations:
            problems.append("loads + stores != harts x operations")
        if int(summary["total_syncs"]) != HARTS * (operations // interval):
            problems.append("syncs != harts x (operations / interval)")
    if problems:
        sys.exit(f"reproduce_nsi: {where}: {'; '.join(problems)}")


def synthetic_metrics(data, summary, clock_hz):
    m = metrics(data)
    s = flatten(data["statistics"])
    # Execution time = the random program's: hart 0's cycles from the start barrier to the
    # end barrier. Start-up and the summary line's printing (about 0.18 ms, the same under
    # both protocols) would otherwise dilute the ratio.
    m["time"] = int(summary["cycles"]) / clock_hz
    m["program_accesses"] = int(summary["total_loads"]) + int(summary["total_stores"])
    for key in ("misses", "evictions", "recalls"):
        name = "soc.cluster.memory.llc." + key
        if name not in s:
            sys.exit(f"reproduce_nsi: statistic {name} missing from the stats JSON")
        m["llc_" + key] = s[name]
    return m


def verdict(ratio):
    """NSI faster, slower, or a tie: within TIE_BAND of MESI."""
    if ratio < 1 - TIE_BAND:
        return "faster"
    return "slower" if ratio > 1 + TIE_BAND else "tie"


def agreement(ratio, claimed):
    """Whether a point supports the thesis's "NSI faster" (ties do not)."""
    outcome = verdict(ratio)
    if not claimed:
        return {"faster": "— (no claim; NSI faster)", "tie": "— (no claim; tie)",
                "slower": "— (no claim; NSI slower)"}[outcome]
    return {"faster": "yes", "tie": f"**no**: a tie (±{TIE_BAND:.1%})", "slower": "**no**: NSI slower"}[outcome]


def trend_text(values, ratios, label):
    """Whether NSI's advantage grows along the sweep (ratio non-increasing), in words."""
    steps = list(zip(ratios, ratios[1:]))
    falling = sum(1 for a, b in steps if b <= a)
    return (f"NSI/MESI time {ratios[0]:.3f} at {label(values[0])} → {ratios[-1]:.3f} at "
            f"{label(values[-1])}; the ratio falls (or stays) in {falling} of {len(steps)} steps")


def synthetic_table(sweep, values, results, label):
    lines = []
    header = ["point", "time MESI", "time NSI", "time NSI/MESI", "time MSI/MESI", "flits NSI/MESI", "energy NSI/MESI",
              "L1 miss rate MESI / NSI", "L1 misses per access MESI / NSI"]
    if sweep == "footprint":
        header += ["LLC misses MESI / NSI", "LLC evictions MESI / NSI"]
    header += ["thesis", "agrees"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + " --- |" * len(header))
    ratios = []
    for value in values:
        mesi, nsi = results[(sweep, value, "mesi")], results[(sweep, value, "nsi")]
        ratio = nsi["time"] / mesi["time"]
        ratios.append(ratio)
        if sweep == "interval":
            claimed = value >= THESIS_INTERVAL_CLAIM_FROM
            thesis = "NSI faster" if claimed else "— (not stated; may lose)"
        else:
            claimed = True
            thesis = "NSI faster"
        msi = results.get((sweep, value, "msi"))
        row = [label(value), f"{mesi['time'] * 1e3:.3f} ms", f"{nsi['time'] * 1e3:.3f} ms", change(ratio),
               change(msi["time"] / mesi["time"]) if msi else "—",
               change(nsi["flits"] / mesi["flits"]), change(nsi["energy"] / mesi["energy"]),
               f"{mesi['miss_rate'] * 100:.2f}% / {nsi['miss_rate'] * 100:.2f}%",
               f"{mesi['misses'] / mesi['program_accesses']:.3f} / {nsi['misses'] / nsi['program_accesses']:.3f}"]
        if sweep == "footprint":
            row += [f"{mesi['llc_misses']:,} / {nsi['llc_misses']:,}",
                    f"{mesi['llc_evictions']:,} / {nsi['llc_evictions']:,}"]
        row += [thesis, agreement(ratio, claimed)]
        lines.append("| " + " | ".join(row) + " |")
    return lines, ratios


def synthetic_report(results, parts, operations, seed, plot_note):
    lines = ["## Synthetic random programs (Figs. 5.11 and 5.12)", "",
             f"`firmware/mesh/synthetic.c` on all {HARTS} harts: each performs {operations:,} random 64-bit "
             f"loads and stores ({STORE_PERCENT}% stores, seed {seed}) in one region shared by all harts, "
             "with a `fence rw, rw` (a synchronisation) after every *interval* of them, and nothing else "
             "between them but the address arithmetic. Execution time: the random program's, from the "
             "start barrier to the end barrier (hart 0's cycles at 1 GHz). Flits, energy, miss rates and "
             "LLC counts are over the whole run (start-up and the barriers included). \"L1 misses per "
             f"access\" divides the L1 misses by the program's {HARTS * operations:,} accesses, the same "
             "for both protocols (the miss rate's denominator also counts the barriers' spinning loads). "
             "Thesis: [nsi] §7 (docs/references.md); only its qualitative claims survive.", ""]
    if "interval" in parts:
        lines += [f"### Synchronisation interval (Fig. 5.11): footprint {size_text(INTERVAL_SWEEP_FOOTPRINT)}", "",
                  f"Thesis: {THESIS_INTERVAL_CLAIM}; the wording implies NSI may lose at 60–100.", ""]
        table, ratios = synthetic_table("interval", SYNC_INTERVALS, results, lambda v: f"{v}")
        lines += table
        claimed = [r for v, r in zip(SYNC_INTERVALS, ratios) if v >= THESIS_INTERVAL_CLAIM_FROM]
        wins = sum(1 for r in claimed if verdict(r) == "faster")
        lines += ["", f"Ours: NSI faster (by more than {TIE_BAND:.1%}) at {wins} of the {len(claimed)} intervals ≥ "
                      f"{THESIS_INTERVAL_CLAIM_FROM} the claim covers "
                      f"({'agrees' if wins == len(claimed) else 'disagrees'}) and at "
                      f"{sum(1 for r in ratios if verdict(r) == 'faster')} of all {len(ratios)}; "
                      + trend_text(SYNC_INTERVALS, ratios, lambda v: f"interval {v}") + ".", ""]
    if "footprint" in parts:
        lines += [f"### Memory footprint (Fig. 5.12): one sync per {FOOTPRINT_SWEEP_INTERVAL} memory instructions", "",
                  f"Thesis: {THESIS_FOOTPRINT_CLAIM}. The LLC holds 16 MiB (524,288 lines); the L1s 64 KiB each.", ""]
        table, ratios = synthetic_table("footprint", FOOTPRINTS, results, size_text)
        lines += table
        wins = sum(1 for r in ratios if verdict(r) == "faster")
        grows = ratios[-1] < ratios[0] - TIE_BAND
        lines += ["", f"Ours: NSI faster (by more than {TIE_BAND:.1%}) at {wins} of {len(ratios)} footprints "
                      f"({'agrees' if wins == len(ratios) else 'disagrees'}); the advantage "
                      f"{'grows' if grows else 'does not grow'} from the smallest to the largest footprint "
                      f"({'agrees' if grows else 'disagrees'}): "
                      + trend_text(FOOTPRINTS, ratios, size_text) + ".", ""]
    lines += [plot_note, ""]
    return lines


def write_plots(results, parts, out_dir):
    """PNG plots of the NSI/MESI time ratio; returns a sentence for the report."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        return (f"**Plots skipped**: matplotlib cannot be imported by `{sys.executable}` ({error}). "
                "Install it (Debian: `python3-matplotlib`) and run the script with that Python; "
                "`make reproduce-nsi` does both (`PYTHON ?= /usr/bin/python3`).")
    written = []
    for sweep, values, label, xlabel, fixed in (
            ("interval", SYNC_INTERVALS, str, "memory instructions per synchronisation (log scale)",
             f"footprint {size_text(INTERVAL_SWEEP_FOOTPRINT)}"),
            ("footprint", FOOTPRINTS, size_text, "shared footprint (log scale)",
             f"one sync per {FOOTPRINT_SWEEP_INTERVAL} memory instructions")):
        if sweep not in parts:
            continue
        ratios = [results[(sweep, v, "nsi")]["time"] / results[(sweep, v, "mesi")]["time"] for v in values]
        flits = [results[(sweep, v, "nsi")]["flits"] / results[(sweep, v, "mesi")]["flits"] for v in values]
        figure, axes = plt.subplots(figsize=(8, 4.8))
        low = min(ratios + flits + [1.0]) - 0.05
        high = max(ratios + flits + [1.0]) + 0.05
        if sweep == "interval":
            axes.axvspan(THESIS_INTERVAL_CLAIM_FROM, values[-1] * 1.3, ymin=0, ymax=(1 - low) / (high - low),
                         color="tab:green", alpha=0.12, label="thesis: NSI faster (interval ≥ 120)")
        else:
            axes.axvspan(values[0] / 1.3, values[-1] * 1.3, ymin=0, ymax=(1 - low) / (high - low),
                         color="tab:green", alpha=0.12,
                         label="thesis: NSI faster at every footprint,\nadvantage grows with footprint")
            for size, name in ((64 << 10, "L1 (64 KiB)"), (16 << 20, "LLC (16 MiB)")):
                axes.axvline(size, color="grey", linestyle=":", linewidth=1)
                axes.text(size * 1.1, high - 0.02, name, color="grey", fontsize=8, va="top")
        axes.axhline(1.0, color="black", linewidth=1, label="MESI (ratio 1.0)")
        axes.plot(values, ratios, marker="o", color="tab:blue", label="execution time NSI/MESI (ours)")
        axes.plot(values, flits, marker=".", linestyle="--", color="tab:orange", alpha=0.8,
                  label="network flits NSI/MESI (ours)")
        axes.set_xscale("log")
        axes.set_xticks(values)
        axes.set_xticklabels([label(v) for v in values], rotation=45 if sweep == "footprint" else 0, fontsize=8)
        axes.minorticks_off()
        axes.set_xlim(values[0] / 1.3, values[-1] * 1.3)
        axes.set_ylim(low, high)
        axes.set_xlabel(xlabel)
        axes.set_ylabel("NSI / MESI (below 1: NSI better)")
        axes.set_title(f"Synthetic random programs, 16 harts: {fixed}")
        axes.legend(fontsize=8, loc="best")
        figure.tight_layout()
        path = os.path.join(out_dir, f"reproduce-nsi-{sweep}.png")
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)
        written.append(os.path.basename(path))
    return "Plots: " + ", ".join(f"`{name}`" for name in written) + " (in the output directory)."


def adopt_study(document):
    """Takes the synthetic sweeps' values from the study's `interval` and `footprint` parts and
    the workloads from its `workloads` part."""
    global SYNC_INTERVALS, FOOTPRINTS, INTERVAL_SWEEP_FOOTPRINT, FOOTPRINT_SWEEP_INTERVAL
    global SYNTHETIC_OPERATIONS, STORE_PERCENT, SYNTHETIC_SEED, WORKLOADS
    parts = {part["name"]: part for part in document["space"]}
    interval, footprint = parts["interval"], parts["footprint"]
    SYNC_INTERVALS = sorted(interval["grid"]["patch.synthetic_interval"])
    FOOTPRINTS = sorted(footprint["grid"]["patch.synthetic_footprint"])
    INTERVAL_SWEEP_FOOTPRINT = interval["set"]["patch.synthetic_footprint"]
    FOOTPRINT_SWEEP_INTERVAL = footprint["set"]["patch.synthetic_interval"]
    SYNTHETIC_OPERATIONS = interval["set"]["patch.synthetic_operations"]
    STORE_PERCENT = interval["set"]["patch.synthetic_store_percent"]
    SYNTHETIC_SEED = interval["set"]["patch.synthetic_seed"]
    WORKLOADS = [workload_of(path) for path in parts["workloads"]["grid"]["scenario"]]


def study_for(document, study_dir, parts, workloads, operations, seed, size):
    """The study restricted to PARTS and WORKLOADS at SIZE, with OPERATIONS and SEED, paths made
    absolute."""
    study = json.loads(json.dumps(document))
    absolute = lambda path: os.path.normpath(os.path.join(study_dir, path))
    study["base"]["scenario"] = absolute(study["base"]["scenario"])
    study["space"] = [part for part in study["space"] if part["name"] in parts]
    # A plot of a part that does not run would name columns the sweep does not have.
    study["plots"] = [plot for plot in study.get("plots", []) if plot.get("where", {}).get("part", parts[0]) in parts]
    for part in study["space"]:
        if part["name"] in WORKLOAD_PARTS:
            part["grid"]["scenario"] = [absolute(scenario_of(workload_of(path), size))
                                        for path in part["grid"]["scenario"] if workload_of(path) in workloads]
        else:
            part["set"]["patch.synthetic_operations"] = operations
            part["set"]["patch.synthetic_seed"] = seed
    return study


def workload_of(scenario_path):
    return re.fullmatch(r"mesh-([\w-]+)\.yaml", os.path.basename(scenario_path)).group(1)


def scenario_of(workload, size):
    """The scenario of WORKLOAD at SIZE, relative to the study's folder."""
    return os.path.join("..", SIZES[size], f"mesh-{workload}.yaml")


def variant_of(row):
    """The variant (BASE_VARIANTS' key, or nsi-periodic-P) a workload run belongs to."""
    if row["part"] == "periodic":
        return f"nsi-periodic-{int(float(row[PERIODIC_PARAMETER]))}"
    for key, _, part, coherence in BASE_VARIANTS:
        if row["part"] == part and row.get("soc.mesh.coherence", coherence) == coherence:
            return key
    sys.exit(f"reproduce_nsi: a run of part {row['part']} belongs to no variant: {row}")


def run_study(npuvp, study_path, sweep_dir, jobs, settings):
    """`npuvp sweep` of the study (progress on the terminal); returns the table's rows."""
    command = [npuvp, "sweep", study_path, "--out", sweep_dir, "--jobs", str(jobs)]
    for i in range(1, len(settings), 2):  # settings: ["--set", "NAME=VALUE", ...]
        command += ["--set", settings[i]]
    status = subprocess.run(command).returncode
    results = os.path.join(sweep_dir, "results.json")
    if status not in (0, 1) or not os.path.exists(results):
        sys.exit(f"reproduce_nsi: '{' '.join(command)}' failed (exit status {status})")
    with open(results) as handle:
        rows = json.load(handle)["rows"]
    failed = [row for row in rows if row["exit_status"] != 0]
    if failed:
        sys.exit("reproduce_nsi: runs failed:\n" + "\n".join(
            f"  {row['part']} point {row['point']}: {row['error']} ({os.path.join(sweep_dir, 'runs', row['key'])})"
            for row in failed))
    return rows


def collect(rows, sweep_dir, clock_hz):
    """{(workload, variant): metrics} and {(sweep, value, protocol): metrics} from the runs."""
    workload_results, synthetic_results = {}, {}
    for row in rows:
        run_dir = os.path.join(sweep_dir, "runs", row["key"])
        with open(os.path.join(run_dir, "stats.json")) as handle:
            data = json.load(handle)
        with open(os.path.join(run_dir, "console.txt")) as handle:
            console = handle.read()
        if row["part"] in WORKLOAD_PARTS:
            workload = workload_of(row["scenario"])
            m = metrics(data)
            line = re.search(rf"^{re.escape(workload)}: PASS (.*?)(?: checksum=\w+)?(?: instret=\d+)?$", console,
                             re.MULTILINE)
            m["console"] = line.group(1) if line else ""
            m["host_seconds"] = data["npuvp"].get("wall_seconds")
            m["run_instructions"] = data["npuvp"]["instructions"]  # the whole run's, as its host time
            workload_results[(workload, variant_of(row))] = m
            continue
        protocol = row["soc.mesh.coherence"]
        summary = parse_summary(console)
        patch = {name[len("patch."):]: value for name, value in row.items() if name.startswith("patch.")}
        check_synthetic(summary, patch, run_dir)
        value = patch["synthetic_interval" if row["part"] == "interval" else "synthetic_footprint"]
        synthetic_results[(row["part"], value, protocol)] = synthetic_metrics(data, summary, clock_hz)
    return workload_results, synthetic_results


def main():
    started = time.monotonic()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    import yaml  # python3-yaml (make deps): the study file
    with open(os.path.join(root, STUDY)) as handle:
        document = yaml.safe_load(handle)
    adopt_study(document)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npuvp", default=os.path.join(root, "build", "platform", "npuvp"),
                        help="the simulator (default: build/platform/npuvp)")
    parser.add_argument("--out", default=os.path.join(root, "build", "reproduce-nsi"),
                        help="directory for the study, its runs (sweep/), report.md and the plots")
    parser.add_argument("--jobs", type=int, default=2, help="simulations run at once (default 2)")
    parser.add_argument("--part", default=",".join(PARTS),
                        help="comma-separated parts to run: " + ",".join(PARTS) + " (default: all)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="comma-separated subset of " + ",".join(WORKLOADS))
    parser.add_argument("--operations", type=int, default=SYNTHETIC_OPERATIONS,
                        help=f"synthetic: memory instructions per hart (default {SYNTHETIC_OPERATIONS})")
    parser.add_argument("--seed", type=int, default=SYNTHETIC_SEED,
                        help=f"synthetic: random seed (default {SYNTHETIC_SEED})")
    parser.add_argument("--size", choices=sorted(SIZES), default="full",
                        help="workload inputs: full = Table 5.3's (scenarios/full/, the default), "
                             "ci = the tests' small ones (scenarios/)")
    args = parser.parse_args()

    parts = [p for p in PARTS if p in args.part.split(",")]
    unknown = [p for p in args.part.split(",") if p and p not in PARTS]
    if unknown or not parts:
        sys.exit(f"reproduce_nsi: unknown part(s) {', '.join(unknown) or '(none given)'} (known: {', '.join(PARTS)})")
    # The other workload parts are compared with the `workloads` part's MESI runs.
    if any(p in WORKLOAD_PARTS for p in parts) and "workloads" not in parts:
        parts.insert(0, "workloads")
    in_study = {part["name"] for part in document["space"]}
    absent = [p for p in parts if p not in in_study]
    parts = [p for p in parts if p in in_study]
    workloads = [w for w in args.workloads.split(",") if w] if "workloads" in parts else []
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit(f"reproduce_nsi: unknown workload '{w}' (known: {', '.join(WORKLOADS)})")
    if not workloads:
        parts = [p for p in parts if p not in WORKLOAD_PARTS]
    if not os.access(args.npuvp, os.X_OK):
        sys.exit(f"reproduce_nsi: simulator '{args.npuvp}' not found or not executable (build first)")
    if args.jobs < 1:
        sys.exit("reproduce_nsi: --jobs must be at least 1")
    if args.operations < 1:
        sys.exit("reproduce_nsi: --operations must be at least 1")
    npuvp = os.path.abspath(args.npuvp)
    out = os.path.abspath(args.out)
    os.chdir(root)
    os.makedirs(out, exist_ok=True)

    reference = f"scenarios/mesh-{workloads[0]}.yaml" if workloads else SYNTHETIC_SCENARIO
    param_rows, settings = check_table_5_2(npuvp, reference)
    known = list_parameters(npuvp, reference)
    periodic_default = int(known[PERIODIC_PARAMETER])
    # A part whose option this simulator does not have yet is left out (and named in the report).
    for part in document["space"]:
        if part["name"] in parts:
            unknown_options = [name for name in part.get("set", {}) if not name.startswith("patch.")
                               and name not in known]
            if unknown_options:
                parts.remove(part["name"])
                absent.append(f"{part['name']} (no {', '.join(unknown_options)})")
    periods = []
    if "periodic" in parts:
        periodic_part = next(part for part in document["space"] if part["name"] == "periodic")
        periods = sorted(int(p) for p in periodic_part["grid"][PERIODIC_PARAMETER])
    clock_hz = next(expected for name, expected, _ in TABLE_5_2 if name == "soc.cluster.hart0.clock")

    study = study_for(document, os.path.dirname(os.path.join(root, STUDY)), parts, workloads, args.operations,
                      args.seed, args.size)
    study_path = os.path.join(out, "study.yaml")
    with open(study_path, "w") as handle:
        yaml.safe_dump(study, handle, sort_keys=False)
    sweep_dir = os.path.join(out, "sweep")
    rows = run_study(npuvp, study_path, sweep_dir, args.jobs, settings)
    workload_results, synthetic_results = collect(rows, sweep_dir, clock_hz)

    lines = parameter_report(param_rows, settings, parts, periodic_default)
    if absent:
        lines += ["Parts left out of this report (not in the study, or this simulator lacks their option): " + ", ".join(absent) + ".", ""]
    if workloads:
        lines += workload_report(workload_results, workloads, BASE_VARIANTS, periods, periodic_default, args.size)
        lines += speed_report(workload_results, workloads)
    if "interval" in parts or "footprint" in parts:
        plot_note = write_plots(synthetic_results, parts, out)
        lines += synthetic_report(synthetic_results, parts, args.operations, args.seed, plot_note)
    lines += [f"The runs: `npuvp sweep` of `{STUDY}` (with the parts above), table "
              "`sweep/results.csv` in the output directory, one folder per run in `sweep/runs/`.", ""]
    text = "\n".join(lines)
    path = os.path.join(out, "report.md")
    with open(path, "w") as handle:
        handle.write(text)
    print(text)
    print(f"reproduce_nsi: report written to {path}; the study took {time.monotonic() - started:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
