// `npuvp run --gdb PORT` driven by Debian's gdb-multiarch in batch mode, as a
// user would: break at a function, step, print variables and CSRs, list the
// cores as threads, catch a watchpoint, continue to the program's exit. Every
// wait has a timeout, so a misbehaving server fails the test instead of
// hanging it. Port 0 lets the server pick a free port (tests run in parallel).
#include "run_npuvp.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>

extern char** environ;

namespace npuvp::test_support {
namespace {

using namespace std::chrono_literals;

// An npuvp process in the background, its output in files.
class Simulator {
 public:
  explicit Simulator(const std::string& arguments)
      : out_path_(temp_path("gdb_sim_out")), err_path_(temp_path("gdb_sim_err")) {
    std::string command = std::string("exec ") + NPUVP_EXECUTABLE + " " + arguments + " >" + out_path_ + " 2>" + err_path_;
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    if (posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) pid_ = -1;
  }
  ~Simulator() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::remove(out_path_.c_str());
    std::remove(err_path_.c_str());
  }

  // The port from "gdb server listening on 127.0.0.1:PORT"; 0 after the timeout.
  int port(std::chrono::seconds timeout = 30s) {
    static const std::regex listening("listening on 127\\.0\\.0\\.1:([0-9]+)");
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      std::smatch match;
      std::string err = read_file(err_path_);
      if (std::regex_search(err, match, listening)) return std::stoi(match[1]);
      if (exited()) return 0;
      std::this_thread::sleep_for(20ms);
    }
    return 0;
  }

  // The exit status, or -1 when the process did not end within the timeout (it is killed).
  int wait(std::chrono::seconds timeout = 60s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (exited()) return status_;
      std::this_thread::sleep_for(20ms);
    }
    return -1;
  }

  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

 private:
  bool exited() {
    if (pid_ <= 0) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    pid_ = -1;
    return true;
  }

  std::string out_path_, err_path_;
  pid_t pid_ = -1;
  int status_ = -1;
};

std::string gdb_batch(const std::string& elf, int port, const std::vector<std::string>& commands) {
  std::string command = "timeout 60 gdb-multiarch -nx -batch -ex 'set architecture riscv:rv64' -ex 'file " + elf +
                        "' -ex 'target remote 127.0.0.1:" + std::to_string(port) + "'";
  for (const auto& each : commands) command += " -ex '" + each + "'";
  CommandResult result = run_command(command + " 2>&1");
  return result.out;
}

TEST(GdbTest, BreakStepPrintWatchAndRunToExit) {
  const std::string elf = firmware("tests/gdb-target.elf");
  Simulator simulator("run --elf " + elf + " --gdb 0");
  int port = simulator.port();
  ASSERT_GT(port, 0) << simulator.err();

  std::string session = gdb_batch(elf, port,
                                  {"break accumulate", "continue", "next", "step", "print doubled", "print total",
                                   "print value", "print/x $mstatus", "print $mcycle > 0", "print ($misa >> 62) & 3",
                                   "info threads", "delete", "watch progress", "continue", "delete", "continue"});

  // Breakpoint at the function, then line steps inside it.
  EXPECT_THAT(session, ::testing::ContainsRegex("Breakpoint 1, accumulate \\(value=1\\) at .*gdb-target.c:12"));
  EXPECT_THAT(session, ::testing::HasSubstr("total += doubled;"));
  EXPECT_THAT(session, ::testing::HasSubstr("return total;"));
  // A local, a global, an argument.
  EXPECT_THAT(session, ::testing::HasSubstr("$1 = 2\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$2 = 2\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$3 = 1\n"));
  // CSRs: machine mode (MPP = M after reset: 0x1800 is set only by traps, so
  // look at UXL = 64-bit, bits 33:32 = 2), a running cycle counter, misa's MXL = 64-bit.
  EXPECT_THAT(session, ::testing::ContainsRegex("\\$4 = 0x2[0-9a-f]{8}\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$5 = 1\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$6 = 2\n"));
  // Every core of the default platform that runs is a thread.
  EXPECT_THAT(session, ::testing::ContainsRegex("\\* 1 +Thread 1 \\(soc\\.cpu\\)"));
  EXPECT_THAT(session, ::testing::ContainsRegex("Thread 3 \\(soc\\.aicore0\\.scalar"));
  EXPECT_THAT(session, ::testing::ContainsRegex("Thread 4 \\(soc\\.aicore1\\.scalar"));
  // The watchpoint on the first write of `progress`.
  EXPECT_THAT(session, ::testing::HasSubstr("Hardware watchpoint 2: progress"));
  EXPECT_THAT(session, ::testing::ContainsRegex("Old value = 0\nNew value = 1\n"));
  EXPECT_THAT(session, ::testing::ContainsRegex("\\[Inferior 1 \\(.*\\) exited normally\\]"));

  EXPECT_EQ(simulator.wait(), 0) << simulator.err() << "\n--- gdb session ---\n" << session;
  EXPECT_THAT(simulator.out(), ::testing::HasSubstr("gdb-target: sum 30"));
}

