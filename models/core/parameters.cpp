#include "core/parameters.h"

#include "core/simulation.h"
#include "core/text.h"

#include <cmath>
#include <sstream>

namespace npuvp {

namespace {
constexpr const char* kRootPrefix = "soc.";
}

ParameterBase::ParameterBase(std::string name, std::string unit, std::string doc)
    : name_(std::move(name)), unit_(std::move(unit)), doc_(std::move(doc)) {}

ParameterBase::~ParameterBase() { ParameterRegistry::instance().remove(this); }

void ParameterBase::register_self() { ParameterRegistry::instance().add(this); }

ParameterRegistry& ParameterRegistry::instance() {
  static ParameterRegistry registry;
  return registry;
}

void ParameterRegistry::set_override(const std::string& name, const std::string& value,
                                     const std::string& origin) {
  overrides_[name] = Override{value, origin, false, ++next_order_};
  // Parameters that already exist take the value now.
  auto existing = parameters_.find(name);
  if (existing == parameters_.end()) existing = parameters_.find(kRootPrefix + name);
  if (existing != parameters_.end()) {
    existing->second->set_from_text(value, origin);
    overrides_[name].used = true;
  }
}

void ParameterRegistry::add(ParameterBase* parameter) {
  if (parameters_.count(parameter->name()))
    throw ConfigError("parameter '" + parameter->name() + "' is declared twice");
  parameters_[parameter->name()] = parameter;
  // The full name and the short form without "soc." may both have been set
  // (say a scenario and --set): the later setting wins, both are claimed.
  Override* latest = nullptr;
  auto consider = [&](const std::string& key) {
    auto found = overrides_.find(key);
    if (found == overrides_.end()) return;
    found->second.used = true;
    if (!latest || found->second.order > latest->order) latest = &found->second;
  };
  consider(parameter->name());
  if (parameter->name().rfind(kRootPrefix, 0) == 0)
    consider(parameter->name().substr(std::char_traits<char>::length(kRootPrefix)));
  if (latest) parameter->set_from_text(latest->value, latest->origin);
}

void ParameterRegistry::remove(ParameterBase* parameter) {
  auto found = parameters_.find(parameter->name());
  if (found != parameters_.end() && found->second == parameter) parameters_.erase(found);
}

void ParameterRegistry::check_all_overrides_used() const {
  std::vector<std::string> names;
  for (const auto& [name, parameter] : parameters_) names.push_back(name);
  for (const auto& [name, value] : overrides_) {
    if (value.used) continue;
    std::string message = "unknown parameter '" + name + "' (from " + value.origin + ")";
    auto suggestion = closest_match(name, names);
    if (suggestion) message += "; did you mean '" + *suggestion + "'?";
    message += " Run `npuvp params` for the list.";
    throw ConfigError(message);
  }
}

std::vector<const ParameterBase*> ParameterRegistry::all() const {
  std::vector<const ParameterBase*> result;
  for (const auto& [name, parameter] : parameters_) result.push_back(parameter);
  return result;
}

const ParameterBase* ParameterRegistry::find(const std::string& name) const {
  auto found = parameters_.find(name);
  if (found == parameters_.end()) found = parameters_.find(kRootPrefix + name);
  return found == parameters_.end() ? nullptr : found->second;
}

std::uint64_t clock_period_ps(const Parameter<double>& clock) {
  const double frequency = clock.get();
  if (!std::isfinite(frequency) || frequency < kLowestClockHz || frequency > kHighestClockHz) {
    std::ostringstream value;
    value << frequency;
    throw ConfigError("parameter '" + clock.name() + "' = " + value.str() +
                      " Hz is outside the clocks SystemC's 64-bit picosecond time can hold: it must be between "
                      "1 kHz (a 1 ms cycle) and 1 THz (a 1 ps cycle)");
  }
  return static_cast<std::uint64_t>(std::llround(1e12 / frequency));
}

std::string child_name(const sc_core::sc_object& owner, const std::string& local) {
  return std::string(owner.name()) + "." + local;
}

namespace detail {

bool parse_value(const std::string& text, const std::string&, bool& out) {
  auto value = parse_bool(text);
  if (value) out = *value;
  return value.has_value();
}

bool parse_value(const std::string& text, const std::string&, std::uint64_t& out) {
  auto value = parse_unsigned(text);
  if (value) out = *value;
  return value.has_value();
}

bool parse_value(const std::string& text, const std::string&, std::int64_t& out) {
  auto value = parse_signed(text);
  if (value) out = *value;
  return value.has_value();
}

bool parse_value(const std::string& text, const std::string& unit, double& out) {
  auto value = parse_real(text, unit);
  if (value) out = *value;
  return value.has_value();
}

bool parse_value(const std::string& text, const std::string&, std::string& out) {
  out = text;
  return true;
}

// The largest time SystemC holds: 2^64 - 1 units of the resolution (1 ps:
// about 213 days). sc_time's constructor does not check it; a larger value
// would wrap (issue 23).
double largest_time_seconds() { return sc_core::sc_max_time().to_seconds(); }

bool parse_value(const std::string& text, const std::string&, sc_core::sc_time& out) {
  auto seconds = parse_duration_seconds(text);
  if (!seconds || *seconds >= largest_time_seconds()) return false;
  out = sc_core::sc_time(*seconds, sc_core::SC_SEC);
  return true;
}

std::string format_value(bool value, const std::string&) { return value ? "true" : "false"; }
std::string format_value(std::uint64_t value, const std::string& unit) {
  // Addresses and sizes read better in hex.
  if (unit == "address" || (unit == "bytes" && value >= 0x10000 && value % 1024 == 0))
    return hex(value);
  return std::to_string(value);
}
std::string format_value(std::int64_t value, const std::string&) { return std::to_string(value); }
std::string format_value(double value, const std::string& unit) {
  std::ostringstream text;
  text.precision(15);  // the default 6 digits would print 1234567 as 1.23457e+06
  if (unit == "Hz" && value >= 1e9 && std::fmod(value, 1e8) == 0)
    text << value / 1e9 << "GHz";
  else if (unit == "Hz" && value >= 1e6 && std::fmod(value, 1e5) == 0)
    text << value / 1e6 << "MHz";
  else
    text << value;
  return text.str();
}
std::string format_value(const std::string& value, const std::string&) { return value; }
std::string format_value(const sc_core::sc_time& value, const std::string&) {
  double seconds = value.to_seconds();
  std::ostringstream text;
  if (seconds == 0) text << "0s";
  else if (seconds < 1e-6) text << seconds * 1e9 << "ns";
  else if (seconds < 1e-3) text << seconds * 1e6 << "us";
  else if (seconds < 1) text << seconds * 1e3 << "ms";
  else text << seconds << "s";
  return text.str();
}

void throw_bad_value(const std::string& name, const char* type, const std::string& unit,
                     const std::string& text, const std::string& origin, const std::string& extra) {
  std::string message = "parameter '" + name + "' expects a " + type;
  if (!unit.empty() && std::string(type) != "time") message += " (" + unit + ")";
  if (std::string(type) == "time") message += " with a unit such as 10us or 1ms";
  message += ", got '" + text + "'";
  std::string why = extra;
  const auto seconds = std::string(type) == "time" ? parse_duration_seconds(text) : std::nullopt;
  if (why.empty() && seconds && *seconds >= largest_time_seconds())
    why = "above SystemC's largest time, 2^64 ps (about 213 days)";
  if (!why.empty()) message += ": " + why;
  message += " (from " + origin + ")";
  throw ConfigError(message);
}

}  // namespace detail

}  // namespace npuvp
