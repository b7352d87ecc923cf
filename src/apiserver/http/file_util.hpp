#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include <kube/base/result.hpp>

/// Small POSIX file helpers for the files the server generates into its data dir (PKI, token,
/// kubeconfig). **Thread-safety:** safe from any thread; concurrent writers of the same path race
/// (the last rename wins, and each reader sees one complete version).
namespace kube::apiserver::internal {

/// Creates `dir` and its missing parents with `mode` (existing directories are left as they are).
/// **Errors:** 500 InternalError naming the path and errno text.
Result<void> MakeDirs(const std::string& dir, mode_t mode);

/// Writes `content` to `path` atomically: a temporary file in the same directory is written with
/// `mode`, fsynced and renamed over `path`, so that readers see the old or the new file, never a
/// partial one. Missing parent directories are created with mode 0700.
/// **Errors:** 500 InternalError naming the path and errno text.
Result<void> WriteFileAtomic(const std::string& path, std::string_view content, mode_t mode);

/// The whole content of `path`. **Errors:** 404 NotFound when it does not exist, 500 otherwise.
Result<std::string> ReadFile(const std::string& path);

/// The directory part of `path` ("a/b" for "a/b/c", "." for "c").
std::string DirName(const std::string& path);

}  // namespace kube::apiserver::internal
