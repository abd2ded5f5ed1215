// SimFinisher (sifive_test compatible) through a real TLM initiator socket:
// guest writes end the simulation with the recorded exit code.
#include "core/simulation.h"
#include "periph/sim_finisher.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

class Initiator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Initiator);
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  Initiator(sc_core::sc_module_name name, std::function<void(Initiator&)> body)
      : sc_module(name), body_(std::move(body)) {
    SC_THREAD(run);
  }
  tlm::tlm_response_status transport(tlm::tlm_command command, std::uint64_t address, std::uint64_t& value,
                                     unsigned size, sc_time delay = SC_ZERO_TIME) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    payload.set_data_length(size);
    payload.set_streaming_width(size);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(payload, delay);
    return payload.get_response_status();
  }
  void write(std::uint64_t address, std::uint64_t value, unsigned size = 4) {
    EXPECT_EQ(transport(tlm::TLM_WRITE_COMMAND, address, value, size), tlm::TLM_OK_RESPONSE);
  }

 private:
  void run() { body_(*this); }
  std::function<void(Initiator&)> body_;
};

// Runs `body` against a finisher and returns whether the body ran to its end.
struct Harness {
  SimFinisher finisher{"finisher"};
  bool reached_end = false;
  explicit Harness(std::function<void(Initiator&)> body)
      : cpu("cpu", [this, body](Initiator& bus) {
          body(bus);
          sc_core::wait(100, SC_US);  // a pass/fail write stops the run before this ends
          reached_end = true;
        }) {
    cpu.socket.bind(finisher.socket);
  }
  Initiator cpu;
};

TEST(SimFinisher, PassEndsTheRunWithCodeZero) {
  Harness run([](Initiator& bus) {
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
  Harness run([](Initiator& bus) {
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
  Harness run([](Initiator& bus) {
    bus.write(8, 0x5555);  // not the control register
    bus.write(0x100, (1u << 16) | 0x3333);
    EXPECT_FALSE(simulation().finished());
    bus.write(0, (0xDEADull << 32) | (7u << 16) | 0x3333, 8);
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(simulation().guest_exit_code(), 7);
}

TEST(SimFinisher, ResetRequestIsAGuestError) {
  Harness run([](Initiator& bus) {
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
  Harness run([](Initiator& bus) {
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
  Harness run([](Initiator& bus) {
    std::uint64_t value = 0xFF;
    EXPECT_EQ(bus.transport(tlm::TLM_READ_COMMAND, 0, value, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(value, 0u);
    EXPECT_EQ(bus.transport(tlm::TLM_WRITE_COMMAND, 0, value, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.transport(tlm::TLM_WRITE_COMMAND, 0x1000, value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  sc_core::sc_start();
  EXPECT_TRUE(run.reached_end);
  EXPECT_FALSE(simulation().finished());
}

}  // namespace
}  // namespace npuvp
