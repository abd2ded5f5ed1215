// Uart16550 driven through a real TLM initiator socket.
#include "core/console.h"
#include "core/interrupt.h"
#include "core/parameters.h"
#include "periph/uart16550.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace npuvp {
namespace {

using test_support::TestInitiator;

// Records every level change of the lines connected to it.
class LevelLog : public InterruptTarget {
 public:
  struct Change {
    unsigned line;
    bool level;
    sc_core::sc_time time;
  };
  void set_interrupt(unsigned line, bool level) override {
    changes.push_back({line, level, sc_core::sc_time_stamp()});
  }
  std::vector<Change> changes;
};

constexpr unsigned kRbr = 0, kThr = 0, kDll = 0, kIer = 1, kDlm = 1, kIir = 2, kFcr = 2, kLcr = 3, kMcr = 4,
                   kLsr = 5, kMsr = 6, kScr = 7;
constexpr unsigned kRegisterBytes = 1;  // the default access size

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "npuvp_uart_" + tag + "_" + std::to_string(::getpid()) + ".txt";
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Uart16550, TransmitsToFileOutput) {
  std::string path = temp_path("tx");
  ParameterRegistry::instance().set_override("uart.output", path, "test");
  Uart16550 uart("uart");
  EXPECT_EQ(uart.output.get(), path);
  GuestConsole::instance().clear();
  TestInitiator cpu("cpu", kRegisterBytes, [](TestInitiator& bus) {
    for (char c : std::string("Hi!\n")) bus.write(kThr, static_cast<unsigned char>(c));
    // A 4-byte store to THR transmits its low byte.
    bus.write(kThr, 0x0A5A, 4);
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
  // The file is flushed at each newline.
  EXPECT_EQ(file_text(path).substr(0, 4), "Hi!\n");
  EXPECT_EQ(uart.bytes_transmitted.value(), 5u);
  EXPECT_EQ(GuestConsole::instance().transcript(), "Hi!\nZ");
  std::remove(path.c_str());
}

TEST(Uart16550, LineStatusReflectsReceiveData) {
  ParameterRegistry::instance().set_override("uart.output", "none", "test");
  ParameterRegistry::instance().set_override("uart.input", "ok", "test");
  Uart16550 uart("uart");
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    // THRE and TEMT always set (instant transmit); DR while input remains.
    EXPECT_EQ(bus.read(kLsr), 0x61u);
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('o'));
    EXPECT_EQ(bus.read(kLsr), 0x61u);
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('k'));
    EXPECT_EQ(bus.read(kLsr), 0x60u);
    EXPECT_EQ(bus.read(kRbr), 0u);  // nothing left
    bus.write(kThr, 'x');
    EXPECT_EQ(bus.read(kLsr), 0x60u);
    // LSR is read-only.
    bus.write(kLsr, 0x00);
    EXPECT_EQ(bus.read(kLsr), 0x60u);
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
  EXPECT_EQ(uart.bytes_received.value(), 2u);
  EXPECT_EQ(uart.input_remaining(), 0u);
}

TEST(Uart16550, DivisorLatchAccessBitSwitchesRegisters) {
  ParameterRegistry::instance().set_override("uart.output", "none", "test");
  ParameterRegistry::instance().set_override("uart.input", "R", "test");
  Uart16550 uart("uart");
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(kIer, 0x05);
    bus.write(kLcr, 0x83);  // DLAB + 8 data bits
    EXPECT_EQ(bus.read(kLcr), 0x83u);
    bus.write(kDll, 0x12);
    bus.write(kDlm, 0x34);
    EXPECT_EQ(bus.read(kDll), 0x12u);
    EXPECT_EQ(bus.read(kDlm), 0x34u);
    EXPECT_EQ(uart.bytes_transmitted.value(), 0u);  // the DLL write did not transmit
    EXPECT_EQ(uart.input_remaining(), 1u);          // the DLL read did not consume input
    bus.write(kLcr, 0x03);
    EXPECT_EQ(bus.read(kIer), 0x05u);  // IER kept its value behind DLM
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('R'));
    bus.write(kLcr, 0x83);
    EXPECT_EQ(bus.read(kDll), 0x12u);  // divisor kept
    EXPECT_EQ(bus.read(kDlm), 0x34u);
    bus.write(kLcr, 0x03);
    bus.write(kScr, 0xA5);
    EXPECT_EQ(bus.read(kScr), 0xA5u);
    EXPECT_EQ(bus.read(0x80), 0u);  // outside the eight registers
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
}

