// Parameters are declared once, where they are used: a hierarchical name, a
// type, a default, a unit and a one-line meaning. The same declaration drives
// configuration (scenario YAML and --set), `npuvp params` and the docs.
//
//   Parameter<std::uint64_t> depth{child_name(*this, "depth"), 16, "entries", "FIFO depth"};
//
// Values given before a parameter is constructed (from the scenario or the
// command line) are applied when it is constructed; a value that no parameter
// ever claims is an error naming the closest valid name.
#pragma once

#include <systemc>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npuvp {

class ParameterBase {
 public:
  ParameterBase(std::string name, std::string unit, std::string doc);
  virtual ~ParameterBase();
  ParameterBase(const ParameterBase&) = delete;
  ParameterBase& operator=(const ParameterBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& unit() const { return unit_; }
  const std::string& doc() const { return doc_; }
  virtual std::string type_name() const = 0;
  virtual std::string default_text() const = 0;
  virtual std::string value_text() const = 0;
  // Parses and stores a value; throws ConfigError naming the parameter.
  virtual void set_from_text(const std::string& text, const std::string& origin) = 0;

 protected:
  // Applies a pending override, if any; called at the end of the derived constructor.
  void register_self();

 private:
  std::string name_, unit_, doc_;
};

namespace detail {
// Text <-> value conversions per supported type; false on a parse error.
bool parse_value(const std::string& text, const std::string& unit, bool& out);
bool parse_value(const std::string& text, const std::string& unit, std::uint64_t& out);
bool parse_value(const std::string& text, const std::string& unit, std::int64_t& out);
bool parse_value(const std::string& text, const std::string& unit, double& out);
bool parse_value(const std::string& text, const std::string& unit, std::string& out);
bool parse_value(const std::string& text, const std::string& unit, sc_core::sc_time& out);
std::string format_value(bool value, const std::string& unit);
std::string format_value(std::uint64_t value, const std::string& unit);
std::string format_value(std::int64_t value, const std::string& unit);
std::string format_value(double value, const std::string& unit);
std::string format_value(const std::string& value, const std::string& unit);
std::string format_value(const sc_core::sc_time& value, const std::string& unit);
template <typename T> const char* type_name();
template <> inline const char* type_name<bool>() { return "bool"; }
template <> inline const char* type_name<std::uint64_t>() { return "uint"; }
template <> inline const char* type_name<std::int64_t>() { return "int"; }
template <> inline const char* type_name<double>() { return "real"; }
template <> inline const char* type_name<std::string>() { return "string"; }
template <> inline const char* type_name<sc_core::sc_time>() { return "time"; }
[[noreturn]] void throw_bad_value(const std::string& name, const char* type, const std::string& unit,
                                  const std::string& text, const std::string& origin,
                                  const std::string& extra = "");
}  // namespace detail

template <typename T>
class Parameter : public ParameterBase {
 public:
  Parameter(std::string name, T default_value, std::string unit, std::string doc,
            std::vector<T> choices = {})
      : ParameterBase(std::move(name), std::move(unit), std::move(doc)),
        default_(default_value),
        value_(default_value),
        choices_(std::move(choices)) {
    register_self();
  }

  const T& get() const { return value_; }
  operator const T&() const { return value_; }
  const std::vector<T>& choices() const { return choices_; }

  std::string type_name() const override {
    std::string type = detail::type_name<T>();
    if (!choices_.empty()) {
      type += " {";
      for (std::size_t i = 0; i < choices_.size(); ++i)
        type += (i ? "|" : "") + detail::format_value(choices_[i], "");
      type += "}";
    }
    return type;
  }
  std::string default_text() const override { return detail::format_value(default_, unit()); }
  std::string value_text() const override { return detail::format_value(value_, unit()); }
  void set_from_text(const std::string& text, const std::string& origin) override {
    T parsed{};
    if (!detail::parse_value(text, unit(), parsed))
      detail::throw_bad_value(name(), detail::type_name<T>(), unit(), text, origin);
    if (!choices_.empty()) {
      bool allowed = false;
      for (const auto& choice : choices_) allowed = allowed || choice == parsed;
      if (!allowed) detail::throw_bad_value(name(), type_name().c_str(), "", text, origin, "not one of the choices");
    }
    value_ = parsed;
  }
  // Programmatic override (tests, platform wiring decisions).
  void set(const T& value) { value_ = value; }

 private:
  T default_;
  T value_;
  std::vector<T> choices_;
};

// The lowest and highest clock a model accepts. SystemC time is a 64-bit
// count of picoseconds (2^64 ps, about 213 days): one cycle must be a whole
// picosecond at least (1 THz), and at most 1 ms (1 kHz), so that at least
// 1.8e10 cycles fit before that count overflows (below 1 kHz a long run would
// wrap around and report wrong times; 32.768 kHz real-time clocks still fit).
constexpr double kLowestClockHz = 1e3, kHighestClockHz = 1e12;

// A clock parameter's period in whole picoseconds. Throws ConfigError naming
// the parameter, its value and the limits for a frequency that is not finite
// or outside [kLowestClockHz, kHighestClockHz].
std::uint64_t clock_period_ps(const Parameter<double>& clock);

class ParameterRegistry {
 public:
  static ParameterRegistry& instance();

  // A value for a parameter that may not exist yet. `origin` says where it
  // came from (e.g. "scenarios/hello.yaml:7" or "--set"), for error messages.
  // A leading "soc." may be omitted in `name`.
  void set_override(const std::string& name, const std::string& value, const std::string& origin);
  // Throws ConfigError for every override no parameter claimed (first one named,
  // with the closest valid name).
  void check_all_overrides_used() const;

  std::vector<const ParameterBase*> all() const;  // sorted by name
  const ParameterBase* find(const std::string& name) const;
  void clear_overrides() { overrides_.clear(); }

 private:
  friend class ParameterBase;
  struct Override {
    std::string value, origin;
    bool used = false;
    std::uint64_t order = 0;  // later settings win, whichever spelling they use
  };
  std::uint64_t next_order_ = 0;
  void add(ParameterBase* parameter);
  void remove(ParameterBase* parameter);
  std::map<std::string, ParameterBase*> parameters_;
  std::map<std::string, Override> overrides_;
};

// "<owner's hierarchical name>.<local>": the naming convention of every model.
std::string child_name(const sc_core::sc_object& owner, const std::string& local);

}  // namespace npuvp
