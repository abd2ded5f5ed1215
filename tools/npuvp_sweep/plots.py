"""Plots of the results table (PNG, matplotlib): line with series, heat map, Pareto front.

Axis labels carry the units the simulator declares: a parameter's from `npuvp params`, a
statistic's from the stats file's `units` section.
"""
import os
import sys

from .registry import numeric


def label(name, units):
    unit = units.get(name)
    return f"{name} [{unit}]" if unit else name


def tick_text(value):
    """A value as a tick label: a scenario path by its file name (mesh-lu, not /a/b/mesh-lu.yaml)."""
    text = str(value)
    if "/" in text and text.endswith((".yaml", ".yml")):
        return os.path.splitext(os.path.basename(text))[0]
    return text


def selected(rows, where):
    """The rows of runs that passed and match every `where` condition."""
    chosen = []
    for row in rows:
        if row.get("exit_status") != 0:
            continue
        if all(str(row.get(name)) == str(value) for name, value in (where or {}).items()):
            chosen.append(row)
    return chosen


def as_number(value):
    number = numeric(value)
    return float(number) if number is not None else None


def mean_by(rows, keys, value_name):
    """{tuple of key values: mean of value_name} over the rows (repetitions, other parameters)."""
    groups = {}
    for row in rows:
        value = as_number(row.get(value_name))
        if value is None:
            continue
        groups.setdefault(tuple(row.get(k) for k in keys), []).append(value)
    return {key: sum(values) / len(values) for key, values in groups.items()}


def ordered(values):
    """Distinct values, numerically when they all are numbers (with units), else as first seen."""
    distinct = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    if all(numeric(v) is not None for v in distinct):
        return sorted(distinct, key=numeric)
    return distinct


def line_plot(axes, plot, rows, units):
    x_name, y_name, series_name = plot["x"], plot["y"], plot.get("series")
    means = mean_by(rows, [series_name, x_name] if series_name else [x_name], y_name)
    series_values = ordered([key[0] for key in means]) if series_name else [None]
    numeric_x = all(numeric(key[-1]) is not None for key in means)
    categories = ordered([key[-1] for key in means])
    for series in series_values:
        points = [(key[-1], value) for key, value in means.items() if not series_name or key[0] == series]
        points.sort(key=lambda p: numeric(p[0]) if numeric_x else categories.index(p[0]))
        xs = [numeric(p[0]) if numeric_x else categories.index(p[0]) for p in points]
        axes.plot(xs, [p[1] for p in points], marker="o",
                  label=f"{series_name} = {tick_text(series)}" if series_name else y_name)
    if plot.get("log_x") and numeric_x:
        axes.set_xscale("log")
    if not numeric_x or plot.get("log_x"):
        # The swept values themselves as ticks, as the study writes them (8GB/s, 64KiB).
        axes.set_xticks([numeric(c) for c in categories] if numeric_x else range(len(categories)))
        axes.set_xticklabels([tick_text(c) for c in categories])
        axes.minorticks_off()
    if plot.get("log_y"):
        axes.set_yscale("log")
    axes.set_xlabel(label(x_name, units))
    axes.set_ylabel(label(y_name, units))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)


def heatmap_plot(figure, axes, plot, rows, units):
    x_name, y_name, value_name = plot["x"], plot["y"], plot["value"]
    means = mean_by(rows, [x_name, y_name], value_name)
    xs = ordered([key[0] for key in means])
    ys = ordered([key[1] for key in means])
    grid = [[means.get((x, y), float("nan")) for x in xs] for y in ys]
    image = axes.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    axes.set_xticks(range(len(xs)))
    axes.set_xticklabels([tick_text(x) for x in xs])
    axes.set_yticks(range(len(ys)))
    axes.set_yticklabels([tick_text(y) for y in ys])
    finite = [v for line in grid for v in line if v == v]
    middle = (min(finite) + max(finite)) / 2 if finite else 0
    for row_index, line in enumerate(grid):
        for column_index, value in enumerate(line):
            if value == value:
                axes.text(column_index, row_index, f"{value:.3g}", ha="center", va="center", fontsize=8,
                          color="black" if value > middle else "white")
    axes.set_xlabel(label(x_name, units))
    axes.set_ylabel(label(y_name, units))
    figure.colorbar(image, ax=axes, label=label(value_name, units))