TEST(Uart16550, InterruptIdentificationPriorityAndEnables) {
  ParameterRegistry::instance().set_override("uart.output", "none", "test");
  ParameterRegistry::instance().set_override("uart.input", "xy", "test");
  Uart16550 uart("uart");
  LevelLog plic;
  uart.irq.connect(plic, 10);
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    EXPECT_EQ(bus.read(kIir), 0x01u);  // no interrupt pending
    EXPECT_FALSE(uart.irq.level());

    // Enabling the THR-empty interrupt while THR is empty raises it.
    bus.write(kIer, 0x02);
    EXPECT_TRUE(uart.irq.level());
    EXPECT_EQ(bus.read(kIir), 0x02u);  // reading IIR clears the THRE interrupt
    EXPECT_FALSE(uart.irq.level());
    EXPECT_EQ(bus.read(kIir), 0x01u);
    bus.write(kThr, 'a');  // THR empties again at once
    EXPECT_TRUE(uart.irq.level());

    // Received data outranks THR empty.
    bus.write(kIer, 0x03);
    EXPECT_EQ(bus.read(kIir), 0x04u);
    EXPECT_EQ(bus.read(kIir), 0x04u);  // still there: not cleared by IIR reads
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('x'));
    EXPECT_EQ(bus.read(kIir), 0x04u);  // 'y' waiting
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('y'));
    EXPECT_EQ(bus.read(kIir), 0x02u);  // THRE was still pending underneath
    EXPECT_EQ(bus.read(kIir), 0x01u);
    EXPECT_FALSE(uart.irq.level());

    // Disabling all sources drops the line even with a source pending.
    bus.write(kThr, 'b');
    EXPECT_TRUE(uart.irq.level());
    bus.write(kIer, 0x00);
    EXPECT_FALSE(uart.irq.level());
    EXPECT_EQ(bus.read(kIir), 0x01u);
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
  // The sink saw exactly the level changes, on line 10.
  std::vector<bool> levels;
  for (auto& change : plic.changes) {
    EXPECT_EQ(change.line, 10u);
    levels.push_back(change.level);
  }
  EXPECT_EQ(levels, (std::vector<bool>{true, false, true, false, true, false}));
}

TEST(Uart16550, FifoTriggerLevelAndTimeoutIdentification) {
  ParameterRegistry::instance().set_override("uart.output", "none", "test");
  ParameterRegistry::instance().set_override("uart.input", "abcde", "test");
  Uart16550 uart("uart");
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(kIer, 0x01);
    EXPECT_EQ(bus.read(kIir), 0x04u);  // FIFOs off: trigger level is one byte
    bus.write(kFcr, 0x87);             // enable + reset both FIFOs, trigger 8 bytes
    EXPECT_EQ(bus.read(kIir), 0xCCu);  // FIFO bits; 5 bytes < 8: character timeout
    bus.write(kFcr, 0x47);             // trigger 4 bytes
    EXPECT_EQ(bus.read(kIir), 0xC4u);
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('a'));  // FIFO reset kept the host input
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('b'));
    EXPECT_EQ(bus.read(kIir), 0xCCu);  // 3 left < 4
    bus.read(kRbr);
    bus.read(kRbr);
    bus.read(kRbr);
    EXPECT_EQ(bus.read(kIir), 0xC1u);
    EXPECT_FALSE(uart.irq.level());
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
}

TEST(Uart16550, InputEscapesAreDecoded) {
  ParameterRegistry::instance().set_override("uart.output", "none", "test");
  ParameterRegistry::instance().set_override("uart.input", "a\\nb\\x41\\\\", "test");
  Uart16550 uart("uart");
  std::string received;
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    while (bus.read(kLsr) & 0x01) received += static_cast<char>(bus.read(kRbr));
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
  EXPECT_EQ(received, "a\nbA\\");
}

TEST(Uart16550, BadInputEscapeIsAConfigError) {
  ParameterRegistry::instance().set_override("uart.input", "\\q", "test");
  EXPECT_THROW(Uart16550("uart"), ConfigError);
}

TEST(Uart16550, LoopbackRoutesTransmitToReceiverAndModemLines) {
  ParameterRegistry::instance().set_override("uart.output", "stdout", "test");
  Uart16550 uart("uart");
  GuestConsole::instance().clear();
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    EXPECT_EQ(bus.read(kMsr), 0xB0u);  // DCD, DSR, CTS of a connected terminal
    bus.write(kIer, 0x08);             // modem status interrupt
    bus.write(kMcr, 0x13);             // loopback, RTS, DTR
    EXPECT_TRUE(uart.irq.level());
    EXPECT_EQ(bus.read(kIir), 0x00u);
    EXPECT_EQ(bus.read(kMsr), 0x38u);  // CTS|DSR; DCD dropped: delta DDCD
    EXPECT_FALSE(uart.irq.level());
    EXPECT_EQ(bus.read(kMsr), 0x30u);
    bus.write(kThr, 'z');
    EXPECT_EQ(bus.read(kLsr) & 0x01, 0x01u);
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('z'));
    bus.write(kThr, '1');
    bus.write(kThr, '2');  // the one-byte holding register overflows
    EXPECT_EQ(bus.read(kLsr), 0x63u);
    EXPECT_EQ(bus.read(kLsr), 0x61u);  // OE cleared by the read
    EXPECT_EQ(bus.read(kRbr), static_cast<unsigned>('1'));
  });
  cpu.socket.bind(uart.socket);
  sc_core::sc_start();
  EXPECT_EQ(GuestConsole::instance().transcript(), "");
}

}  // namespace
}  // namespace npuvp
