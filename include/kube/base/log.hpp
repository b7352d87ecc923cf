#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace kube::log {

/// Severity, lowest first.
enum class Level { kTrace, kDebug, kInfo, kWarn, kError, kOff };

/// One `key=value` pair of structured context. Any value fmt can format is accepted.
struct Field {
  template <class V>
  Field(std::string_view k, V&& v) : key(k) {  // NOLINT implicit
    using D = std::decay_t<V>;
    if constexpr (std::is_same_v<D, bool>) {
      value = v ? "true" : "false";
    } else if constexpr (std::is_convertible_v<V, std::string_view>) {
      value = std::string(std::string_view(v));
    } else {
      value = fmt::format("{}", std::forward<V>(v));
    }
  }
  std::string_view key;
  std::string value{};
};

/// Logging options. Output goes to stderr through spdlog.
struct Options {
  Level level = Level::kInfo;
  /// spdlog pattern; the default prints time, level and the message with its fields.
  std::string pattern = "%Y-%m-%dT%H:%M:%S.%fZ %^%L%$ %v";
};

/// Configures the process-wide logger. Safe to call more than once (later calls win).
/// **Thread-safety:** safe, but intended for program start-up.
void Setup(const Options& options = {});
/// Changes the minimum level.
void SetLevel(Level level);
/// True when messages at `level` are emitted (use to skip building expensive fields).
bool Enabled(Level level);
/// Parses "trace|debug|info|warn|error|off"; returns false for anything else.
bool ParseLevel(std::string_view text, Level& out);

/// Formats `msg k1=v1 k2="v 2"`: values with spaces, quotes, '=' or nothing are quoted and escaped.
std::string Format(std::string_view msg, std::initializer_list<Field> fields,
                   const std::vector<std::pair<std::string, std::string>>& context = {});

/// Emits one line. **Thread-safety:** safe from any thread.
void Log(Level level, std::string_view msg, std::initializer_list<Field> fields);
inline void Trace(std::string_view msg, std::initializer_list<Field> f = {}) { Log(Level::kTrace, msg, f); }
inline void Debug(std::string_view msg, std::initializer_list<Field> f = {}) { Log(Level::kDebug, msg, f); }
inline void Info(std::string_view msg, std::initializer_list<Field> f = {}) { Log(Level::kInfo, msg, f); }
inline void Warn(std::string_view msg, std::initializer_list<Field> f = {}) { Log(Level::kWarn, msg, f); }
inline void Error(std::string_view msg, std::initializer_list<Field> f = {}) { Log(Level::kError, msg, f); }

/// A logger carrying context fields (controller name, object key, ...) added to every line.
/// Cheap to copy; `With` returns a new logger and leaves this one unchanged.
/// **Thread-safety:** const members are safe from any thread.
class Logger final {
 public:
  Logger() = default;
  /// A logger whose lines carry `logger=<name>`.
  explicit Logger(std::string name);
  /// A copy with one more context field.
  Logger With(std::string_view key, std::string value) const;

  void Log(Level level, std::string_view msg, std::initializer_list<Field> fields = {}) const;
  void Debug(std::string_view msg, std::initializer_list<Field> f = {}) const { Log(Level::kDebug, msg, f); }
  void Info(std::string_view msg, std::initializer_list<Field> f = {}) const { Log(Level::kInfo, msg, f); }
  void Warn(std::string_view msg, std::initializer_list<Field> f = {}) const { Log(Level::kWarn, msg, f); }
  void Error(std::string_view msg, std::initializer_list<Field> f = {}) const { Log(Level::kError, msg, f); }

  /// The context fields, oldest first.
  const std::vector<std::pair<std::string, std::string>>& context() const { return context_; }

 private:
  std::vector<std::pair<std::string, std::string>> context_;
};

}  // namespace kube::log
