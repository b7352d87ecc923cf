#include "apiserver/http/file_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include <fmt/format.h>

namespace kube::apiserver::internal {
namespace {

Error ErrnoError(std::string_view what, const std::string& path, int err) {
  return InternalError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

}  // namespace

std::string DirName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Result<void> MakeDirs(const std::string& dir, mode_t mode) {
  if (dir.empty() || dir == "." || dir == "/") return Ok();
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Ok();
    return InternalError(fmt::format("create directory {}: exists and is not a directory", dir));
  }
  KUBE_RETURN_IF_ERROR(MakeDirs(DirName(dir), mode));
  if (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    return ErrnoError("create directory", dir, errno);
  }
  return Ok();
}

Result<void> WriteFileAtomic(const std::string& path, std::string_view content, mode_t mode) {
  KUBE_RETURN_IF_ERROR(MakeDirs(DirName(path), 0700));
  // A random suffix keeps two concurrent writers from sharing a temporary file.
  const std::string tmp = fmt::format("{}.tmp-{:x}", path, std::random_device{}());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("create", tmp, errno);
  // open() applies the umask; the files we write hold secrets, so set the mode exactly.
  int err = ::fchmod(fd, mode) == 0 ? 0 : errno;
  for (std::size_t done = 0; err == 0 && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno != EINTR) err = errno;
      continue;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return ErrnoError("write", path, err);
  }
  return Ok();
}

Result<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return MakeError(404, reason::kNotFound, fmt::format("{} does not exist", path));
    }
    return ErrnoError("open", path, errno);
  }
  std::string out;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoError("read", path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace kube::apiserver::internal
