#include <kube/base/log.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace kube::log {

namespace {

spdlog::level::level_enum ToSpd(Level level) {
  switch (level) {
    case Level::kTrace: return spdlog::level::trace;
    case Level::kDebug: return spdlog::level::debug;
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarn: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
    case Level::kOff: return spdlog::level::off;
  }
  return spdlog::level::info;
}

std::shared_ptr<spdlog::logger> MakeDefault() {
  auto logger = spdlog::stderr_color_mt("kubecpp");
  logger->set_pattern(Options{}.pattern, spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::info);
  return logger;
}

spdlog::logger& Get() {
  static std::shared_ptr<spdlog::logger> logger = MakeDefault();
  return *logger;
}

bool NeedsQuotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\n' || c == '\t' || c == '\\') return true;
  }
  return false;
}

void AppendValue(std::string& out, std::string_view v) {
  if (!NeedsQuotes(v)) {
    out.append(v);
    return;
  }
  out.push_back('"');
  for (char c : v) {
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\t': out.append("\\t"); break;
      default: out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

void Setup(const Options& options) {
  auto& logger = Get();
  logger.set_pattern(options.pattern, spdlog::pattern_time_type::utc);
  logger.set_level(ToSpd(options.level));
}

void SetLevel(Level level) { Get().set_level(ToSpd(level)); }

bool Enabled(Level level) { return level != Level::kOff && Get().should_log(ToSpd(level)); }

bool ParseLevel(std::string_view text, Level& out) {
  static constexpr std::pair<std::string_view, Level> kNames[] = {
      {"trace", Level::kTrace}, {"debug", Level::kDebug}, {"info", Level::kInfo},
      {"warn", Level::kWarn},   {"error", Level::kError}, {"off", Level::kOff}};
  for (const auto& [name, level] : kNames) {
    if (text == name) {
      out = level;
      return true;
    }
  }
  return false;
}

std::string Format(std::string_view msg, std::initializer_list<Field> fields,
                   const std::vector<std::pair<std::string, std::string>>& context) {
  std::string out(msg);
  for (const auto& [k, v] : context) {
    out.push_back(' ');
    out.append(k);
    out.push_back('=');
    AppendValue(out, v);
  }
  for (const auto& f : fields) {
    out.push_back(' ');
    out.append(f.key);
    out.push_back('=');
    AppendValue(out, f.value);
  }
  return out;
}

void Log(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  if (!Enabled(level)) return;
  Get().log(ToSpd(level), "{}", Format(msg, fields));
}

Logger::Logger(std::string name) { context_.emplace_back("logger", std::move(name)); }

Logger Logger::With(std::string_view key, std::string value) const {
  Logger copy = *this;
  copy.context_.emplace_back(std::string(key), std::move(value));
  return copy;
}

void Logger::Log(Level level, std::string_view msg, std::initializer_list<Field> fields) const {
  if (!Enabled(level)) return;
  Get().log(ToSpd(level), "{}", Format(msg, fields, context_));
}

}  // namespace kube::log
