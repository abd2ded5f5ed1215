// SimFinisher (sifive_test compatible) through a real TLM initiator socket:
// guest writes end the simulation with the recorded exit code.
#include "core/simulation.h"
#include "periph/sim_finisher.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <functional>

namespace npuvp {
namespace {

using test_support::TestInitiator;
using sc_core::sc_time;
using sc_core::SC_US;

constexpr unsigned kRegisterBytes = 4;  // the default access size: the 32-bit control register

// Runs `body` against a finisher and returns whether the body ran to its end.
struct Harness {
  SimFinisher finisher{"finisher"};
  bool reached_end = false;
  explicit Harness(std::function<void(TestInitiator&)> body)
      : cpu("cpu", kRegisterBytes, [this, body](TestInitiator& bus) {
          body(bus);
          sc_core::wait(100, SC_US);  // a pass/fail write stops the run before this ends
          reached_end = true;
        }) {
    cpu.socket.bind(finisher.socket);
  }
  TestInitiator cpu;
};

TEST(SimFinisher, PassEndsTheRunWithCodeZero) {
  Harness run([](TestInitiator& bus) {
    sc_core::wait(5, SC_US);
    bus.write(0, 0x5555);
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(5, SC_US));
  EXPECT_TRUE(simulation().finished());
  EXPECT_TRUE(simulation().exit_requested());
  EXPECT_EQ(simulation().guest_exit_code(), 0);
  EXPECT_EQ(simulation().status(), ExitStatus::kSuccess);
  EXPECT_NE(simulation().reason().find("finisher"), std::string::npos) << simulation().reason();
}

TEST(SimFinisher, FailCarriesTheGuestCode) {
  Harness run([](TestInitiator& bus) {
    sc_core::wait(2, SC_US);
    bus.write(0, (42u << 16) | 0x3333);
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_TRUE(simulation().exit_requested());
  EXPECT_EQ(simulation().guest_exit_code(), 42);
  EXPECT_EQ(simulation().status(), ExitStatus::kCheckFailed);
}

TEST(SimFinisher, DoublewordStoreUsesLow32BitsAndOtherOffsetsAreIgnored) {
  Harness run([](TestInitiator& bus) {
    bus.write(0x10, 0x5555);  // neither the control register nor the region-of-interest mark (8)
    bus.write(0x100, (1u << 16) | 0x3333);
    EXPECT_FALSE(simulation().finished());
    bus.write(0, (0xDEADull << 32) | (7u << 16) | 0x3333, 8);
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(simulation().guest_exit_code(), 7);
}

TEST(SimFinisher, ResetRequestIsAGuestError) {
  Harness run([](TestInitiator& bus) {
    try {
      bus.write(0, 0x7777);
      ADD_FAILURE() << "no error";
    } catch (const SimulationError& error) {
      EXPECT_EQ(error.status(), ExitStatus::kGuestError);
      EXPECT_NE(std::string(error.what()).find("reset requested via sim-control is not supported"),
                std::string::npos)
          << error.what();
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
  EXPECT_FALSE(simulation().exit_requested());
}

TEST(SimFinisher, UnknownCommandIsAGuestError) {
  Harness run([](TestInitiator& bus) {
    try {
      bus.write(0, 0x1234);
      ADD_FAILURE() << "no error";
    } catch (const SimulationError& error) {
      EXPECT_EQ(error.status(), ExitStatus::kGuestError);
      EXPECT_NE(std::string(error.what()).find("0x1234"), std::string::npos) << error.what();
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
}

TEST(SimFinisher, ReadsReturnZeroAndByteAccessesFault) {
  Harness run([](TestInitiator& bus) {
    std::uint64_t value = 0xFF;
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, &value, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(value, 0u);
    EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, 0, &value, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, 0x1000, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  sc_core::sc_start();
  EXPECT_TRUE(run.reached_end);
  EXPECT_FALSE(simulation().finished());
}

}  // namespace
}  // namespace npuvp
