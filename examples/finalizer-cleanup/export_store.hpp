#pragma once
/// \file
/// Where the finalizer-cleanup example puts its external side effect: one directory of files per
/// ConfigMap, `<root>/<namespace>/<name>/<key>`. The interface is what the reconciler needs
/// (make the files match, remove them); `DirectoryStore` is the real one, tests wrap it to fail.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::examples::finalizer_cleanup {

/// What `ExportStore::Sync` changed.
struct SyncResult {
  int written = 0;  ///< files created or rewritten because their content differed
  int removed = 0;  ///< files deleted because their key is gone
  /// True when anything on disk changed.
  bool Changed() const { return written > 0 || removed > 0; }
};

/// The files exported for ConfigMaps. **Thread-safety:** implementations must allow concurrent
/// calls for different (namespace, name) pairs; the controller never runs one key twice at once.
class ExportStore {
 public:
  virtual ~ExportStore() = default;
  /// Makes the directory of `ns`/`name` hold exactly `files` (key -> content): writes each file
  /// whose content differs atomically (temp file + rename, so a reader sees the old or the new
  /// content, never a mix) and deletes files whose key is gone.
  /// **Errors:** 400 BadRequest for a namespace, name or key that is not a safe path segment
  /// (see `ValidateSegment`), before anything is written; 500 InternalError naming the path for
  /// a filesystem failure.
  virtual Result<SyncResult> Sync(std::string_view ns, std::string_view name,
                                  const std::map<std::string, std::string>& files) = 0;
  /// Removes the directory of `ns`/`name` and everything in it (and the namespace directory once
  /// it is empty). Idempotent: returns false when there was nothing to remove.
  /// **Errors:** as Sync.
  virtual Result<bool> Remove(std::string_view ns, std::string_view name) = 0;
};

/// Checks that `segment` (a namespace, name or ConfigMap key) can be used as one path component
/// without escaping its directory: 1..253 characters of `[-._a-zA-Z0-9]`, not `.` or `..`, not
/// starting with `..` (kube's ConfigMap key rules; `..`-prefixed names are reserved for the
/// store's temp files). **Errors:** 400 BadRequest saying why, naming `what` ("key", ...).
Result<void> ValidateSegment(std::string_view what, std::string_view segment);

/// The files of a real directory tree rooted at `root` (created on first write).
/// **Thread-safety:** safe for different (namespace, name) pairs.
class DirectoryStore final : public ExportStore {
 public:
  /// A store under `root` (need not exist yet).
  explicit DirectoryStore(std::filesystem::path root) : root_(std::move(root)) {}

  /// See ExportStore::Sync.
  Result<SyncResult> Sync(std::string_view ns, std::string_view name,
                          const std::map<std::string, std::string>& files) override;
  /// See ExportStore::Remove.
  Result<bool> Remove(std::string_view ns, std::string_view name) override;

  /// `<root>/<ns>/<name>` (not validated).
  std::filesystem::path DirFor(std::string_view ns, std::string_view name) const { return root_ / ns / name; }
  /// The root directory.
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace kube::examples::finalizer_cleanup
