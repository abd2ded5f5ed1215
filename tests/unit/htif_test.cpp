// Htif through real TLM initiator sockets bound to its two mailboxes.
#include "core/console.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "periph/htif.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <unistd.h>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_US;
using test_support::TestInitiator;

// Two initiators, as a bus would map tohost and fromhost at two addresses. The
// body runs in tohost's thread and may access both mailboxes.
class Mailboxes : public sc_core::sc_module {
 public:
  TestInitiator tohost{"tohost", [this](TestInitiator&) { body_(*this); }};
  TestInitiator fromhost{"fromhost"};

  Mailboxes(sc_core::sc_module_name name, std::function<void(Mailboxes&)> body)
      : sc_module(name), body_(std::move(body)) {}
  std::uint64_t read(TestInitiator& mailbox, std::uint64_t offset = 0, unsigned size = 8) {
    return mailbox.read(offset, size);
  }
  void write(TestInitiator& mailbox, std::uint64_t value, std::uint64_t offset = 0, unsigned size = 8) {
    mailbox.write(offset, value, size);
  }

 private:
  std::function<void(Mailboxes&)> body_;
};

struct Harness {
  Htif htif{"htif"};
  bool reached_end = false;
  explicit Harness(std::function<void(Mailboxes&)> body)
      : cpu("cpu", [this, body](Mailboxes& bus) {
          body(bus);
          sc_core::wait(100, SC_US);
          reached_end = true;
        }) {
    cpu.tohost.socket.bind(htif.tohost_socket);
    cpu.fromhost.socket.bind(htif.fromhost_socket);
  }
  Mailboxes cpu;
};

constexpr std::uint64_t putchar_command(char c) {
  return (std::uint64_t{1} << 56) | (std::uint64_t{1} << 48) | static_cast<unsigned char>(c);
}

TEST(Htif, ExitPassAndZeroWritesIgnored) {
  ParameterRegistry::instance().set_override("htif.output", "none", "test");
  Harness run([](Mailboxes& bus) {
    bus.write(bus.tohost, 0);  // ignored
    EXPECT_FALSE(simulation().finished());
    sc_core::wait(3, SC_US);
    bus.write(bus.tohost, 1);
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(3, SC_US));
  EXPECT_TRUE(simulation().exit_requested());
  EXPECT_EQ(simulation().guest_exit_code(), 0);
  EXPECT_EQ(simulation().status(), ExitStatus::kSuccess);
  EXPECT_EQ(run.htif.commands.value(), 1u);
}

TEST(Htif, ExitFailCodeFromRiscvTestsStyleWrite) {
  ParameterRegistry::instance().set_override("htif.output", "none", "test");
  Harness run([](Mailboxes& bus) { bus.write(bus.tohost, (13u << 1) | 1); });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(simulation().guest_exit_code(), 13);
  EXPECT_EQ(simulation().status(), ExitStatus::kCheckFailed);
}

TEST(Htif, Rv32HalvesCompleteOnTheHighWord) {
  ParameterRegistry::instance().set_override("htif.output", "none", "test");
  Harness run([](Mailboxes& bus) {
    bus.write(bus.tohost, (3u << 1) | 1, 0, 4);  // sw TESTNUM, tohost
    EXPECT_FALSE(simulation().finished());
    EXPECT_EQ(bus.read(bus.tohost, 0, 4), 7u);
    bus.write(bus.tohost, 0, 4, 4);  // sw zero, tohost + 4
  });
  sc_core::sc_start();
  EXPECT_FALSE(run.reached_end);
  EXPECT_EQ(simulation().guest_exit_code(), 3);
}

TEST(Htif, ConsolePutcharWritesOutputAndAcknowledges) {
  std::string path = ::testing::TempDir() + "npuvp_htif_" + std::to_string(::getpid()) + ".txt";
  ParameterRegistry::instance().set_override("htif.output", path, "test");
  GuestConsole::instance().clear();
  Harness run([](Mailboxes& bus) {
    for (char c : std::string("ok\n")) {
      bus.write(bus.tohost, putchar_command(c));
      EXPECT_EQ(bus.read(bus.tohost), 0u);  // taken by the host
      EXPECT_EQ(bus.read(bus.fromhost), (std::uint64_t{1} << 56) | (std::uint64_t{1} << 48));
      bus.write(bus.fromhost, 0);  // the guest clears the acknowledgement
      EXPECT_EQ(bus.read(bus.fromhost), 0u);
    }
    EXPECT_EQ(bus.read(bus.fromhost, 4, 4), 0u);
  });
  sc_core::sc_start();
  EXPECT_TRUE(run.reached_end);
  EXPECT_FALSE(simulation().finished());
  EXPECT_EQ(GuestConsole::instance().transcript(), "ok\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "ok\n");
  EXPECT_EQ(run.htif.console_bytes.value(), 3u);
  std::remove(path.c_str());
}

TEST(Htif, ProxiedSyscallIsAGuestErrorNamingTheValue) {
  ParameterRegistry::instance().set_override("htif.output", "none", "test");
  Harness run([](Mailboxes& bus) {
    try {
      bus.write(bus.tohost, 0x80001000);
      ADD_FAILURE() << "no error";
    } catch (const SimulationError& error) {
      EXPECT_EQ(error.status(), ExitStatus::kGuestError);
      std::string message = error.what();
      EXPECT_NE(message.find("0x80001000"), std::string::npos) << message;
      EXPECT_NE(message.find("proxied syscalls are not supported"), std::string::npos) << message;
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
}

TEST(Htif, UnknownDeviceIsAGuestError) {
  ParameterRegistry::instance().set_override("htif.output", "none", "test");
  Harness run([](Mailboxes& bus) {
    // Device 1 command 0: console input request, not modelled.
    EXPECT_THROW(bus.write(bus.tohost, std::uint64_t{1} << 56), SimulationError);
    std::uint64_t value = 0;
    EXPECT_EQ(bus.tohost.access(tlm::TLM_WRITE_COMMAND, 0, &value, 2), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.tohost.access(tlm::TLM_WRITE_COMMAND, 8, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  sc_core::sc_start();
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
}

}  // namespace
}  // namespace npuvp
