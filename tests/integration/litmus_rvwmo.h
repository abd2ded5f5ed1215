// The judge of firmware/mesh/litmus.c's outcome histograms, shared by the QEMU
// (mesh_qemu_test.cpp) and cluster (mesh_cluster_test.cpp) tests: the parser of
// the program's output, the outcomes the RISC-V memory model (RVWMO) allows for
// each test, the outcomes the NSI protocol's documented model allows
// (docs/coherence.md, "What NSI allows that MESI forbids"), and a check that
// returns every violation. It is independent of the program that produced the
// histogram.
#pragma once

#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace npuvp::test_support::litmus {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// ---- RVWMO allowed outcomes -------------------------------------------------------------
//
// RISC-V Unprivileged ISA, chapter "RVWMO Memory Consistency Model" (rules of preserved
// program order, PPO, and the load value / atomicity / progress axioms), and its
// appendix of litmus tests. Every shared location starts at 0 and is written only with
// the values the test names. An outcome maps names (r0.., or x/y for final values) to
// values.
using Outcome = std::map<std::string, unsigned>;

// The tests of litmus.c, in the order it prints them.
inline const std::vector<std::string>& all_tests() {
  static const std::vector<std::string> tests = {
      "MP",       "MP+fences",       "SB",   "SB+fences",  "LB",   "LB+fences",  "IRIW", "IRIW+fences",
      "MP+stale", "MP+stale+fences", "CoRR", "CoRR+fence", "2+2W", "2+2W+fences"};
  return tests;
}

inline bool is_fenced(const std::string& test) { return test.find("+fence") != std::string::npos; }

inline bool all_values_in(const Outcome& o, unsigned low, unsigned high) {
  for (const auto& [name, value] : o)
    if (value < low || value > high) return false;
  return true;
}

// Returns an empty string if RVWMO allows `o` for `test`, else why it is forbidden.
inline std::string rvwmo_forbids(const std::string& test, const Outcome& o) {
  auto v = [&](const char* name) { return o.count(name) ? o.at(name) : 99u; };
  if (test == "2+2W" || test == "2+2W+fences") {
    // Both locations are written twice before the final barrier: the final value is
    // one of the two stores (coherence order is total, load value axiom).
    if (!all_values_in(o, 1, 2) || o.size() != 2) return "final value not written by any store";
    // x=1 and y=1 means each thread's first store is coherence-last: a cycle
    // through both threads' program order. Without fences stores to different
    // addresses are not ordered by PPO, so it is allowed; `fence w,w` orders them
    // (PPO rule 4, fence), which forbids it.
    if (test == "2+2W+fences" && v("x") == 1 && v("y") == 1) return "x=1 y=1 needs w->w reordering across fence w,w";
    return "";
  }
  if (!all_values_in(o, 0, 1)) return "a load returned a value no store wrote";
  if (test == "MP" || test == "SB" || test == "LB" || test == "IRIW") {
    // Without fences RVWMO orders none of these accesses (different addresses, no
    // dependencies): every combination is allowed, including load buffering.
    return "";
  }
  if (test == "MP+fences") {
    // fence w,w orders the producer's stores and fence r,r the consumer's loads (PPO
    // rule 4): seeing the flag (r0=1) implies seeing the data.
    if (v("r0") == 1 && v("r1") == 0) return "r0=1 r1=0 (message passing broken across fences)";
    return "";
  }
  if (test == "SB+fences") {
    // fence rw,rw orders each store before the following load (PPO rule 4): at least
    // one thread sees the other's store.
    if (v("r0") == 0 && v("r1") == 0) return "r0=0 r1=0 (store buffering across fence rw,rw)";
    return "";
  }
  if (test == "LB+fences") {
    // fence r,w orders each load before the following store: both loads reading the
    // other thread's later store would be a cycle.
    if (v("r0") == 1 && v("r1") == 1) return "r0=1 r1=1 (load buffering across fence r,w)";
    return "";
  }
  if (test == "IRIW+fences") {
    // RVWMO is multi-copy atomic (a single global memory order): with each reader's
    // loads ordered by fence r,r, the readers cannot see the two independent stores in
    // opposite orders.
    if (v("r0") == 1 && v("r1") == 0 && v("r2") == 1 && v("r3") == 0)
      return "r0=1 r1=0 r2=1 r3=0 (independent writes seen in different orders)";
    return "";
  }
  if (test == "MP+stale" || test == "MP+stale+fences") {
    // T1: r2=x; r0=y; r1=x. r2 and r1 load the same address with no store between them
    // (PPO rule 2): once r2 saw the new x, r1 cannot see the old one. With the fences
    // (w,w in the writer, r,r between r0 and r1) it is MP+fences: the flag implies the data.
    if (v("r2") == 1 && v("r1") == 0) return "r2=1 r1=0 (read-read coherence violated)";
    if (test == "MP+stale+fences" && v("r0") == 1 && v("r1") == 0)
      return "r0=1 r1=0 (message passing broken across fences)";
    return "";
  }
  if (test == "CoRR" || test == "CoRR+fence") {
    // Two loads of the same address in program order that return values of different
    // stores are ordered (PPO rule 2, same-address load-load), and coherence: once the
    // new value is read, the older one cannot be read again. Forbidden even without a
    // fence.
    if (v("r0") == 1 && v("r1") == 0) return "r0=1 r1=0 (read-read coherence violated)";
    return "";
  }
  return "unknown test " + test;
}

