#include "core/simulation.h"

#include <systemc>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <sstream>

namespace npuvp {

SimulationControl& SimulationControl::instance() {
  static SimulationControl control;
  return control;
}

void SimulationControl::request_exit(int guest_exit_code, const std::string& source) {
  if (finished_) return;
  finished_ = true;
  exit_requested_ = true;
  guest_exit_code_ = guest_exit_code;
  status_ = guest_exit_code == 0 ? ExitStatus::kSuccess : ExitStatus::kCheckFailed;
  std::ostringstream text;
  text << "guest exited with code " << guest_exit_code << " (" << source << ")";
  reason_ = text.str();
  if (sc_core::sc_get_status() & (sc_core::SC_RUNNING | sc_core::SC_PAUSED)) sc_core::sc_stop();
}

void SimulationControl::record_failure(ExitStatus status, const std::string& message) {
  if (finished_ && status_ != ExitStatus::kSuccess) return;  // keep the first cause
  if (finished_ && exit_requested_) return;  // a guest exit already ended the run
  finished_ = true;
  status_ = status;
  reason_ = message;
}

void SimulationControl::fail(ExitStatus status, const std::string& message) {
  record_failure(status, message);
  throw SimulationError(status, message);
}

void SimulationControl::account_instructions(std::uint64_t count, const std::string& who) {
  total_instructions_ += count;
  if (instruction_limit_ != 0 && total_instructions_ >= instruction_limit_) {
    std::ostringstream text;
    text << "instruction limit reached: " << total_instructions_ << " instructions retired (limit "
         << instruction_limit_ << ", set by sim.limit.instructions); last core: " << who;
    fail(ExitStatus::kLimitReached, text.str());
  }
}

sc_core::sc_time SimulationControl::end_time() const {
  return std::max(latest_time_, sc_core::sc_time_stamp());
}

void SimulationControl::start_wall_clock() { wall_start_ = std::chrono::steady_clock::now(); }

double SimulationControl::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

namespace {
volatile std::sig_atomic_t interrupt_requested = 0;  // the signal number, 0 for none
}

void SimulationControl::request_interrupt(int signal_number) { interrupt_requested = signal_number; }

bool SimulationControl::interrupt_pending() { return interrupt_requested != 0; }

void SimulationControl::fail_interrupted(const std::string& where) {
  if (interrupt_requested == SIGTERM) fail(ExitStatus::kTerminated, "terminated (SIGTERM) " + where);
  if (interrupt_requested == SIGHUP) fail(ExitStatus::kHungUp, "hung up (SIGHUP) " + where);
  fail(ExitStatus::kInterrupted, "interrupted (SIGINT) " + where);
}

void SimulationControl::check_wall_time(const std::string& who) {
  if (interrupt_requested) fail_interrupted("at simulated time " + sc_core::sc_time_stamp().to_string());
  if (wall_time_limit_ <= 0) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - limit_start_).count();
  if (elapsed > wall_time_limit_) {
    std::ostringstream text;
    text << "wall-time limit reached: " << elapsed << " s (limit " << wall_time_limit_
         << " s, set by sim.limit.wall_time) at simulated time " << sc_core::sc_time_stamp()
         << "; last core: " << who;
    fail(ExitStatus::kLimitReached, text.str());
  }
}

namespace {

void report_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  using namespace sc_core;
  if (report.get_severity() < SC_ERROR) {
    if (report.get_severity() == SC_WARNING)
      std::cerr << "npuvp: warning: " << report.get_msg() << " [" << report.get_msg_type() << "]\n";
    else if (actions & SC_DISPLAY)
      std::cerr << "npuvp: " << report.get_msg() << "\n";
    return;
  }
  std::ostringstream text;
  text << report.get_msg_type() << ": " << report.get_msg();
  if (report.get_process_name() && *report.get_process_name())
    text << " (in " << report.get_process_name() << ")";
  SimulationControl::instance().record_failure(ExitStatus::kInternalError, text.str());
  throw report;
}

}  // namespace

void SimulationControl::install_report_handler() {
  sc_core::sc_report_handler::set_handler(report_handler);
  // Our own messages are already one line; SystemC's info chatter is noise.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

}  // namespace npuvp
