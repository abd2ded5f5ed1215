// AddressRouter with real Memory targets: decoding with address translation,
// unmapped and straddling accesses, overlays and DMI clipping around them,
// overlap rejection, debug transport and DMI invalidation forwarding.
#include "core/simulation.h"
#include "core/statistics.h"
#include "interconnect/address_router.h"
#include "mem/memory.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

// The shared initiator, checking that the router hands every payload back
// with the global address it was given.
class Initiator : public test_support::TestInitiator {
 public:
  explicit Initiator(sc_core::sc_module_name name) : TestInitiator(name) { expect_address_restored = true; }
};

// A target that revokes DMI grants on request, like a device whose memory
// changes mapping.
class RevokingTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RevokingTarget> socket{"socket"};
  explicit RevokingTarget(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_b_transport(this, &RevokingTarget::b_transport);
  }
  void revoke(std::uint64_t start, std::uint64_t end) { socket->invalidate_direct_mem_ptr(start, end); }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time&) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

constexpr std::uint64_t kRomBase = 0x1000, kRomSize = 0x1000;
constexpr std::uint64_t kUartBase = 0x10000000, kUartSize = 0x100;
constexpr std::uint64_t kDdrBase = 0x80000000, kDdrSize = 1 << 20;

// ROM, a small device and DDR side by side, as in the SoC memory map.
struct ThreeTargets {
  Initiator cpu{"cpu"};
  AddressRouter router{"router"};
  Memory rom{"rom", kRomSize};
  Memory uart{"uart", kUartSize};
  Memory ddr{"ddr", kDdrSize};
  ThreeTargets() {
    cpu.socket.bind(router.target_socket);
    EXPECT_EQ(router.map(rom.socket, kRomBase, kRomSize, "rom"), 0u);
    EXPECT_EQ(router.map(uart.socket, kUartBase, kUartSize, "uart"), 1u);
    EXPECT_EQ(router.map(ddr.socket, kDdrBase, kDdrSize, "ddr"), 2u);
    sc_core::sc_start(SC_ZERO_TIME);
  }
};

std::uint32_t at(Memory& memory, std::uint64_t offset) {
  std::uint32_t value;
  std::memcpy(&value, memory.data() + offset, 4);
  return value;
}

TEST(AddressRouter, RoutesToEachTargetWithTranslatedAddresses) {
  ThreeTargets soc;
  soc.cpu.write32(kRomBase + 0x10, 0x11111111);
  soc.cpu.write32(kUartBase + 0x4, 0x22222222);
  soc.cpu.write32(kDdrBase, 0x33333333);
  soc.cpu.write32(kDdrBase + kDdrSize - 4, 0x44444444);
  EXPECT_EQ(at(soc.rom, 0x10), 0x11111111u);
  EXPECT_EQ(at(soc.uart, 0x4), 0x22222222u);
  EXPECT_EQ(at(soc.ddr, 0), 0x33333333u);
  EXPECT_EQ(at(soc.ddr, kDdrSize - 4), 0x44444444u);
  // Nothing leaked into the other targets at the same local offsets.
  EXPECT_EQ(at(soc.ddr, 0x10), 0u);
  EXPECT_EQ(at(soc.rom, 0), 0u);

  EXPECT_EQ(soc.cpu.read32(kRomBase + 0x10), 0x11111111u);
  EXPECT_EQ(soc.cpu.read32(kUartBase + 0x4), 0x22222222u);
  EXPECT_EQ(soc.cpu.read32(kDdrBase + kDdrSize - 4), 0x44444444u);
  EXPECT_EQ(soc.router.unmapped_accesses(), 0u);
}

TEST(AddressRouter, DecodeFindsTheWindow) {
  ThreeTargets soc;
  ASSERT_EQ(soc.router.windows().size(), 3u);
  const auto* window = soc.router.decode(kUartBase + 0xff);
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->label, "uart");
  EXPECT_EQ(window->port, 1u);
  EXPECT_EQ(window->last(), kUartBase + kUartSize - 1);
  EXPECT_EQ(soc.router.decode(kUartBase + kUartSize), nullptr);
  EXPECT_EQ(soc.router.decode(kRomBase - 1), nullptr);
  EXPECT_EQ(soc.router.decode(0), nullptr);
  EXPECT_EQ(soc.router.decode(~0ull), nullptr);
}

