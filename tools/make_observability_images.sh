#!/bin/sh
# Regenerates docs/images/waveform-gemm-direct.png (a real GTKWave screenshot
# under Xvfb) and docs/images/timeline-gemm-direct.png (a rendering of the
# timeline JSON by tools/render_timeline.py) from one run of the
# gemm-direct scenario. Not part of `make test`. Needs the Debian packages
# gtkwave, xvfb, xauth, imagemagick and librsvg2-bin.
# usage: tools/make_observability_images.sh [BUILD_DIR]   (default: build)
set -eu
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$source_dir/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$build/platform/npuvp" run "$source_dir/scenarios/gemm-direct.yaml" -q --vcd gemm.vcd --trace gemm.json
xvfb-run -a -s "-screen 0 1400x520x24" sh -c '
  gtkwave --rcvar "hier_max_level 0" --rcvar "hide_sst 1" \
          --rcvar "initial_window_x 1400" --rcvar "initial_window_y 520" \
          --rcvar "initial_window_xpos 0" --rcvar "initial_window_ypos 0" \
          -S "$0/tools/gtkwave_aicore_pipes.tcl" gemm.vcd >gtkwave.log 2>&1 &
  sleep 8
  import -window root waveform.png
  kill $!' "$source_dir"
/usr/bin/convert waveform.png -colors 64 "$source_dir/docs/images/waveform-gemm-direct.png"
python3 "$source_dir/tools/render_timeline.py" gemm.json timeline.svg \
  --title "npuvp run scenarios/gemm-direct.yaml --trace gemm.json (rendering of the JSON, not a Perfetto screenshot)"
rsvg-convert timeline.svg -o timeline.png
/usr/bin/convert timeline.png -colors 64 "$source_dir/docs/images/timeline-gemm-direct.png"
ls -l "$source_dir/docs/images/waveform-gemm-direct.png" "$source_dir/docs/images/timeline-gemm-direct.png"
