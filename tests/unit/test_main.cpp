// GoogleTest entry point usable from sc_main-based libraries: SystemC owns
// main() (via libsystemc), so tests run from sc_main.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdlib>

// Before main(): SystemC prints its banner before sc_main runs.
static const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
