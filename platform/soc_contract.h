// The SoC contract: every address, interrupt number and register offset that
// software relies on, written out for software and readers from the one C++
// declaration (platform/memory_map.h for addresses and interrupts, the device
// models for their register offsets: periph/clint.h, periph/plic.h,
// periph/uart16550.h, periph/sim_finisher.h, periph/npu_mailbox.h,
// npu/ai_core.h, npu/npu_types.h).
//
// Each output is a marked section inside a file kept in the repository, the way
// docs/isa-xdavinci.md carries the Xdavinci tables:
//   firmware/common/include/npuvp/platform.h   the host programs' memory map and device registers
//   sw/include/npuvp/npu_protocol.h            the hardware the host <-> TS protocol runs over
//   firmware/cmake/npuvp_soc.cmake             link addresses of the firmware build
//   firmware/common/npuvp_soc.ld               link.ld's default link address and hart slots
//   docs/memory-map.md                         the address map, DDR layout and interrupt wiring tables
// `npuvp-soc-gen --update <source dir>` (the build target `soc_contract`)
// rewrites the sections; soc_contract_test fails while one is stale.
#pragma once

#include <string>
#include <vector>

namespace npuvp::soc_contract {

// One generated section: the file (relative to the source tree), the marker
// lines around it, and the text between them.
struct GeneratedSection {
  std::string path;
  std::string begin_marker, end_marker;  // whole lines, without the newline
  std::string (*generate)();
};

// The definitions block of firmware/common/include/npuvp/platform.h.
std::string platform_header();
// The "Hardware the protocol runs over" block of sw/include/npuvp/npu_protocol.h.
std::string protocol_hardware();
// The addresses the firmware build links at (firmware/cmake/npuvp_soc.cmake, CMake).
std::string firmware_build_settings();
// The default link addresses and hart slots of firmware/common/link.ld
// (firmware/common/npuvp_soc.ld, which it includes).
std::string linker_defaults();
// The address-map table, the software layout inside DDR and the interrupt-wiring
// table of docs/memory-map.md.
std::string address_map_table();
std::string ddr_layout_table();
std::string interrupt_table();

const std::vector<GeneratedSection>& generated_sections();

// The text between `section`'s markers in `file_text`; false when the markers
// are missing, out of order or repeated (`error` says which).
bool extract_section(const std::string& file_text, const GeneratedSection& section, std::string& body,
                     std::string& error);
// `file_text` with the body of `section` replaced by `body` (markers must exist).
std::string replace_section(const std::string& file_text, const GeneratedSection& section,
                            const std::string& body);

}  // namespace npuvp::soc_contract