TEST(GdbTest, HardwareBreakpointRegisterWritesAndKill) {
  const std::string elf = firmware("tests/gdb-target.elf");
  Simulator simulator("run --elf " + elf + " --gdb 0");
  int port = simulator.port();
  ASSERT_GT(port, 0) << simulator.err();

  // Break on the 3rd call, make it return early with a changed total, read
  // a float register, then kill the run.
  std::string session = gdb_batch(elf, port,
                                  {"hbreak accumulate", "continue", "continue", "continue", "print value",
                                   "set var total = 100", "print total", "print $ft0", "kill"});
  EXPECT_THAT(session, ::testing::HasSubstr("Hardware assisted breakpoint 1 at"));
  EXPECT_THAT(session, ::testing::ContainsRegex("Breakpoint 1, accumulate \\(value=3\\)"));
  EXPECT_THAT(session, ::testing::HasSubstr("$1 = 3\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$2 = 100\n"));
  EXPECT_THAT(session, ::testing::HasSubstr("$3 = {float = 0, double = 0}"));
  EXPECT_EQ(simulator.wait(), 130) << simulator.err() << "\n--- gdb session ---\n" << session;
  EXPECT_THAT(simulator.err(), ::testing::HasSubstr("killed by gdb"));
}

// A client that connects, sends a packet and goes away: the run goes on
// without a debugger and ends normally.
TEST(GdbTest, DisconnectedDebuggerLetsTheRunFinish) {
  Simulator simulator("run --elf " + firmware("tests/gdb-target.elf") + " --gdb 0");
  int port = simulator.port();
  ASSERT_GT(port, 0) << simulator.err();
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string query = "$?#3f";
  ASSERT_EQ(send(fd, query.data(), query.size(), 0), static_cast<ssize_t>(query.size()));
  std::string reply;
  char buffer[256];
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (reply.find('#') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    ssize_t count = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (count > 0) reply.append(buffer, static_cast<std::size_t>(count));
    else std::this_thread::sleep_for(10ms);
  }
  close(fd);
  EXPECT_THAT(reply, ::testing::StartsWith("+$T05thread:1;#"));
  EXPECT_EQ(simulator.wait(), 0) << simulator.err();
  EXPECT_THAT(simulator.out(), ::testing::HasSubstr("gdb-target: sum 30"));
}

// A raw protocol client: Ctrl-C (0x03) while the run goes stops it with
// SIGINT for the running core, registers are readable, `k` ends the run.
TEST(GdbTest, InterruptWhileRunningThenKill) {
  Simulator simulator("run " + scenario("bench-cpu") + " --gdb 0");
  int port = simulator.port();
  ASSERT_GT(port, 0) << simulator.err();
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  // Reads up to the end of the next packet ("#cc"), within 10 s.
  auto receive = [&] {
    std::string text;
    char byte;
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      ssize_t count = recv(fd, &byte, 1, MSG_DONTWAIT);
      if (count <= 0) {
        std::this_thread::sleep_for(1ms);
        continue;
      }
      text += byte;
      auto hash = text.find('#');
      if (hash != std::string::npos && text.size() == hash + 3) break;
    }
    return text;
  };
  auto send_text = [&](const std::string& text) { ::send(fd, text.data(), text.size(), 0); };
  send_text("$c#63");
  std::this_thread::sleep_for(300ms);
  send_text("\x03");
  EXPECT_EQ(receive(), "+$T02thread:1;#d4");
  send_text("$p20#d2");  // pc: inside the program in DDR
  EXPECT_THAT(receive(), ::testing::ContainsRegex("^\\+\\$[0-9a-f]{6}8000000000#"));
  send_text("$k#6b");
  close(fd);
  EXPECT_EQ(simulator.wait(), 130) << simulator.err();
  EXPECT_THAT(simulator.err(), ::testing::HasSubstr("killed by gdb"));
}

TEST(GdbTest, BadPortIsBadInput) {
  CommandResult result = run_npuvp("run --elf " + firmware("tests/gdb-target.elf") + " --gdb 70000");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(result.err, ::testing::HasSubstr("--gdb expects a TCP port number"));
}

}  // namespace
}  // namespace npuvp::test_support
