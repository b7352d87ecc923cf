#include <kube/api/time.hpp>

#include <kube/core/time.hpp>

namespace kube::api {

Time Time::Now() { return Time{TruncateToSecond(std::chrono::system_clock::now())}; }

MicroTime MicroTime::Now() { return MicroTime{TruncateToMicrosecond(std::chrono::system_clock::now())}; }

}  // namespace kube::api
