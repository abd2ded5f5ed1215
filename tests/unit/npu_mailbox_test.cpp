// NpuMailbox through a TLM initiator: doorbells raise the task scheduler's
// line until acknowledged, HOST_IRQ raises the host's, scratch words hold
// values, anything else is an access fault.
#include "periph/npu_mailbox.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>

#include <functional>

namespace npuvp {
namespace {

using test_support::TestInitiator;

struct Harness {
  NpuMailbox mailbox{"mailbox"};
  TestInitiator bus;
  explicit Harness(std::function<void(TestInitiator&, NpuMailbox&)> body)
      : bus("bus", 8, [this, body](TestInitiator& initiator) { body(initiator, mailbox); }) {
    bus.socket.bind(mailbox.socket);
  }
};

TEST(NpuMailbox, DoorbellsCountUntilAcknowledged) {
  Harness run([](TestInitiator& bus, NpuMailbox& mailbox) {
    EXPECT_FALSE(mailbox.ts_irq.level());
    bus.write(NpuMailbox::kDoorbell, 1);
    bus.write(NpuMailbox::kDoorbell, 7);
    sc_core::wait(sc_core::SC_ZERO_TIME);  // the line rises at the write's time
    EXPECT_TRUE(mailbox.ts_irq.level());
    EXPECT_EQ(bus.read(NpuMailbox::kDoorbell), 2u);
    bus.write(NpuMailbox::kDoorbellAck, 0);
    EXPECT_FALSE(mailbox.ts_irq.level());
    EXPECT_EQ(bus.read(NpuMailbox::kDoorbell), 0u);
    EXPECT_FALSE(mailbox.host_irq.level()) << "doorbells never interrupt the host";
  });
  sc_core::sc_start();
}

TEST(NpuMailbox, HostInterruptIsALevelClearedByTheHost) {
  Harness run([](TestInitiator& bus, NpuMailbox& mailbox) {
    bus.write(NpuMailbox::kHostIrq, 0);
    EXPECT_FALSE(mailbox.host_irq.level()) << "only bit 0 raises it";
    bus.write(NpuMailbox::kHostIrq, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(mailbox.host_irq.level());
    EXPECT_EQ(bus.read(NpuMailbox::kHostIrq), 1u);
    bus.write(NpuMailbox::kHostIrqAck, 0);
    EXPECT_FALSE(mailbox.host_irq.level());
    EXPECT_FALSE(mailbox.ts_irq.level());
  });
  sc_core::sc_start();
}

// Under temporal decoupling a write carries the writer's local time offset:
// the notification takes effect then, not at the current SystemC time, so the
// task scheduler never sees a doorbell before the host rang it.
TEST(NpuMailbox, NotificationsRiseAtTheWritersLocalTime) {
  Harness run([](TestInitiator& bus, NpuMailbox& mailbox) {
    const sc_core::sc_time ahead(3, sc_core::SC_US);
    bus.write(NpuMailbox::kDoorbell, 1, 8, ahead);
    bus.write(NpuMailbox::kHostIrq, 1, 8, ahead);
    sc_core::wait(ahead - sc_core::sc_time(1, sc_core::SC_NS));
    EXPECT_FALSE(mailbox.ts_irq.level());
    EXPECT_FALSE(mailbox.host_irq.level());
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
    EXPECT_TRUE(mailbox.ts_irq.level());
    EXPECT_TRUE(mailbox.host_irq.level());
    // An acknowledgement before a pending rise drops it: the reader has seen
    // everything written before the acknowledgement.
    bus.write(NpuMailbox::kDoorbellAck, 0);
    bus.write(NpuMailbox::kDoorbell, 1, 8, ahead);
    bus.write(NpuMailbox::kDoorbellAck, 0);
    sc_core::wait(2 * ahead);
    EXPECT_FALSE(mailbox.ts_irq.level());
  });
  sc_core::sc_start();
}

TEST(NpuMailbox, ScratchWordsHoldValuesAndOtherAccessesFault) {
  Harness run([](TestInitiator& bus, NpuMailbox&) {
    for (unsigned i = 0; i < NpuMailbox::kScratchWords; ++i)
      bus.write(NpuMailbox::kScratch + 8 * i, 0x1111'0000'0000'0000ull * (i + 1) + i);
    for (unsigned i = 0; i < NpuMailbox::kScratchWords; ++i)
      EXPECT_EQ(bus.read(NpuMailbox::kScratch + 8 * i), 0x1111'0000'0000'0000ull * (i + 1) + i);
    std::uint32_t word = 0;
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, NpuMailbox::kScratch, &word, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "registers are 64-bit";
    std::uint64_t value = 0;
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, NpuMailbox::kScratch + 8 * NpuMailbox::kScratchWords, &value, 8),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, 0x20, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  sc_core::sc_start();
}

}  // namespace
}  // namespace npuvp
