#pragma once

#include <kube/base/spin.hpp>

namespace kube::workqueue::internal {

using kube::CpuRelax;       // (kube/base/spin.hpp)
using kube::SpinMutexLock;  // (kube/base/spin.hpp)

}  // namespace kube::workqueue::internal
