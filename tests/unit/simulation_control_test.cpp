// SimulationControl: how a run ends (guest exit, failures, limits).
// SimulationControl is a process-wide singleton and SystemC cannot restart, so
// every TEST assumes a fresh process (CTest runs each TEST on its own).
#include "core/simulation.h"

#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <string>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_US;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

class ExitingGuest : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ExitingGuest);
  explicit ExitingGuest(sc_core::sc_module_name name) : sc_module(name) {
    SC_THREAD(run);
    SC_THREAD(ticker);
  }
  bool returned_from_request = false;
  bool reached_end = false;
  std::uint64_t ticks = 0;

 private:
  void run() {
    sc_core::wait(7, SC_US);
    simulation().request_exit(3, "test finisher");
    returned_from_request = true;
    sc_core::wait(1, SC_US);  // never resumes: the run stopped
    reached_end = true;
  }
  // Keeps events pending forever, so only request_exit can end sc_start().
  void ticker() {
    for (;;) {
      sc_core::wait(1, SC_US);
      ++ticks;
    }
  }
};

TEST(SimulationControl, StartsUnfinishedAndUnlimited) {
  EXPECT_FALSE(simulation().finished());
  EXPECT_FALSE(simulation().exit_requested());
  EXPECT_EQ(simulation().status(), ExitStatus::kSuccess);
  EXPECT_EQ(simulation().reason(), "");
  EXPECT_EQ(simulation().instructions_remaining(), UINT64_MAX);
  EXPECT_EQ(&simulation(), &SimulationControl::instance());
}

TEST(SimulationControl, RequestExitStopsARunningSimulation) {
  ExitingGuest guest("guest");
  sc_core::sc_start();
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(7, SC_US));
  EXPECT_EQ(sc_core::sc_get_status(), sc_core::SC_STOPPED);
  EXPECT_TRUE(guest.returned_from_request);
  EXPECT_FALSE(guest.reached_end);
  EXPECT_GE(guest.ticks, 6u);
  EXPECT_LE(guest.ticks, 7u);

  EXPECT_TRUE(simulation().finished());
  EXPECT_TRUE(simulation().exit_requested());
  EXPECT_EQ(simulation().guest_exit_code(), 3);
  EXPECT_EQ(simulation().status(), ExitStatus::kCheckFailed);
  EXPECT_CONTAINS(simulation().reason(), "code 3");
  EXPECT_CONTAINS(simulation().reason(), "test finisher");
}

TEST(SimulationControl, ExitCodeZeroIsSuccessAndTheFirstExitWins) {
  simulation().request_exit(0, "htif");
  EXPECT_TRUE(simulation().finished());
  EXPECT_TRUE(simulation().exit_requested());
  EXPECT_EQ(simulation().guest_exit_code(), 0);
  EXPECT_EQ(simulation().status(), ExitStatus::kSuccess);
  EXPECT_CONTAINS(simulation().reason(), "htif");
  // Outside a run there is nothing to stop.
  EXPECT_EQ(sc_core::sc_get_status(), sc_core::SC_ELABORATION);

  simulation().request_exit(9, "semihosting");
  EXPECT_EQ(simulation().guest_exit_code(), 0);
  EXPECT_EQ(simulation().status(), ExitStatus::kSuccess);
  EXPECT_CONTAINS(simulation().reason(), "htif");
}

TEST(SimulationControl, FailThrowsSimulationErrorWithTheStatus) {
  try {
    simulation().fail(ExitStatus::kGuestError, "trap handler missing");
    FAIL() << "fail() returned";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kGuestError);
    EXPECT_STREQ(error.what(), "trap handler missing");
  }
  EXPECT_TRUE(simulation().finished());
  EXPECT_FALSE(simulation().exit_requested());
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
  EXPECT_EQ(simulation().reason(), "trap handler missing");
}

TEST(SimulationControl, FirstFailureWins) {
  simulation().record_failure(ExitStatus::kGuestError, "first cause");
  try {
    simulation().fail(ExitStatus::kLimitReached, "second cause");
    FAIL() << "fail() returned";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kLimitReached);  // the throw still says what happened here
  }
  simulation().record_failure(ExitStatus::kInternalError, "third cause");
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
  EXPECT_EQ(simulation().reason(), "first cause");

  // A guest exit after a failure changes nothing either.
  simulation().request_exit(0, "finisher");
  EXPECT_FALSE(simulation().exit_requested());
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
  EXPECT_EQ(simulation().reason(), "first cause");
}

TEST(SimulationControl, AFailureAfterAGuestExitKeepsTheExit) {
  simulation().request_exit(2, "finisher");
  simulation().record_failure(ExitStatus::kInternalError, "late error");
  EXPECT_EQ(simulation().status(), ExitStatus::kCheckFailed);
  EXPECT_EQ(simulation().guest_exit_code(), 2);
  EXPECT_CONTAINS(simulation().reason(), "finisher");
}

