// Fuzz target: the GDB remote protocol's packet layer (models/cpu/gdb_server.*): the byte
// stream from gdb split by PacketReader into packets, acknowledgements and Ctrl-C, then
// each payload through the decoders the packet handlers use (binary unescaping of X
// packets, hex of M/P/G packets, little-endian register values). Properties: a framed
// payload reads back as itself; hex and escaping round-trip. The handlers themselves need
// a running core (tests/integration/gdb_test.cpp drives them through gdb-multiarch).
// Seeds: corpus/gdb_packet (a recorded gdb session).
#include "cpu/gdb_server.h"
#include "fuzz_support.h"

#include <string_view>
#include <vector>

namespace {

void decode_payload(const std::string& payload) {
  namespace gdb = npuvp::gdb;
  std::string binary, again;
  if (gdb::unescape(payload, binary) && (!gdb::unescape(gdb::escape(binary), again) || again != binary))
    npuvp::fuzz::property_failed("binary data does not round-trip through escape()");
  std::vector<std::uint8_t> bytes;
  if (gdb::from_hex(payload, bytes) && gdb::to_hex(bytes.data(), bytes.size()).size() != payload.size())
    npuvp::fuzz::property_failed("hex does not round-trip");
  // "P20=0010000000000000", "G<hex>...", "M80000000,4:01020304": the parts after the separators.
  for (char separator : {'=', ':', ','}) {
    const auto at = payload.find(separator);
    if (at == std::string::npos) continue;
    const std::string_view rest = std::string_view(payload).substr(at + 1);
    std::uint64_t value;
    for (unsigned width : {4u, 8u})
      if (gdb::parse_register_hex(rest, width, value) && gdb::register_hex(value, width).size() != width * 2)
        npuvp::fuzz::property_failed("register hex does not round-trip");
    gdb::from_hex(rest, bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace gdb = npuvp::gdb;
  gdb::PacketReader reader;
  for (std::size_t i = 0; i < size; ++i) {
    if (reader.feed(static_cast<char>(data[i])) != gdb::PacketReader::Event::kPacket) continue;
    const std::string payload = reader.packet();
    decode_payload(payload);
    // The reply path: what the server frames, a reader reads back (escapes undone).
    gdb::PacketReader echo;
    std::string unescaped;
    gdb::PacketReader::Event event = gdb::PacketReader::Event::kNone;
    for (char byte : gdb::frame(payload)) event = echo.feed(byte);
    if (event != gdb::PacketReader::Event::kPacket || !gdb::unescape(echo.packet(), unescaped) || unescaped != payload)
      npuvp::fuzz::property_failed("a framed payload does not read back as itself");
  }
  return 0;
}
