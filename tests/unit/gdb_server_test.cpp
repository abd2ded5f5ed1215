// The GDB remote protocol's packet layer: checksums, framing with escapes,
// hex and register encodings, and the byte-stream reader.
#include "cpu/gdb_server.h"

#include <gtest/gtest.h>

namespace npuvp {
namespace {

TEST(GdbPacketTest, ChecksumIsTheSumOfCharactersModulo256) {
  EXPECT_EQ(gdb::checksum(""), 0);
  EXPECT_EQ(gdb::checksum("OK"), 0x9a);  // 'O' 0x4f + 'K' 0x4b
  EXPECT_EQ(gdb::checksum(std::string(3, '\xff')), 0xfd);
}

TEST(GdbPacketTest, FrameEscapesSpecialCharacters) {
  EXPECT_EQ(gdb::frame("OK"), "$OK#9a");
  EXPECT_EQ(gdb::frame(""), "$#00");
  // '#' (0x23) -> "}\x03", '$' -> "}\x04", '}' -> "}]", '*' -> "}\x0a"; the checksum covers the escaped text.
  std::string framed = gdb::frame("a#$}*");
  std::string body = std::string("a}\x03}\x04}]}\x0a", 9);
  EXPECT_EQ(framed.substr(1, body.size()), body);
  char digits[3];
  std::snprintf(digits, sizeof digits, "%02x", gdb::checksum(body));
  EXPECT_EQ(framed, "$" + body + "#" + digits);
}

TEST(GdbPacketTest, UnescapeRoundTripsAndRejectsADanglingEscape) {
  std::string data("\x00\x7d\x23\x24\x2a\xff", 6), out;
  ASSERT_TRUE(gdb::unescape(gdb::escape(data), out));
  EXPECT_EQ(out, data);
  EXPECT_FALSE(gdb::unescape("abc}", out));
}

TEST(GdbPacketTest, HexAndLittleEndianRegisters) {
  EXPECT_EQ(gdb::to_hex("OK"), "4f4b");
  std::vector<std::uint8_t> bytes;
  ASSERT_TRUE(gdb::from_hex("00ff7A", bytes));
  EXPECT_EQ(bytes, (std::vector<std::uint8_t>{0x00, 0xff, 0x7a}));
  EXPECT_FALSE(gdb::from_hex("abc", bytes));
  EXPECT_FALSE(gdb::from_hex("zz", bytes));
  EXPECT_EQ(gdb::register_hex(0x80000000ull, 8), "0000008000000000");
  EXPECT_EQ(gdb::register_hex(0x1f, 4), "1f000000");
  std::uint64_t value = 0;
  ASSERT_TRUE(gdb::parse_register_hex("0000008000000000", 8, value));
  EXPECT_EQ(value, 0x80000000ull);
  EXPECT_FALSE(gdb::parse_register_hex("00", 8, value));
}

TEST(GdbPacketTest, ReaderSplitsPacketsAcksAndInterrupts) {
  gdb::PacketReader reader;
  std::vector<std::string> packets;
  int interrupts = 0, bad = 0;
  for (char byte : std::string("+$qC#b4-\x03$m10,4#00$g#67")) {
    switch (reader.feed(byte)) {
      case gdb::PacketReader::Event::kPacket: packets.push_back(reader.packet()); break;
      case gdb::PacketReader::Event::kInterrupt: ++interrupts; break;
      case gdb::PacketReader::Event::kBadChecksum: ++bad; break;
      default: break;
    }
  }
  EXPECT_EQ(packets, (std::vector<std::string>{"qC", "g"}));
  EXPECT_EQ(interrupts, 1);
  EXPECT_EQ(bad, 1);  // m10,4 carried a wrong checksum
}

}  // namespace
}  // namespace npuvp
