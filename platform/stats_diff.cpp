#include "platform/stats_diff.h"

#include "core/simulation.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

namespace npuvp {
namespace {

// The numbers a document holds, by name: plain values as they are, histograms
// as <name>.count and <name>.mean, the run summary under "npuvp.".
std::map<std::string, double> flatten(const nlohmann::json& document) {
  std::map<std::string, double> values;
  if (document.contains("npuvp"))
    for (const char* key : {"sim_time_seconds", "instructions", "exit_status"})
      if (document["npuvp"].contains(key) && document["npuvp"][key].is_number())
        values[std::string("npuvp.") + key] = document["npuvp"][key].get<double>();
  if (!document.contains("statistics")) return values;
  for (const auto& [name, value] : document["statistics"].items()) {
    if (value.is_number()) {
      values[name] = value.get<double>();
    } else if (value.is_object() && value.contains("count")) {
      values[name + ".count"] = value["count"].get<double>();
      if (value.contains("mean") && value["mean"].is_number()) values[name + ".mean"] = value["mean"].get<double>();
    }
  }
  return values;
}

bool matches(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return fnmatch(pattern.c_str(), name.c_str(), 0) == 0; });
}

double relative_change(const StatChange& change) {
  if (change.in_before != change.in_after) return 1.0;
  double scale = std::max(std::fabs(change.before), std::fabs(change.after));
  return scale > 0 ? std::fabs(change.after - change.before) / scale : 0.0;
}

// What `npuvp run --stats` writes for one statistic: a number, null (a
// derived value that is not finite), or a histogram object whose "count" is a
// number (and "mean" a number or null). Anything else says the file is not
// ours or was edited; refusing it here keeps flatten() free of type errors.
std::string kind_of(const nlohmann::json& value) {
  const std::string type = value.type_name();  // "string", "array", "object", "boolean", "null"
  return (type == "array" || type == "object" ? "an " : "a ") + type;
}

std::string shape_problem(const nlohmann::json& value) {
  if (value.is_number() || value.is_null()) return "";
  if (!value.is_object()) return "is " + kind_of(value) + ", not a number or a histogram";
  if (!value.contains("count")) return "is an object without \"count\", not a histogram";
  if (!value["count"].is_number())
    return "is a histogram whose \"count\" is " + kind_of(value["count"]) + ", not a number";
  if (value.contains("mean") && !value["mean"].is_number() && !value["mean"].is_null())
    return "is a histogram whose \"mean\" is " + kind_of(value["mean"]) + ", not a number";
  return "";
}

nlohmann::json read_document(const std::string& path) {
  std::error_code status_error;
  if (std::filesystem::is_directory(path, status_error))
    throw std::runtime_error("'" + path + "' is a directory, not a statistics file");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("'" + path + "' is not valid JSON: " + error.what());
  }
  const std::string not_ours = "'" + path + "' is not a statistics file of `npuvp run --stats`";
  if (!document.is_object() || !document.contains("statistics") || !document["statistics"].is_object())
    throw std::runtime_error(not_ours + " (no \"statistics\" object)");
  if (document.contains("npuvp") && !document["npuvp"].is_object())
    throw std::runtime_error(not_ours + " (\"npuvp\" is not an object)");
  for (const auto& [name, value] : document["statistics"].items()) {
    const std::string problem = shape_problem(value);
    if (!problem.empty()) throw std::runtime_error(not_ours + ": statistic '" + name + "' " + problem);
  }
  return document;
}

std::string number(double value) {
  char text[32];
  if (value == std::floor(value) && std::fabs(value) < 1e15) std::snprintf(text, sizeof text, "%.0f", value);
  else std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

std::vector<StatChange> compare_statistics(const nlohmann::json& before, const nlohmann::json& after,
                                           const StatsDiffOptions& options) {
  const auto a = flatten(before), b = flatten(after);
  std::map<std::string, StatChange> all;
  for (const auto& [name, value] : a) {
    auto& change = all[name];
    change.name = name;
    change.in_before = true;
    change.before = value;
  }
  for (const auto& [name, value] : b) {
    auto& change = all[name];
    change.name = name;
    change.in_after = true;
    change.after = value;
  }
  std::vector<StatChange> result;
  for (const auto& [name, change] : all) {
    if (!matches(name, options.patterns)) continue;
    if (!options.include_unchanged && (!change.changed() || relative_change(change) < options.threshold)) continue;
    result.push_back(change);
  }
  return result;
}

int stats_diff(const StatsDiffOptions& options, std::ostream& out, std::ostream& error) {
  // strtod reads "nan" and "inf": a NaN threshold would hide nothing, silently.
  if (!std::isfinite(options.threshold) || options.threshold < 0) {
    error << "npuvp: error: --threshold expects a non-negative number (0.05 = 5 %), got " << options.threshold << "\n";
    return static_cast<int>(ExitStatus::kBadInput);
  }
  nlohmann::json before, after;
  try {
    before = read_document(options.before_path);
    after = read_document(options.after_path);
  } catch (const std::exception& failure) {
    error << "npuvp: error: " << failure.what() << "\n";
    return static_cast<int>(ExitStatus::kBadInput);
  }
  const auto changes = compare_statistics(before, after, options);
  std::size_t width = 9;
  for (const auto& change : changes) width = std::max(width, change.name.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %16s %16s %10s\n", static_cast<int>(width), "statistic", "A", "B", "B/A");
  out << line;
  for (const auto& change : changes) {
    std::string ratio = !change.in_before ? "new" : !change.in_after ? "gone" : change.before == 0 ? "-" : "";
    if (ratio.empty()) {
      char text[32];
      std::snprintf(text, sizeof text, "%.4g", change.ratio());
      ratio = text;
    }
    std::snprintf(line, sizeof line, "%-*s %16s %16s %10s\n", static_cast<int>(width), change.name.c_str(),
                  change.in_before ? number(change.before).c_str() : "-",
                  change.in_after ? number(change.after).c_str() : "-", ratio.c_str());
    out << line;
  }
  out << changes.size() << (options.include_unchanged ? " statistics" : " changed statistics") << " (A = "
      << options.before_path << ", B = " << options.after_path << ")\n";
  return 0;
}

}  // namespace npuvp