TEST(SimulationControl, InstructionLimitAccounting) {
  simulation().set_instruction_limit(1000);
  EXPECT_EQ(simulation().instructions_remaining(), 1000u);
  EXPECT_NO_THROW(simulation().account_instructions(400, "soc.cpu"));
  EXPECT_EQ(simulation().total_instructions(), 400u);
  EXPECT_EQ(simulation().instructions_remaining(), 600u);
  EXPECT_NO_THROW(simulation().account_instructions(599, "soc.cpu"));
  EXPECT_EQ(simulation().instructions_remaining(), 1u);
  EXPECT_FALSE(simulation().finished());

  try {
    simulation().account_instructions(1, "soc.mesh.core3");
    FAIL() << "the limit was not enforced";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kLimitReached);
    EXPECT_CONTAINS(error.what(), "sim.limit.instructions");
    EXPECT_CONTAINS(error.what(), "1000");
    EXPECT_CONTAINS(error.what(), "soc.mesh.core3");
  }
  EXPECT_EQ(simulation().instructions_remaining(), 0u);
  EXPECT_EQ(simulation().total_instructions(), 1000u);
  EXPECT_TRUE(simulation().finished());
  EXPECT_EQ(simulation().status(), ExitStatus::kLimitReached);
  EXPECT_CONTAINS(simulation().reason(), "sim.limit.instructions");
}

TEST(SimulationControl, NoInstructionLimitMeansUnlimited) {
  simulation().set_instruction_limit(0);
  EXPECT_NO_THROW(simulation().account_instructions(UINT64_MAX / 2, "soc.cpu"));
  EXPECT_NO_THROW(simulation().account_instructions(1000, "soc.cpu"));
  EXPECT_EQ(simulation().instructions_remaining(), UINT64_MAX);
  EXPECT_EQ(simulation().total_instructions(), UINT64_MAX / 2 + 1000);
  EXPECT_FALSE(simulation().finished());
}

TEST(SimulationControl, WallTimeLimit) {
  simulation().start_wall_clock();
  simulation().set_wall_time_limit(3600);
  EXPECT_NO_THROW(simulation().check_wall_time("soc.cpu"));
  EXPECT_FALSE(simulation().finished());

  simulation().set_wall_time_limit(0.02);
  while (simulation().wall_seconds() <= 0.02) {
  }
  try {
    simulation().check_wall_time("soc.cpu");
    FAIL() << "the wall-time limit was not enforced";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kLimitReached);
    EXPECT_CONTAINS(error.what(), "wall-time limit");
    EXPECT_CONTAINS(error.what(), "sim.limit.wall_time");
    EXPECT_CONTAINS(error.what(), "soc.cpu");
  }
  EXPECT_EQ(simulation().status(), ExitStatus::kLimitReached);

  // Zero means no limit.
  simulation().set_wall_time_limit(0);
  EXPECT_NO_THROW(simulation().check_wall_time("soc.cpu"));
}

TEST(SimulationControl, WallClockRestarts) {
  while (simulation().wall_seconds() <= 0.05) {
  }
  double before = simulation().wall_seconds();
  simulation().start_wall_clock();
  double after = simulation().wall_seconds();
  EXPECT_GE(after, 0.0);
  EXPECT_LT(after, before);
}

TEST(SimulationControl, InterruptEndsTheRunWithStatus130) {
  EXPECT_NO_THROW(simulation().check_wall_time("soc.cpu"));
  SimulationControl::request_interrupt();
  try {
    simulation().check_wall_time("soc.cpu");
    FAIL() << "the interrupt was not noticed";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kInterrupted);
    EXPECT_EQ(static_cast<int>(error.status()), 130);
    EXPECT_CONTAINS(error.what(), "interrupted");
  }
  EXPECT_EQ(simulation().status(), ExitStatus::kInterrupted);
}

// SIGTERM (kill, a batch system's time limit) ends the run like Ctrl-C, with
// the shell's 128 + 15 and the signal named.
TEST(SimulationControl, TerminateEndsTheRunWithStatus143) {
  SimulationControl::request_interrupt(SIGTERM);
  try {
    simulation().check_wall_time("soc.cpu");
    FAIL() << "the termination request was not noticed";
  } catch (const SimulationError& error) {
    EXPECT_EQ(static_cast<int>(error.status()), 143);
    EXPECT_CONTAINS(error.what(), "terminated (SIGTERM)");
  }
  EXPECT_EQ(simulation().status(), ExitStatus::kTerminated);
}

TEST(SimulationControl, ReportHandlerTurnsErrorsIntoFailures) {
  SimulationControl::install_report_handler();
  EXPECT_NO_THROW(SC_REPORT_WARNING("npuvp/test", "just a warning"));
  EXPECT_FALSE(simulation().finished());
  EXPECT_THROW(SC_REPORT_ERROR("npuvp/test", "broken model"), sc_core::sc_report);
  EXPECT_TRUE(simulation().finished());
  EXPECT_EQ(simulation().status(), ExitStatus::kInternalError);
  EXPECT_CONTAINS(simulation().reason(), "broken model");
  EXPECT_CONTAINS(simulation().reason(), "npuvp/test");
}

}  // namespace
}  // namespace npuvp
