#pragma once

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

/// Test-only helpers: a temporary directory with files.
namespace kube::client::testing {

/// A fresh directory under /tmp, removed (recursively) by the destructor.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/kubecpp-client-XXXXXX";
    path_ = ::mkdtemp(tmpl) != nullptr ? tmpl : "/tmp";
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path_ + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  /// Writes `content` to `<dir>/<name>` (mode 0755 when `executable`) and returns the path.
  std::string Write(const std::string& name, const std::string& content, bool executable = false) const {
    const std::string p = path_ + "/" + name;
    {
      std::ofstream out(p, std::ios::binary | std::ios::trunc);
      out << content;
    }
    if (executable) ::chmod(p.c_str(), 0755);
    return p;
  }

 private:
  std::string path_;
};

}  // namespace kube::client::testing