def pareto_front(points, maximise_x, maximise_y):
    """The points (x, y, ...) no other point dominates: at least as good in both coordinates and
    better in one (each minimised unless maximised); in order along x."""
    sign_x = -1 if maximise_x else 1
    sign_y = -1 if maximise_y else 1

    def dominates(q, p):
        at_least = sign_x * q[0] <= sign_x * p[0] and sign_y * q[1] <= sign_y * p[1]
        return at_least and (sign_x * q[0] < sign_x * p[0] or sign_y * q[1] < sign_y * p[1])

    front = [p for p in points if not any(dominates(q, p) for q in points)]
    return sorted(front, key=lambda p: (sign_x * p[0], sign_y * p[1]))


def pareto_plot(axes, plot, rows, units):
    x_name, y_name = plot["x"], plot["y"]
    maximise = plot.get("maximise", [])
    maximise = [maximise] if isinstance(maximise, str) else maximise
    labels = plot.get("label", [])
    labels = [labels] if isinstance(labels, str) else labels
    points = []
    for row in rows:
        x, y = as_number(row.get(x_name)), as_number(row.get(y_name))
        if x is not None and y is not None:
            text = ", ".join(f"{name.rsplit('.', 1)[-1]}={tick_text(row.get(name))}" for name in labels)
            points.append((x, y, text, row.get("key")))
    axes.scatter([p[0] for p in points], [p[1] for p in points], color="tab:gray", alpha=0.5, label="runs")
    front = pareto_front(points, x_name in maximise, y_name in maximise)
    axes.plot([p[0] for p in front], [p[1] for p in front], marker="o", color="tab:red", drawstyle="steps-post",
              label="Pareto front")
    for x, y, text, _ in front:
        if text:
            axes.annotate(text, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    if plot.get("log_x"):
        axes.set_xscale("log")
    if plot.get("log_y"):
        axes.set_yscale("log")
    goal = lambda name: "higher is better" if name in maximise else "lower is better"
    axes.set_xlabel(f"{label(x_name, units)} ({goal(x_name)})")
    axes.set_ylabel(f"{label(y_name, units)} ({goal(y_name)})")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    return [key for _, _, _, key in front]


def draw(study, rows, units, out_dir):
    """Every plot of the study as OUT/<file>.png; returns what was drawn ({kind, file[, front]})."""
    if not study.plots:
        return []
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        print(f"sweep: plots skipped: matplotlib cannot be imported ({error}); Debian: python3-matplotlib",
              file=sys.stderr)
        return []

    written = []
    for index, plot in enumerate(study.plots):
        chosen = selected(rows, plot.get("where"))
        figure, axes = plt.subplots(figsize=(7.5, 5))
        record = {"kind": plot["kind"]}
        if plot["kind"] == "line":
            line_plot(axes, plot, chosen, units)
        elif plot["kind"] == "heatmap":
            heatmap_plot(figure, axes, plot, chosen, units)
        else:
            record["front"] = pareto_plot(axes, plot, chosen, units)  # the keys of the runs on it
        where = ", ".join(f"{k}={v}" for k, v in (plot.get("where") or {}).items())
        axes.set_title(plot.get("title", f"{study.name}: {plot['kind']}") + (f"\n({where})" if where else ""),
                       fontsize=10)
        figure.tight_layout()
        path = os.path.join(out_dir, plot.get("file", f"plot-{index}-{plot['kind']}.png"))
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)
        record["file"] = os.path.basename(path)
        written.append(record)
    return written
