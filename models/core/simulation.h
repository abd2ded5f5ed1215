// How a run ends: one place that records the outcome (exit code + reason), the
// SystemC report-handler policy, and the run limits every core checks.
#pragma once

#include <systemc>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace npuvp {

// Process exit statuses of the simulator (documented in docs/cli.md).
enum class ExitStatus : int {
  kSuccess = 0,
  kCheckFailed = 1,      // the guest exited non-zero, or a scenario check failed
  kLimitReached = 124,   // simulated time, instruction or wall-time limit
  kBadInput = 125,       // scenario, parameter, ELF or command-line error
  kGuestError = 126,     // the guest did something the platform cannot continue from
  kInternalError = 127,  // a bug in the simulator
  kHungUp = 129,         // SIGHUP (the terminal or ssh session went away): 128 + SIGHUP
  kInterrupted = 130,    // the user pressed Ctrl-C (like a shell's 128 + SIGINT)
  kTerminated = 143,     // SIGTERM (kill, a batch system's time limit): 128 + SIGTERM
};

// An error that ends the run. Thrown from anywhere (elaboration or a SystemC
// process); sc_main catches it, prints `what()` as one line, writes stats and
// exits with `status()`.
class SimulationError : public std::runtime_error {
 public:
  SimulationError(ExitStatus status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  ExitStatus status() const { return status_; }

 private:
  ExitStatus status_;
};

// Bad user input: scenario, parameters, images.
class ConfigError : public SimulationError {
 public:
  explicit ConfigError(const std::string& message)
      : SimulationError(ExitStatus::kBadInput, message) {}
};

class SimulationControl {
 public:
  static SimulationControl& instance();

  // The guest asked to end the run (finisher, HTIF, semihosting exit).
  // `source` names the device, for the summary line.
  void request_exit(int guest_exit_code, const std::string& source);

  // Records an error outcome (first one wins) and throws SimulationError.
  [[noreturn]] void fail(ExitStatus status, const std::string& message);
  // Records an error outcome without throwing (used by sc_main's catch blocks).
  void record_failure(ExitStatus status, const std::string& message);

  bool finished() const { return finished_; }
  bool exit_requested() const { return exit_requested_; }
  int guest_exit_code() const { return guest_exit_code_; }
  ExitStatus status() const { return status_; }
  const std::string& reason() const { return reason_; }

  // Run limits, checked by cores at their synchronisation points.
  void set_instruction_limit(std::uint64_t limit) { instruction_limit_ = limit; }
  void set_wall_time_limit(double seconds) { wall_time_limit_ = seconds; }
  // Adds retired instructions; fails the run when a limit is exceeded.
  void account_instructions(std::uint64_t count, const std::string& who);
  std::uint64_t instructions_remaining() const {
    return instruction_limit_ == 0 ? UINT64_MAX
           : total_instructions_ >= instruction_limit_ ? 0
                                                       : instruction_limit_ - total_instructions_;
  }
  std::uint64_t total_instructions() const { return total_instructions_; }
  // Fails the run when the wall-time limit passed (counted from the start of
  // the process: the limit holds while loading, too) or a SIGINT/SIGTERM came.
  void check_wall_time(const std::string& who);
  // Async-signal-safe: called from the SIGINT, SIGTERM and SIGHUP handlers. All end
  // the run at the cores' next synchronisation point, statistics written.
  static void request_interrupt(int signal_number = SIGINT);
  // Ends the run for a pending SIGINT (kInterrupted), SIGTERM (kTerminated) or SIGHUP (kHungUp),
  // naming the signal and `where` ("at simulated time 3 ms").
  [[noreturn]] void fail_interrupted(const std::string& where);
  double wall_seconds() const;
  void start_wall_clock();
  // Host time spent stopped in a debugger counts neither for the wall-time
  // limit nor for the speed reported at exit.
  void exclude_wall_time(std::chrono::steady_clock::duration duration) {
    wall_start_ += duration;
    limit_start_ += duration;
  }
  // Whether the user pressed Ctrl-C (for code that waits outside the cores' loops).
  static bool interrupt_pending();

  // Cores running ahead of SystemC time (temporal decoupling) report how far
  // they got, so the run's end time is the latest simulated time reached.
  void note_time(const sc_core::sc_time& time) {
    if (time > latest_time_) latest_time_ = time;
  }
  sc_core::sc_time end_time() const;

  // Installs the SystemC report handler: warnings print one line, errors end
  // the run through SimulationError (so stats are still written).
  static void install_report_handler();

 private:
  bool finished_ = false;
  bool exit_requested_ = false;
  int guest_exit_code_ = 0;
  ExitStatus status_ = ExitStatus::kSuccess;
  std::string reason_;
  std::uint64_t instruction_limit_ = 0;
  std::uint64_t total_instructions_ = 0;
  double wall_time_limit_ = 0;
  sc_core::sc_time latest_time_;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  // The wall-time limit counts from here (the first use of the control, at
  // the start of the run), not from start_wall_clock(): loading counts too.
  std::chrono::steady_clock::time_point limit_start_ = std::chrono::steady_clock::now();
};

inline SimulationControl& simulation() { return SimulationControl::instance(); }

// sc_time_stamp() without a call into the SystemC library: the simulation
// context's clock has an inline accessor. For per-access paths (ring, memories).
inline const sc_core::sc_time& current_time() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

}  // namespace npuvp
