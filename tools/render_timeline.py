#!/usr/bin/env python3
"""Draws a timeline written by `npuvp run --trace FILE` (Chrome trace-event
JSON) as an SVG picture, laid out like ui.perfetto.dev: one row per track,
grouped by component, slices as named boxes over simulated time.

This is a rendering of the JSON file for docs/observability.md (the Perfetto
UI is a web application that cannot be loaded on a machine without network),
not a screenshot of Perfetto. Python 3 standard library only; turn the SVG
into PNG with `rsvg-convert` (Debian package librsvg2-bin).

usage: tools/render_timeline.py TRACE.json OUT.svg [--title TEXT] [--width PIXELS]
"""
import argparse
import hashlib
import json
import sys
from xml.sax.saxutils import escape

ROW_HEIGHT = 22
LABEL_WIDTH = 250
TOP = 58


def colour(name):
    """A stable pastel colour per slice name (as Perfetto colours by name)."""
    digest = hashlib.md5(name.encode()).digest()
    hue = digest[0] * 360 // 256
    return f"hsl({hue},55%,62%)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("output")
    parser.add_argument("--title", default="")
    parser.add_argument("--width", type=int, default=1400)
    options = parser.parse_args()

    with open(options.trace) as f:
        document = json.load(f)
    events = document["traceEvents"] if isinstance(document, dict) else document
    groups, tracks, group_order, track_order = {}, {}, {}, {}
    slices = []
    for event in events:
        phase = event.get("ph")
        if phase == "M":
            key = (event["pid"], event.get("tid", 0))
            if event["name"] == "process_name":
                groups[event["pid"]] = event["args"]["name"]
            elif event["name"] == "thread_name":
                tracks[key] = event["args"]["name"]
            elif event["name"] == "process_sort_index":
                group_order[event["pid"]] = event["args"]["sort_index"]
            elif event["name"] == "thread_sort_index":
                track_order[key] = event["args"]["sort_index"]
        elif phase in ("X", "i", "I"):
            slices.append(event)
    if not slices:
        sys.exit(f"{options.trace}: no slices to draw")

    rows = sorted({(e["pid"], e["tid"]) for e in slices},
                  key=lambda k: (group_order.get(k[0], k[0]), track_order.get(k, k[1])))
    row_of = {key: index for index, key in enumerate(rows)}
    start = min(e["ts"] for e in slices)
    end = max(e["ts"] + e.get("dur", 0) for e in slices)
    span = max(end - start, 1e-9)
    plot_width = options.width - LABEL_WIDTH - 20
    x = lambda t: LABEL_WIDTH + (t - start) / span * plot_width

    height = TOP + len(rows) * ROW_HEIGHT + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{options.width}" height="{height}" '
           f'font-family="DejaVu Sans, sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(options.title)}</text>']
    # Time axis (microseconds, the file's unit).
    step = 10 ** len(str(int(span))) / 10
    while span / step > 12:
        step *= 2
    tick = (start // step + 1) * step if start % step else start
    while tick <= end:
        out.append(f'<line x1="{x(tick):.1f}" y1="{TOP - 8}" x2="{x(tick):.1f}" y2="{height - 30}" stroke="#ddd"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{TOP - 12}" text-anchor="middle" fill="#555">{tick:g} us</text>')
        tick += step
    previous_group = None
    for index, key in enumerate(rows):
        y = TOP + index * ROW_HEIGHT
        if index % 2:
            out.append(f'<rect x="0" y="{y}" width="{options.width}" height="{ROW_HEIGHT}" fill="#f4f6f8"/>')
        group = groups.get(key[0], str(key[0]))
        if group != previous_group:
            out.append(f'<line x1="0" y1="{y}" x2="{options.width}" y2="{y}" stroke="#999"/>')
            out.append(f'<text x="6" y="{y + 15}" font-weight="bold">{escape(group)}</text>')
            previous_group = group
        label = tracks.get(key, str(key[1]))
        out.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
    for event in slices:
        y = TOP + row_of[(event["pid"], event["tid"])] * ROW_HEIGHT + 3
        left = x(event["ts"])
        if event["ph"] == "X":
            width = max(x(event["ts"] + event.get("dur", 0)) - left, 0.8)
            out.append(f'<rect x="{left:.2f}" y="{y}" width="{width:.2f}" height="{ROW_HEIGHT - 6}" '
                       f'fill="{colour(event["name"])}" stroke="#555" stroke-width="0.3">'
                       f'<title>{escape(event["name"])}</title></rect>')
            if width > 7 * len(event["name"]):
                out.append(f'<text x="{left + 3:.1f}" y="{y + 12}" font-size="10">{escape(event["name"])}</text>')
        else:
            out.append(f'<path d="M{left:.1f},{y} l4,8 l-4,8 l-4,-8 z" fill="#333"/>')
    out.append(f'<text x="{LABEL_WIDTH}" y="{height - 10}" fill="#555">simulated time; '
               f'{len(slices)} events from {escape(options.trace.split("/")[-1])}</text>')
    out.append("</svg>")
    with open(options.output, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
