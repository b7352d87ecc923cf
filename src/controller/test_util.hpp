#pragma once
// Helpers of the controller unit tests.

#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <kube/controller/event.hpp>
#include <kube/core/object.hpp>

namespace kube::controller::testing {

/// Parses `json` (asserting success).
inline ObjectPtr Obj(std::string_view json) {
  auto o = Object::Parse(json);
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  return o.ok() ? *o : nullptr;
}

/// Drains whatever is queued now (Get would block on an empty queue, so Len bounds the loop).
inline std::set<std::string> Drain(Queue& queue) {
  std::set<std::string> out;
  while (queue.Len() > 0) {
    auto item = queue.Get();
    if (!item) break;
    out.insert(item->String());
    queue.Done(*item);
  }
  return out;
}

}  // namespace kube::controller::testing
