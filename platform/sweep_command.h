// `npuvp sweep`: runs an exploration study (docs/exploration.md) with the sweep engine, a
// Python package (tools/npuvp_sweep) this process becomes.
#pragma once

namespace npuvp {

// Replaces this process with `python3 -m npuvp_sweep --npuvp <this npuvp> ARGS...` (argv[2]
// onwards); returns only when that cannot start (exit status 127, with the reason).
int sweep_command(int argc, char** argv);

}  // namespace npuvp