// ---- NSI's documented model -------------------------------------------------------------
//
// docs/coherence.md, "What NSI allows that MESI forbids": weak consistency without
// write atomicity. Every FENCE, AMO and LR/SC is a synchronisation (the core's SHD lines
// become suspect and are validated by their next load), so with a fence between the
// accesses on both sides NSI forbids exactly what RVWMO forbids. Without fences a
// reader may keep a stale SHD copy: MP may read the flag but stale data (MP+stale gives
// the reader that copy), SB may read both stale, IRIW's readers may disagree; but per
// location a core's copy only moves forward (CoRR holds) and stores are serialised by
// ownership (the final value is one that was stored). For these unfenced tests RVWMO
// already allows every stale-read outcome, so NSI's allowed set coincides with RVWMO's;
// the difference from MESI (which with blocking cores is sequentially consistent) is in
// what is *observed*.
inline std::string nsi_model_forbids(const std::string& test, const Outcome& o) {
  if (is_fenced(test)) return rvwmo_forbids(test, o);
  auto v = [&](const char* name) { return o.count(name) ? o.at(name) : 99u; };
  if (test == "2+2W") {
    if (!all_values_in(o, 1, 2) || o.size() != 2) return "final value not written by any store";
    return "";  // no fences: the two threads' stores may be ordered either way per location
  }
  if (!all_values_in(o, 0, 1)) return "a load returned a value no store wrote";
  if (test == "MP" || test == "SB" || test == "IRIW" || test == "LB") return "";  // stale reads allowed
  if (test == "CoRR") {
    if (v("r0") == 1 && v("r1") == 0) return "r0=1 r1=0 (a core's copy of a line went backwards)";
    return "";
  }
  if (test == "MP+stale") {  // r0=1 r1=0 is the stale read; x's copy still cannot go back
    if (v("r2") == 1 && v("r1") == 0) return "r2=1 r1=0 (a core's copy of a line went backwards)";
    return "";
  }
  return "unknown test " + test;
}

using ForbidsFunction = std::function<std::string(const std::string& test, const Outcome&)>;

// ---- the program's output ---------------------------------------------------------------

struct LitmusRun {
  std::map<std::string, unsigned> iterations;  // from the header line
  std::map<std::string, std::vector<std::pair<Outcome, unsigned>>> outcomes;
  std::vector<std::string> skipped;
  bool done = false;
  std::vector<std::string> malformed;
};

// Lines that are not litmus output (e.g. other console output) count as malformed.
inline LitmusRun parse_litmus(const std::string& text) {
  LitmusRun run;
  static const std::regex header(R"(litmus (\S+) iterations=(\d+) threads=(\d+))");
  static const std::regex outcome(R"(litmus (\S+) outcome((?: \w+=\d+)+) count=(\d+))");
  static const std::regex skipped(R"(litmus (\S+) skipped harts=\d+)");
  static const std::regex pair(R"((\w+)=(\d+))");
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (line == "litmus done") {
      run.done = true;
    } else if (std::regex_match(line, m, header)) {
      run.iterations[m[1]] = std::stoul(m[2]);
    } else if (std::regex_match(line, m, outcome)) {
      Outcome o;
      std::string values = m[2];
      for (std::sregex_iterator it(values.begin(), values.end(), pair), end; it != end; ++it)
        o[(*it)[1]] = std::stoul((*it)[2]);
      run.outcomes[m[1]].emplace_back(o, std::stoul(m[3]));
    } else if (std::regex_match(line, m, skipped)) {
      run.skipped.push_back(m[1]);
    } else {
      run.malformed.push_back(line);
    }
  }
  return run;
}

inline std::string describe(const Outcome& o) {
  std::string text;
  for (const auto& [name, value] : o) text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text;
}

// Everything wrong with a run: no final line, stray lines, an expected test that did not
// run or whose counts do not add up to its iterations, and every outcome `forbids`
// rejects (with how often it was seen and why). Empty when the run is correct.
inline std::vector<std::string> violations(const LitmusRun& run, const std::vector<std::string>& expected_tests,
                                           const ForbidsFunction& forbids = rvwmo_forbids) {
  std::vector<std::string> problems;
  if (!run.done) problems.push_back("no 'litmus done' line");
  for (const auto& line : run.malformed) problems.push_back("unexpected line: " + line);
  for (const auto& test : expected_tests) {
    if (!run.iterations.count(test)) {
      problems.push_back("test " + test + " did not run");
      continue;
    }
    unsigned total = 0;
    auto found = run.outcomes.find(test);
    if (found != run.outcomes.end())
      for (const auto& [o, count] : found->second) {
        total += count;
        std::string why = forbids(test, o);
        if (!why.empty())
          problems.push_back("litmus " + test + ": forbidden outcome " + describe(o) + " seen " +
                             std::to_string(count) + " times: " + why);
      }
    if (total != run.iterations.at(test))
      problems.push_back("litmus " + test + ": outcome counts add up to " + std::to_string(total) + ", not " +
                         std::to_string(run.iterations.at(test)));
  }
  return problems;
}

}  // namespace npuvp::test_support::litmus
