#!/usr/bin/python3
"""Snapshot every scenario's statistics and compare two snapshots bit for bit.

A refactoring must not change behaviour: run `snapshot` before and after it and
`compare` the two folders. Host-dependent fields (wall time, MIPS) are left out;
everything simulated must be identical.

    tools/scenario_stats.py snapshot --npuvp build/platform/npuvp --out /tmp/before
    tools/scenario_stats.py compare /tmp/before /tmp/after
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys

# Fields that measure the host, not the simulated machine.
HOST_DEPENDENT_SUFFIXES = ("wall_seconds", "mips", "host_seconds")


def is_host_dependent(name):
    return name.lower().endswith(HOST_DEPENDENT_SUFFIXES)


def run_scenario(npuvp, scenario, out_dir):
    stats_file = out_dir / (scenario.stem + ".json")
    result = subprocess.run([npuvp, "run", str(scenario), "--stats", str(stats_file), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return scenario.stem, result.returncode


def snapshot(args):
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    scenarios = sorted(pathlib.Path(args.scenarios).glob("*.yaml"))
    statuses = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, status in pool.map(lambda s: run_scenario(args.npuvp, s, out_dir), scenarios):
            statuses[name] = status
            print(f"{name}: exit {status}", flush=True)
    (out_dir / "exit_status.json").write_text(json.dumps(statuses, indent=1, sort_keys=True))
    return 0


def comparable(document):
    flat = {}
    for section in ("npuvp", "statistics"):
        for name, value in document.get(section, {}).items():
            if not is_host_dependent(name):
                flat[f"{section}.{name}"] = value
    return flat


def compare(args):
    before_dir, after_dir = pathlib.Path(args.before), pathlib.Path(args.after)
    differences = 0
    names = sorted({p.name for p in before_dir.glob("*.json")} | {p.name for p in after_dir.glob("*.json")})
    for name in names:
        before_file, after_file = before_dir / name, after_dir / name
        if not before_file.exists() or not after_file.exists():
            print(f"{name}: only in {'after' if before_file.exists() is False else 'before'}")
            differences += 1
            continue
        before = json.loads(before_file.read_text())
        after = json.loads(after_file.read_text())
        if name == "exit_status.json":
            before, after = {"statuses": before}, {"statuses": after}
            flat_before, flat_after = before, after
        else:
            flat_before, flat_after = comparable(before), comparable(after)
        changed = [key for key in sorted(set(flat_before) | set(flat_after))
                   if flat_before.get(key) != flat_after.get(key)]
        for key in changed[:args.show]:
            print(f"{name}: {key}: {flat_before.get(key)!r} -> {flat_after.get(key)!r}")
        if len(changed) > args.show:
            print(f"{name}: ... {len(changed) - args.show} more")
        differences += len(changed)
    print(f"{len(names)} files compared, {differences} differences")
    return 0 if differences == 0 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    snap = commands.add_parser("snapshot", help="run every scenario, keep its statistics JSON")
    snap.add_argument("--npuvp", default="build/platform/npuvp")
    snap.add_argument("--scenarios", default="scenarios")
    snap.add_argument("--out", required=True)
    snap.add_argument("--jobs", type=int, default=os.cpu_count())
    comp = commands.add_parser("compare", help="compare two snapshots (exit 1 on any difference)")
    comp.add_argument("before")
    comp.add_argument("after")
    comp.add_argument("--show", type=int, default=10, help="differences shown per file")
    args = parser.parse_args()
    return snapshot(args) if args.command == "snapshot" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
