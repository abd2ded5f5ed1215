// Debian's libsystemc.so holds a main() that calls sc_main; a fuzz target's main() is
// libFuzzer's, so sc_main never runs, but the library still needs the symbol to link.
// The targets use SystemC only through the models' types (sc_time, parameters), never
// start a simulation.
#include <cstdio>
#include <cstdlib>

extern "C" int sc_main(int, char**) {
  std::fprintf(stderr, "npuvp fuzz: sc_main called: a fuzz target must not start a simulation\n");
  std::abort();
}
