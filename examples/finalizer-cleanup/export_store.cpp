#include "export_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

namespace kube::examples::finalizer_cleanup {
namespace {

namespace fs = std::filesystem;

// Temp files start with "..", which no valid key does, so they never collide with an export.
constexpr std::string_view kTempPrefix = "..tmp-";

Error FsError(const fs::path& path, std::string_view op, const std::error_code& ec) {
  return InternalError(std::string(op) + " " + path.string() + ": " + ec.message());
}

Error ErrnoError(const fs::path& path, std::string_view op) {
  return FsError(path, op, std::error_code(errno, std::generic_category()));
}

// The content of `path`, or nullopt when it does not exist or is not a regular file.
std::optional<std::string> ReadIfExists(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `content` to a temp file next to `path`, fsyncs it and renames it over `path`.
Result<void> WriteAtomically(const fs::path& path, std::string_view content) {
  std::string tmpl = (path.parent_path() / (std::string(kTempPrefix) + path.filename().string() + "-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return ErrnoError(tmpl, "create");
  const fs::path tmp = tmpl;
  auto fail = [&](std::string_view op) {
    Error e = ErrnoError(tmp, op);
    ::close(fd);
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return e;
  };
  for (std::size_t off = 0; off < content.size();) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    off += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) return fail("chmod");
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    Error e = ErrnoError(tmp, "close");
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return e;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return FsError(path, "rename", ec);
  }
  return Ok();
}

}  // namespace

Result<void> ValidateSegment(std::string_view what, std::string_view segment) {
  const std::string quoted = std::string(what) + " \"" + std::string(segment) + "\"";
  if (segment.empty()) return BadRequest(std::string(what) + " must not be empty");
  if (segment.size() > 253) return BadRequest(quoted + ": must be no more than 253 characters");
  if (segment == "." || segment == "..") return BadRequest(quoted + ": must not be '.' or '..'");
  if (segment.starts_with("..")) return BadRequest(quoted + ": must not start with '..'");
  for (const char c : segment) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) return BadRequest(quoted + ": must consist of alphanumeric characters, '-', '_' or '.'");
  }
  return Ok();
}

Result<SyncResult> DirectoryStore::Sync(std::string_view ns, std::string_view name,
                                        const std::map<std::string, std::string>& files) {
  KUBE_RETURN_IF_ERROR(ValidateSegment("namespace", ns));
  KUBE_RETURN_IF_ERROR(ValidateSegment("name", name));
  for (const auto& [key, content] : files) KUBE_RETURN_IF_ERROR(ValidateSegment("key", key));

  const fs::path dir = DirFor(ns, name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return FsError(dir, "mkdir", ec);

  SyncResult result;
  for (const auto& [key, content] : files) {
    const fs::path path = dir / key;
    if (ReadIfExists(path) == content) continue;
    KUBE_RETURN_IF_ERROR(WriteAtomically(path, content));
    ++result.written;
  }
  // Files whose key is gone, and temp files a crash left behind.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (files.contains(file)) continue;
    const bool stale_temp = file.starts_with(kTempPrefix);
    fs::remove_all(it->path(), ec);
    if (ec) return FsError(it->path(), "remove", ec);
    if (!stale_temp) ++result.removed;
  }
  if (ec) return FsError(dir, "list", ec);
  return result;
}

Result<bool> DirectoryStore::Remove(std::string_view ns, std::string_view name) {
  KUBE_RETURN_IF_ERROR(ValidateSegment("namespace", ns));
  KUBE_RETURN_IF_ERROR(ValidateSegment("name", name));
  const fs::path dir = DirFor(ns, name);
  std::error_code ec;
  const auto removed = fs::remove_all(dir, ec);
  if (ec) return FsError(dir, "remove", ec);
  // The namespace directory goes when its last export does (fails harmlessly when not empty).
  fs::remove(dir.parent_path(), ec);
  return removed != 0 && removed != static_cast<std::uintmax_t>(-1);
}

}  // namespace kube::examples::finalizer_cleanup
