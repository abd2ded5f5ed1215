#!/usr/bin/env python3
"""Reproduction study, part 1: NSI against MESI on the mesh-cluster workloads.

Runs every cluster workload scenario (scenarios/mesh-{lu,fft,radix,ocean,nbody}.yaml)
under mesh.coherence=mesi and =nsi with the thesis's Table 5.2 parameters, collects
execution time, network flits and energy, L1 miss rate and the fate of NSI's suspect
(SUS) lines from each run's statistics JSON, and prints a Markdown report with the
thesis's published numbers beside ours (also written to OUT/report.md).

Standard library only.  Usage: tools/reproduce_nsi.py [--npuvp PATH] [--out DIR]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

WORKLOADS = ["lu", "fft", "radix", "ocean", "nbody"]
PROTOCOLS = ["mesi", "nsi"]

# Table 5.2 of the thesis (reference: nsi-coherence.md §6.2) as npuvp parameters:
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
    ("soc.mesh.nsi.periodic_synchronisation_cycles", 100000, "every 100,000 cycles (§5.4.3.2)"),
]
# `npuvp params` lists a one-hart cluster (it overrides these itself); a cluster run
# uses the defaults, so for these the default column is the value that applies.
LISTING_OVERRIDES = {"soc.mesh.width", "soc.mesh.height", "soc.mesh.memory_controllers"}

# The thesis's published numbers (reference nsi-coherence.md §7; thesis §5.6.2).
# Only what the text gives; the figures' bars are lost.  Ratios are NSI/MESI.
THESIS = {
    "lu": {"bench": "lu", "flits": "0.181 (−81.92%, best; Fig. 5.8)",
           "miss": "NSI 0.61% / MESI 1.85% (Fig. 5.10)"},
    "ocean": {"bench": "ocean-non", "time": "−28.34% (best; Fig. 5.6)"},
    "fft": {"bench": "fft"},
    "radix": {"bench": "radix"},
    "nbody": {"bench": "water-nsquared"},
}
THESIS_AVERAGE = {
    "time": "−7.80% (Fig. 5.6; 8 of 10 faster)",
    "flits": "−31.10% (headline; −30.10% in §5.6.2; Fig. 5.8)",
    "energy": "−12.39% (Fig. 5.9; barnes −46.52% best)",
    "miss": "NSI lower on all but fmm (Fig. 5.10)",
    "sus": "never read 68.58% / current 28.07% / stale 3.35% (Fig. 5.7)",
}

L1 = "soc.cluster.memory.l1."


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
        match = re.match(r"^(\S+)\s+\S+\s+default\s+(.*?)(?:\s+\(set: (.*?)\))?(?:\s+\[.*\])?\s*$", line)
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


def run(npuvp, workload, protocol, settings, out_dir):
    scenario = f"scenarios/mesh-{workload}.yaml"
    stats_file = os.path.join(out_dir, f"{workload}-{protocol}.json")
    command = [npuvp, "run", scenario, "--set", f"mesh.coherence={protocol}", *settings,
               "--stats", stats_file, "--quiet"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {result.returncode}):\n"
                           f"{result.stdout}{result.stderr}")
    with open(stats_file) as handle:
        data = json.load(handle)
    return workload, protocol, data


def flatten(tree, prefix=""):
    flat = {}
    for key, value in tree.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def metrics(data):
    s = flatten(data["statistics"])
    def stat(name):
        if name not in s:
            sys.exit(f"reproduce_nsi: statistic {name} missing from the stats JSON")
        return s[name]
    m = {
        "time": data["npuvp"]["sim_time_seconds"],
        "instructions": data["npuvp"]["instructions"],
        "flits": stat("soc.mesh.flits"),
        "energy": stat("soc.mesh.energy.total"),
        "miss_rate": stat(L1 + "miss_rate"),
        # Counts as well as the rate: spin-loop hits swell the denominator under MESI.
        "misses": stat(L1 + "load_misses") + stat(L1 + "store_misses") + stat(L1 + "atomic_misses"),
        "accesses": sum(stat(L1 + f"{kind}_{outcome}") for kind in ("load", "store")
                        for outcome in ("hits", "misses")) + stat(L1 + "atomic_misses")
                    + s.get(L1 + "atomic_hits", 0),
        "synchronisations": stat(L1 + "synchronisations"),
    }
    for key in ("suspect_lines_created", "suspect_validated_current",
                "suspect_validated_stale", "suspect_dropped_unread"):
        m[key] = stat(L1 + key)
    # Still suspect when the program ended: neither read nor dropped yet.
    m["suspect_still_at_end"] = m["suspect_lines_created"] - (
        m["suspect_validated_current"] + m["suspect_validated_stale"] + m["suspect_dropped_unread"])
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


def report(results, param_rows, settings, workloads):
    lines = ["# NSI vs MESI on the npuvp mesh cluster (reproduction study, part 1)", ""]
    lines += ["Every cluster workload run under `mesh.coherence=mesi` and `=nsi`; ratios are NSI/MESI "
              "(below 1 = NSI better). Thesis numbers: reference `nsi-coherence.md` §7 (thesis §5.6.2); "
              "`—` where the thesis gives none (its per-benchmark bars are lost). The thesis column "
              "names the benchmark the number is for.", ""]
    lines += ["## Table 5.2 parameters", "",
              "| parameter | thesis | npuvp default | applied |", "| --- | --- | --- | --- |"]
    for name, thesis_text, ours, action in param_rows:
        lines.append(f"| `{name}` | {thesis_text} | {ours} | {action} |")
    lines += ["", "Options passed to every run besides `--set mesh.coherence=…`: "
              + (("`" + " ".join(settings) + "`") if settings else "none (every value above is our default)")
              + ". Not modelled from Table 5.2: out-of-order 4-issue cores with GShare and a 64-entry "
              "ROQ (our harts are in-order, one instruction at a time), and SimpleScalar's MIPS ISA "
              "(ours is RV64).", ""]

    lines += ["## Per workload", "",
              "| workload | metric | MESI | NSI | NSI/MESI | thesis |", "| --- | --- | --- | --- | --- | --- |"]
    ratios = {"time": [], "flits": [], "energy": [], "miss_rate": [], "misses": [], "accesses": []}
    for w in workloads:
        mesi, nsi = results[(w, "mesi")], results[(w, "nsi")]
        thesis = THESIS.get(w, {})
        bench = thesis.get("bench", w)
        def tcell(key):
            return f"{bench}: {thesis[key]}" if key in thesis else "—"
        rows = [
            ("execution time (simulated)", "time", lambda v: f"{v * 1e3:.3f} ms", tcell("time")),
            ("network flits", "flits", lambda v: f"{v:,}", tcell("flits")),
            ("network energy", "energy", lambda v: f"{v * 1e6:.1f} µJ", tcell("energy")),
            ("L1 miss rate", "miss_rate", lambda v: f"{v * 100:.2f}%", tcell("miss")),
            ("L1 misses", "misses", lambda v: f"{v:,}", "—"),
            ("L1 accesses", "accesses", lambda v: f"{v:,}", "—"),
        ]
        for label, key, fmt, tc in rows:
            ratio = nsi[key] / mesi[key] if mesi[key] else float("nan")
            ratios[key].append(ratio)
            lines.append(f"| {w} | {label} | {fmt(mesi[key])} | {fmt(nsi[key])} | {change(ratio)} | {tc} |")
    lines += ["", "## Average over the workloads (geometric mean of NSI/MESI)", "",
              "| metric | NSI/MESI (ours) | thesis average |", "| --- | --- | --- |"]
    for label, key, tkey in (("execution time", "time", "time"), ("network flits", "flits", "flits"),
                             ("network energy", "energy", "energy"), ("L1 miss rate", "miss_rate", "miss"),
                             ("L1 misses", "misses", None), ("L1 accesses", "accesses", None)):
        lines.append(f"| {label} | {change(geomean(ratios[key]))} | {THESIS_AVERAGE.get(tkey, '—')} |")

    lines += ["", "## Fate of NSI's suspect (SUS) lines", "",
              "Shares of the SUS lines created (SHD lines turned suspect by a synchronisation, "
              "`soc.cluster.memory.l1.suspect_*`). \"Never read\" = dropped unread (evicted or written "
              "before any read) + still suspect when the program ended; the thesis's \"never accessed "
              "before replacement\" is its counterpart.", "",
              "| workload | synchronisations | SUS created | never read (dropped + at end) | read, current (hit) | read, stale (miss) |",
              "| --- | --- | --- | --- | --- | --- |"]
    totals = {"created": 0, "never": 0, "current": 0, "stale": 0}
    for w in workloads:
        n = results[(w, "nsi")]
        created = n["suspect_lines_created"]
        never = n["suspect_dropped_unread"] + n["suspect_still_at_end"]
        totals["created"] += created
        totals["never"] += never
        totals["current"] += n["suspect_validated_current"]
        totals["stale"] += n["suspect_validated_stale"]
        lines.append(f"| {w} | {n['synchronisations']:,} | {created:,} | {pct(never, created)} "
                     f"({n['suspect_dropped_unread']:,} + {n['suspect_still_at_end']:,}) | "
                     f"{pct(n['suspect_validated_current'], created)} | {pct(n['suspect_validated_stale'], created)} |")
    lines.append(f"| all (pooled) | | {totals['created']:,} | {pct(totals['never'], totals['created'])} | "
                 f"{pct(totals['current'], totals['created'])} | {pct(totals['stale'], totals['created'])} |")
    lines.append("| thesis average (Fig. 5.7) | | | 68.58% | 28.07% | 3.35% |")
    lines += ["", "Not yet done: the synthetic random-program sweeps (synchronisation interval, "
              "memory footprint; Figs. 5.11, 5.12) and the PNG plots.", ""]
    return "\n".join(lines)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npuvp", default=os.path.join(root, "build", "platform", "npuvp"),
                        help="the simulator (default: build/platform/npuvp)")
    parser.add_argument("--out", default=os.path.join(root, "build", "reproduce-nsi"),
                        help="directory for the stats JSON files and report.md")
    parser.add_argument("--jobs", type=int, default=2, help="simulations run at once (default 2)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="comma-separated subset of " + ",".join(WORKLOADS))
    args = parser.parse_args()

    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit(f"reproduce_nsi: unknown workload '{w}' (known: {', '.join(WORKLOADS)})")
    if not os.access(args.npuvp, os.X_OK):
        sys.exit(f"reproduce_nsi: simulator '{args.npuvp}' not found or not executable (build first)")
    if args.jobs < 1:
        sys.exit("reproduce_nsi: --jobs must be at least 1")
    os.chdir(root)
    os.makedirs(args.out, exist_ok=True)

    param_rows, settings = check_table_5_2(args.npuvp, f"scenarios/mesh-{workloads[0]}.yaml")
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run, args.npuvp, w, p, settings, args.out)
                   for w in workloads for p in PROTOCOLS]
        for future in concurrent.futures.as_completed(futures):
            try:
                w, p, data = future.result()
            except RuntimeError as error:
                sys.exit(f"reproduce_nsi: {error}")
            results[(w, p)] = metrics(data)
            print(f"reproduce_nsi: {w} under {p}: {results[(w, p)]['time'] * 1e3:.3f} ms simulated",
                  file=sys.stderr)

    text = report(results, param_rows, settings, workloads)
    path = os.path.join(args.out, "report.md")
    with open(path, "w") as handle:
        handle.write(text)
    print(text)
    print(f"reproduce_nsi: report written to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
