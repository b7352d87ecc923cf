#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/base/clock.hpp>

/// kube's built-in Table printers (k8s.io/kubernetes `pkg/printers/internalversion`), ported for
/// the resources the embedded server serves.
namespace kube::apiserver::internal {

/// metav1.ObjectMeta's swagger doc of `name`, the description of every Name column.
extern const std::string_view kNameDescription;
/// metav1.ObjectMeta's swagger doc of `creationTimestamp` (Age and Created At columns).
extern const std::string_view kCreationTimestampDescription;

/// One column definition with static storage.
struct ColumnSpec {
  std::string_view name;
  std::string_view type;
  std::string_view format;
  std::string_view description;
  int32_t priority = 0;
};

/// Appends the JSON cells of one row, comma-separated (without the brackets).
class CellWriter final {
 public:
  /// Cells are appended to `out`, which must outlive the writer.
  explicit CellWriter(std::string& out) : out_(out) {}
  void String(std::string_view s);
  void Int(int64_t v);
  void Number(double v);
  void Bool(bool v);
  void Null();
  /// A JSON value given as text.
  void Raw(std::string_view json);

 private:
  void Sep();
  std::string& out_;
  bool first_ = true;
};

/// Renders one row: cells in column order into `cells`; `conditions` receives the JSON array of
/// metav1.TableRowCondition when the printer sets any (pods that completed), else stays empty.
using RowFn = void (*)(const boost::json::object& obj, Clock::WallTime now, CellWriter& cells,
                       std::string& conditions);

/// A built-in printer: its columns (priority 1 = wide) and its row function.
struct BuiltinPrinter {
  std::vector<ColumnSpec> columns;
  RowFn row = nullptr;
};

/// The pods printer's row function (printPod; in pod_printer.cpp).
void PrintPod(const boost::json::object& pod, Clock::WallTime now, CellWriter& cells,
              std::string& conditions);

/// kube's HorizontalPodAutoscaler printer (either version; hpa_csr_printers.cpp).
BuiltinPrinter HorizontalPodAutoscalerPrinter();
/// kube's CertificateSigningRequest printer (hpa_csr_printers.cpp).
BuiltinPrinter CertificateSigningRequestPrinter();

/// The printer of group/resource, or nullptr when kube has none for it among the served types.
const BuiltinPrinter* FindBuiltinPrinter(std::string_view group, std::string_view resource);

/// printers.go `translateTimestampSince`: HumanDuration(now - t) for an RFC 3339 (or MicroTime)
/// timestamp; `<unknown>` when empty or unparsable (kube's zero time).
std::string TranslateTimestampSince(std::string_view timestamp, Clock::WallTime now);

}  // namespace kube::apiserver::internal
