// Positive control of field_misspelled.cpp: the same program with the field spelled right.
#include <kube/api/apps/v1.hpp>

int main() {
  kube::api::apps::v1::Deployment d;
  d.spec.replicas = 3;
  return d.spec.replicas == 3 ? 0 : 1;
}