TEST(AddressRouter, UnmappedAccessesAreAddressErrorsAndCounted) {
  ThreeTargets soc;
  std::uint32_t value = 0;
  EXPECT_EQ(soc.cpu.read_bytes(0x50000000, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.write_bytes(0, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.read_bytes(kDdrBase + kDdrSize, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.router.unmapped_accesses(), 3u);
  const Statistic* statistic = StatisticsRegistry::instance().find("router.unmapped_accesses");
  ASSERT_NE(statistic, nullptr);
  EXPECT_EQ(statistic->to_json(), nlohmann::json(3));
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(soc.cpu.get_dmi(0x50000000, dmi));
}

TEST(AddressRouter, AnAccessStraddlingAWindowEndIsAnError) {
  ThreeTargets soc;
  std::uint64_t value = 0x0102030405060708ull;
  EXPECT_EQ(soc.cpu.write_bytes(kUartBase + kUartSize - 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.write_bytes(kDdrBase + kDdrSize - 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.read_bytes(kRomBase + kRomSize - 2, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.router.unmapped_accesses(), 3u);
  // No partial write happened.
  EXPECT_EQ(at(soc.uart, kUartSize - 4), 0u);
  EXPECT_EQ(at(soc.ddr, kDdrSize - 4), 0u);
  // The same access that ends exactly at the window end is fine.
  EXPECT_EQ(soc.cpu.write_bytes(kUartBase + kUartSize - 8, &value, 8), tlm::TLM_OK_RESPONSE);
}

TEST(AddressRouter, TargetErrorsPassThrough) {
  Initiator cpu("cpu");
  AddressRouter router("router");
  Memory rom("rom", 0x1000, true);
  cpu.socket.bind(router.target_socket);
  router.map(rom.socket, 0x1000, 0x1000, "rom");
  sc_core::sc_start(SC_ZERO_TIME);
  std::uint32_t value = 1;
  EXPECT_EQ(cpu.write_bytes(0x1000, &value, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(router.unmapped_accesses(), 0u);
}

// DDR with two small overlays inside it (like HTIF's tohost in DDR).
constexpr std::uint64_t kLowOverlay = kDdrBase + 0x1000, kHighOverlay = kDdrBase + 0x3000, kOverlaySize = 0x40;

struct Overlays {
  Initiator cpu{"cpu"};
  AddressRouter router{"router"};
  Memory ddr{"ddr", kDdrSize};
  Memory low{"low", kOverlaySize};
  Memory high{"high", kOverlaySize};
  Overlays() {
    cpu.socket.bind(router.target_socket);
    router.map(ddr.socket, kDdrBase, kDdrSize, "ddr");
    router.map(low.socket, kLowOverlay, kOverlaySize, "low");
    router.map(high.socket, kHighOverlay, kOverlaySize, "high");
    sc_core::sc_start(SC_ZERO_TIME);
  }
};

TEST(AddressRouter, AnOverlayWinsDecoding) {
  Overlays soc;
  EXPECT_EQ(soc.router.decode(kLowOverlay)->label, "low");
  EXPECT_EQ(soc.router.decode(kLowOverlay + kOverlaySize - 1)->label, "low");
  EXPECT_EQ(soc.router.decode(kLowOverlay - 1)->label, "ddr");
  EXPECT_EQ(soc.router.decode(kLowOverlay + kOverlaySize)->label, "ddr");

  soc.cpu.write32(kLowOverlay + 8, 0xabcd0123);
  EXPECT_EQ(at(soc.low, 8), 0xabcd0123u);
  EXPECT_EQ(at(soc.ddr, 0x1008), 0u);  // the memory underneath is not touched
  soc.cpu.write32(kLowOverlay - 4, 0x5555aaaa);
  EXPECT_EQ(at(soc.ddr, 0xffc), 0x5555aaaau);
  EXPECT_EQ(soc.cpu.read32(kLowOverlay + 8), 0xabcd0123u);
}

TEST(AddressRouter, MappingOrderDoesNotMatterForOverlays) {
  Initiator cpu("cpu");
  AddressRouter router("router");
  Memory tohost("tohost", 0x40);
  Memory ddr("ddr", kDdrSize);
  cpu.socket.bind(router.target_socket);
  router.map(tohost.socket, kDdrBase + 0x2000, 0x40, "tohost");  // the overlay first
  router.map(ddr.socket, kDdrBase, kDdrSize, "ddr");
  sc_core::sc_start(SC_ZERO_TIME);
  cpu.write32(kDdrBase + 0x2000, 1);
  cpu.write32(kDdrBase + 0x1ffc, 2);
  EXPECT_EQ(at(tohost, 0), 1u);
  EXPECT_EQ(at(ddr, 0x1ffc), 2u);
  EXPECT_EQ(at(ddr, 0x2000), 0u);
}

TEST(AddressRouter, AnAccessRunningIntoAnOverlayIsAnError) {
  Overlays soc;
  std::uint64_t value = ~0ull;
  EXPECT_EQ(soc.cpu.write_bytes(kLowOverlay - 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  std::array<std::uint8_t, 0x100> block{};
  block.fill(0xee);
  // A block write covering a whole overlay must not silently bypass it.
  EXPECT_EQ(soc.cpu.write_bytes(kLowOverlay - 0x80, block.data(), 0x100), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // Leaving an overlay into the memory around it is an error too.
  EXPECT_EQ(soc.cpu.write_bytes(kLowOverlay + kOverlaySize - 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.router.unmapped_accesses(), 3u);
  EXPECT_EQ(at(soc.ddr, 0xffc), 0u);
  EXPECT_EQ(at(soc.low, 0), 0u);
  EXPECT_EQ(at(soc.low, kOverlaySize - 4), 0u);
}

TEST(AddressRouter, DmiBelowAnOverlayEndsBeforeIt) {
  Overlays soc;
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(soc.cpu.get_dmi(kDdrBase + 0x10, dmi));
  EXPECT_EQ(dmi.get_start_address(), kDdrBase);
  EXPECT_EQ(dmi.get_end_address(), kLowOverlay - 1);
  EXPECT_EQ(dmi.get_dmi_ptr(), soc.ddr.data());
  EXPECT_TRUE(dmi.is_read_write_allowed());
}

TEST(AddressRouter, DmiBetweenOverlaysIsClippedOnBothSides) {
  Overlays soc;
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(soc.cpu.get_dmi(kDdrBase + 0x2000, dmi));
  EXPECT_EQ(dmi.get_start_address(), kLowOverlay + kOverlaySize);
  EXPECT_EQ(dmi.get_end_address(), kHighOverlay - 1);
  // The pointer is for the start of the clipped range.
  EXPECT_EQ(dmi.get_dmi_ptr(), soc.ddr.data() + (kLowOverlay + kOverlaySize - kDdrBase));
  // Using the grant as an initiator would: address -> pointer + (address - start).
  std::uint32_t value = 0x600dcafe;
  std::memcpy(dmi.get_dmi_ptr() + (kDdrBase + 0x2000 - dmi.get_start_address()), &value, 4);
  EXPECT_EQ(soc.cpu.read32(kDdrBase + 0x2000), value);
}

TEST(AddressRouter, DmiAboveAnOverlayStartsAfterIt) {
  Overlays soc;
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(soc.cpu.get_dmi(kDdrBase + 0x8000, dmi));
  EXPECT_EQ(dmi.get_start_address(), kHighOverlay + kOverlaySize);
  EXPECT_EQ(dmi.get_end_address(), kDdrBase + kDdrSize - 1);
  EXPECT_EQ(dmi.get_dmi_ptr(), soc.ddr.data() + (kHighOverlay + kOverlaySize - kDdrBase));
}

TEST(AddressRouter, DmiNeverCoversAnOverlay) {
  Overlays soc;
  for (std::uint64_t address :
       {kDdrBase, kLowOverlay - 1, kLowOverlay + kOverlaySize, kHighOverlay - 4, kHighOverlay + kOverlaySize,
        kDdrBase + kDdrSize - 1}) {
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(soc.cpu.get_dmi(address, dmi)) << std::hex << address;
    EXPECT_LE(dmi.get_start_address(), address);
    EXPECT_GE(dmi.get_end_address(), address);
    for (std::uint64_t overlay : {kLowOverlay, kHighOverlay}) {
      bool disjoint = dmi.get_end_address() < overlay || dmi.get_start_address() > overlay + kOverlaySize - 1;
      EXPECT_TRUE(disjoint) << std::hex << "grant for " << address << " [" << dmi.get_start_address() << ", "
                            << dmi.get_end_address() << "] covers the overlay at " << overlay;
    }
  }
}

TEST(AddressRouter, DmiInsideAnOverlayIsTheOverlays) {
  Overlays soc;
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(soc.cpu.get_dmi(kHighOverlay + 0x10, dmi));
  EXPECT_EQ(dmi.get_start_address(), kHighOverlay);
  EXPECT_EQ(dmi.get_end_address(), kHighOverlay + kOverlaySize - 1);
  EXPECT_EQ(dmi.get_dmi_ptr(), soc.high.data());
}

TEST(AddressRouter, PartialOverlapsAreRejected) {
  Initiator cpu("cpu");
  AddressRouter router("router");
  Memory ddr("ddr", kDdrSize);
  Memory straddling("straddling", 0x2000);
  Memory uart("uart", kUartSize);
  cpu.socket.bind(router.target_socket);
  router.map(ddr.socket, kDdrBase, kDdrSize, "ddr");
  try {
    router.map(straddling.socket, kDdrBase + kDdrSize - 0x1000, 0x2000, "straddling");
    FAIL() << "a partial overlap was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'straddling'"), std::string::npos) << message;
    EXPECT_NE(message.find("'ddr'"), std::string::npos) << message;
    EXPECT_NE(message.find("partially overlaps"), std::string::npos) << message;
  }
  EXPECT_THROW(router.map(straddling.socket, kDdrBase - 0x1000, 0x2000, "straddling"), ConfigError);
  EXPECT_THROW(router.map(straddling.socket, 0x1000, 0, "empty"), ConfigError);
  EXPECT_THROW(router.map(straddling.socket, ~0ull - 0xff, 0x200, "wrapping"), ConfigError);
  EXPECT_EQ(router.windows().size(), 1u);

  // The rejected attempts left the router consistent: the next window gets
  // the next port and its accesses reach its own target.
  EXPECT_EQ(router.map(uart.socket, kUartBase, kUartSize, "uart"), 1u);
  // The rejected memory still needs a binding to elaborate.
  AddressRouter spare("spare");
  Initiator spare_cpu("spare_cpu");
  spare_cpu.socket.bind(spare.target_socket);
  spare.map(straddling.socket, 0, 0x2000, "straddling");
  sc_core::sc_start(SC_ZERO_TIME);

  cpu.write32(kUartBase, 0x0a0b0c0d);
  EXPECT_EQ(at(uart, 0), 0x0a0b0c0du);
  EXPECT_EQ(at(straddling, 0), 0u);
}

TEST(AddressRouter, DebugTransportReadsWhatBTransportWrote) {
  Overlays soc;
  soc.cpu.write32(kDdrBase + 0x100, 0x12345678);
  soc.cpu.write32(kLowOverlay, 0x9abcdef0);
  std::uint32_t value = 0;
  EXPECT_EQ(soc.cpu.debug_read(kDdrBase + 0x100, &value, 4), 4u);
  EXPECT_EQ(value, 0x12345678u);
  EXPECT_EQ(soc.cpu.debug_read(kLowOverlay, &value, 4), 4u);
  EXPECT_EQ(value, 0x9abcdef0u);

  // And b_transport reads what debug transport wrote.
  std::uint32_t patch = 0x0badf00d;
  EXPECT_EQ(soc.cpu.debug_write(kDdrBase + 0x200, &patch, 4), 4u);
  EXPECT_EQ(soc.cpu.read32(kDdrBase + 0x200), patch);

  EXPECT_EQ(soc.cpu.debug_read(0x50000000, &value, 4), 0u);  // unmapped
  EXPECT_EQ(soc.router.unmapped_accesses(), 0u);  // debug accesses are not counted
}

TEST(AddressRouter, DebugTransportStopsAtTheDecodedDevice) {
  Overlays soc;
  std::array<std::uint8_t, 16> bytes{};
  // At the end of DDR: clipped to what is left of the window.
  EXPECT_EQ(soc.cpu.debug_read(kDdrBase + kDdrSize - 4, bytes.data(), 16), 4u);
  // Before an overlay: clipped so the memory underneath the overlay is not read.
  bytes.fill(0x5a);
  EXPECT_EQ(soc.cpu.debug_write(kLowOverlay - 6, bytes.data(), 16), 6u);
  EXPECT_EQ(soc.ddr.data()[0x1000 - 1], 0x5a);
  EXPECT_EQ(soc.ddr.data()[0x1000], 0);
  EXPECT_EQ(soc.low.data()[0], 0);
  // Inside an overlay: clipped to the overlay.
  EXPECT_EQ(soc.cpu.debug_read(kLowOverlay + kOverlaySize - 2, bytes.data(), 16), 2u);
}

TEST(AddressRouter, DmiInvalidationIsForwardedWithGlobalAddresses) {
  Initiator cpu("cpu");
  Initiator dma("dma");
  AddressRouter router("router");
  Memory ddr("ddr", kDdrSize);
  RevokingTarget device("device");
  cpu.socket.bind(router.target_socket);
  dma.socket.bind(router.target_socket);
  router.map(ddr.socket, kDdrBase, kDdrSize, "ddr");
  router.map(device.socket, 0x20000000, 0x10000, "device");
  sc_core::sc_start(SC_ZERO_TIME);

  device.revoke(0x100, 0x1ff);
  using Range = std::pair<std::uint64_t, std::uint64_t>;
  ASSERT_EQ(cpu.invalidations.size(), 1u);
  EXPECT_EQ(cpu.invalidations[0], Range(0x20000100, 0x200001ff));
  ASSERT_EQ(dma.invalidations.size(), 1u);  // every initiator hears it
  EXPECT_EQ(dma.invalidations[0], Range(0x20000100, 0x200001ff));

  // "Everything" from the target is its whole window, not the whole address space.
  device.revoke(0, ~0ull);
  ASSERT_EQ(cpu.invalidations.size(), 2u);
  EXPECT_EQ(cpu.invalidations[1], Range(0x20000000, 0x2000ffff));
}

}  // namespace
}  // namespace npuvp
