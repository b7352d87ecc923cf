// Must not compile: a misspelled field is a compile error, not a silently read default.
#include <kube/api/apps/v1.hpp>

int main() {
  kube::api::apps::v1::Deployment d;
  d.spec.replicaz = 3;
  return 0;
}
