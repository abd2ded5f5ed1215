"""The results table: one row per run, whichever engine ran it (results.csv and results.json)."""
import csv
import io
import json
import os
import re

from .registry import statistics_of
from .runs import CONSOLE_FILE, STATS_FILE, read_result, write_atomically

# Columns that describe the host, not the model: they differ between two runs of the same
# point (and between engines); everything else is the same bit for bit.
HOST_COLUMNS = ["host.wall_seconds", "host.name", "host.attempt"]


def console_fields(run, prefix):
    """key=value fields of the first console line that starts with PREFIX, as console.<key>."""
    try:
        with open(os.path.join(run.folder, CONSOLE_FILE), errors="replace") as handle:
            for line in handle:
                if line.startswith(prefix):
                    return {f"console.{key}": parse_number(value)
                            for key, value in re.findall(r"(\w[\w.]*)=(\S+)", line[len(prefix):])}
    except OSError:
        pass
    return {}


def parse_number(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def row_of(run, statistics, console_prefix, several_parts):
    row = {}
    if several_parts:
        row["part"] = run.part
    row.update({"point": run.point, "repetition": run.repetition, "key": run.key})
    row.update(run.parameters)
    record = read_result(run)
    row["exit_status"] = record["exit_status"] if record else None
    row["error"] = record["error"] if record else "not finished"
    values = {}
    if record:
        try:
            with open(os.path.join(run.folder, STATS_FILE)) as handle:
                values = statistics_of(json.load(handle))
        except (OSError, ValueError):
            values = {}
    for name in statistics:
        row[name] = values.get(name)
    if record and console_prefix:
        row.update(console_fields(run, console_prefix))
    row["host.wall_seconds"] = record["wall_seconds"] if record else None
    row["host.name"] = record["host"] if record else None
    row["host.attempt"] = record["attempt"] if record else None
    return row


def gather(runs, statistics, console_prefix, several_parts, derived):
    """Rows of every run, in the study's order, and the column names in order."""
    rows = [row_of(run, statistics, console_prefix, several_parts) for run in runs]
    for row in rows:
        host = {name: row.pop(name) for name in HOST_COLUMNS}
        derived.add(row)
        row.update(host)
    columns = []
    for row in rows:
        for name in row:
            if name not in columns and name not in HOST_COLUMNS:
                columns.append(name)
    return rows, columns + HOST_COLUMNS


def cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_tables(out_dir, study, rows, columns, units, plots_drawn):
    """OUT/results.csv (one header line) and OUT/results.json (with each column's unit, and the
    plots: file, kind and, for a Pareto front, the keys of the runs on it)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(row.get(name)) for name in columns])
    write_atomically(os.path.join(out_dir, "results.csv"), text.getvalue())
    document = {"study": study.name, "description": study.description, "columns": columns,
                "units": {name: units[name] for name in columns if units.get(name)},
                "host_columns": HOST_COLUMNS, "plots": plots_drawn, "rows": rows}
    write_atomically(os.path.join(out_dir, "results.json"), json.dumps(document, indent=1) + "\n")
