#pragma once

// Helpers shared by the storage tests (test-only; not part of kube_apiserver).

#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <kube/apiserver/storage.hpp>

namespace kube::apiserver::testing {

/// A fresh directory under the test temp dir, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "kube-storage-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// `<dir>/<name>`.
  std::string File(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// A ValueFn storing `"<text>@<revision>"`, so that tests can see the revision it was given.
inline ValueFn Val(std::string text) {
  return [text = std::move(text)](Revision rev) -> Result<std::string> {
    return fmt::format("{}@{}", text, rev);
  };
}

/// The expected stored value of `Val(text)` at `rev`.
inline std::string At(std::string_view text, Revision rev) { return fmt::format("{}@{}", text, rev); }

/// Runs `fn(i)` for every i in [0, n) on `threads` threads. Bulk writes to the sqlite engine
/// then share transactions (group commit) instead of paying one fsync each.
inline void ParallelFor(int n, const std::function<void(int)>& fn, int threads = 16) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = t; i < n; i += threads) fn(i);
    });
  }
  for (auto& w : workers) w.join();
}

/// The value text, or "<null>".
inline std::string Str(const ValuePtr& v) { return v ? *v : std::string("<null>"); }

/// The keys of `items`.
inline std::vector<std::string> Keys(const std::vector<KeyValue>& items) {
  std::vector<std::string> keys;
  keys.reserve(items.size());
  for (const auto& kv : items) keys.push_back(kv.key);
  return keys;
}

}  // namespace kube::apiserver::testing
