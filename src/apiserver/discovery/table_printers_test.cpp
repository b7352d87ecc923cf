#include <kube/apiserver/table.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/core/time.hpp>

#include "apiserver/discovery/test_registry.hpp"

// The built-in printers, cell by cell, against what kube-apiserver 1.32 sends for the same
// objects (printers.go semantics).
namespace kube::apiserver {
namespace {

namespace bj = boost::json;
using testing::MustParse;

class PrinterTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::AddBuiltins(registry_); }

  // The rendered Table of one object.
  bj::value Table(std::string_view group, std::string_view resource, std::string_view json) {
    ResourcePtr info = registry_.Find(group, "v1", resource);
    EXPECT_NE(info, nullptr);
    TableOptions opts;
    opts.now = now_;
    opts.resource_version = "42";
    return bj::parse(RenderTable(*info, {MustParse(json)}, opts));
  }
  bj::value Cells(std::string_view group, std::string_view resource, std::string_view json) {
    return Table(group, resource, json).at("rows").at(0).at("cells");
  }
  std::vector<std::string> Columns(std::string_view group, std::string_view resource) {
    std::vector<std::string> out;
    const bj::value t = Table(group, resource, R"({"metadata":{"name":"x"}})");
    for (const auto& c : t.at("columnDefinitions").as_array()) {
      std::string name(c.at("name").as_string());
      if (c.at("priority").as_int64() != 0) name += "*";  // wide-only
      out.push_back(name);
    }
    return out;
  }

  Registry registry_;
  const Clock::WallTime now_ = *ParseTime("2025-01-01T00:10:00Z");
};

TEST_F(PrinterTest, ColumnsMatchKubectlGetHeaders) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Columns("", "pods"), (V{"Name", "Ready", "Status", "Restarts", "Age", "IP*", "Node*",
                                    "Nominated Node*", "Readiness Gates*"}));
  EXPECT_EQ(Columns("", "namespaces"), (V{"Name", "Status", "Age"}));
  EXPECT_EQ(Columns("", "configmaps"), (V{"Name", "Data", "Age"}));
  EXPECT_EQ(Columns("", "secrets"), (V{"Name", "Type", "Data", "Age"}));
  EXPECT_EQ(Columns("", "events"), (V{"Last Seen", "Type", "Reason", "Object", "Subobject*", "Source*",
                                      "Message", "First Seen*", "Count*", "Name*"}));
  EXPECT_EQ(Columns("events.k8s.io", "events"), Columns("", "events"));
  EXPECT_EQ(Columns("", "services"), (V{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age",
                                        "Selector*"}));
  EXPECT_EQ(Columns("", "serviceaccounts"), (V{"Name", "Secrets", "Age"}));
  EXPECT_EQ(Columns("", "nodes"), (V{"Name", "Status", "Roles", "Age", "Version", "Internal-IP*",
                                     "External-IP*", "OS-Image*", "Kernel-Version*", "Container-Runtime*"}));
  EXPECT_EQ(Columns("apps", "deployments"), (V{"Name", "Ready", "Up-to-date", "Available", "Age",
                                               "Containers*", "Images*", "Selector*"}));
  EXPECT_EQ(Columns("apps", "replicasets"), (V{"Name", "Desired", "Current", "Ready", "Age",
                                               "Containers*", "Images*", "Selector*"}));
  EXPECT_EQ(Columns("coordination.k8s.io", "leases"), (V{"Name", "Holder", "Age"}));
}

TEST_F(PrinterTest, NameColumnIsFormattedAsName) {
  const bj::value t = Table("", "pods", R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(t.at("columnDefinitions").at(0),
            bj::parse(R"({"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names","priority":0})"));
  EXPECT_EQ(t.at("columnDefinitions").at(4).at("type"), "string");  // Age is a server-rendered string
}

// ---- Pods

constexpr std::string_view kRunningPod = R"({
  "apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web-1","namespace":"default","uid":"u1","resourceVersion":"17","creationTimestamp":"2025-01-01T00:00:00Z"},
  "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.27"},{"name":"sidecar","image":"envoy:1.30"}]},
  "status":{"phase":"Running","podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"},{"ip":"fd00::7"}],
    "conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"False"}],
    "containerStatuses":[
      {"name":"app","ready":true,"restartCount":3,"state":{"running":{"startedAt":"2025-01-01T00:06:00Z"}},
       "lastState":{"terminated":{"exitCode":1,"finishedAt":"2025-01-01T00:05:00Z"}}},
      {"name":"sidecar","ready":false,"restartCount":0,"state":{"running":{}}}]}})";

TEST_F(PrinterTest, RunningPodShowsReadyRestartsWithLastRestartAgeAndWideColumns) {
  EXPECT_EQ(Cells("", "pods", kRunningPod),
            bj::parse(R"j(["web-1","1/2","Running","3 (5m ago)","10m","10.0.0.7","node-1","<none>","<none>"])j"));
}

TEST_F(PrinterTest, FreshPendingPodWithoutStatus) {
  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p","creationTimestamp":"2025-01-01T00:09:50Z"},
                                   "spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Pending"}})"),
            bj::parse(R"(["p","0/1","Pending","0","10s","<none>","<none>","<none>","<none>"])"));
}

TEST_F(PrinterTest, WaitingReasonWinsAndCrashLoopIsShown) {
  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p","creationTimestamp":"2025-01-01T00:00:00Z"},
      "spec":{"containers":[{"name":"c"}]},
      "status":{"phase":"Running","containerStatuses":[{"name":"c","ready":false,"restartCount":5,
        "state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":2,"finishedAt":"2025-01-01T00:09:30Z"}}}]}})")
                .at(2),
            "CrashLoopBackOff");
}

TEST_F(PrinterTest, InitContainersReportProgress) {
  constexpr std::string_view kPod = R"({"metadata":{"name":"p","creationTimestamp":"2025-01-01T00:00:00Z"},
      "spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"c"}]},
      "status":{"phase":"Pending","initContainerStatuses":[
        {"name":"i1","restartCount":0,"state":{"terminated":{"exitCode":0}}},
        {"name":"i2","restartCount":1,"state":{"running":{}}}],
        "containerStatuses":[{"name":"c","state":{"waiting":{"reason":"PodInitializing"}}}]}})";
  // i2 is running: Init:1/2; the app container's PodInitializing is not looked at.
  EXPECT_EQ(Cells("", "pods", kPod), bj::parse(R"(["p","0/1","Init:1/2","1","10m","<none>","<none>","<none>","<none>"])"));

  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p"},"spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"c"}]},
      "status":{"phase":"Pending","initContainerStatuses":[{"name":"i","state":{"terminated":{"exitCode":3}}}]}})")
                .at(2),
            "Init:ExitCode:3");
  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p"},"spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"c"}]},
      "status":{"phase":"Pending","initContainerStatuses":[{"name":"i","state":{"waiting":{"reason":"ImagePullBackOff"}}}]}})")
                .at(2),
            "Init:ImagePullBackOff");
}

TEST_F(PrinterTest, RestartableInitContainersCountAsContainers) {
  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p"},
      "spec":{"initContainers":[{"name":"proxy","restartPolicy":"Always"}],"containers":[{"name":"c"}]},
      "status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"}],
        "initContainerStatuses":[{"name":"proxy","started":true,"ready":true,"restartCount":2,"state":{"running":{}}}],
        "containerStatuses":[{"name":"c","ready":true,"restartCount":1,"state":{"running":{}}}]}})")
                .as_array(),
            bj::parse(R"(["p","2/2","Running","3","<unknown>","<none>","<none>","<none>","<none>"])"));
}

TEST_F(PrinterTest, CompletedPodsCarryTheCompletedRowCondition) {
  const bj::value t = Table("", "pods", R"({"metadata":{"name":"job-x"},"spec":{"containers":[{"name":"c"}]},
      "status":{"phase":"Succeeded","containerStatuses":[{"name":"c","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})");
  EXPECT_EQ(t.at("rows").at(0).at("cells").at(2), "Completed");
  EXPECT_EQ(t.at("rows").at(0).at("conditions"),
            bj::parse(R"([{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}])"));
  const bj::value running = Table("", "pods", kRunningPod);
  EXPECT_FALSE(running.at("rows").at(0).as_object().contains("conditions"));
}

TEST_F(PrinterTest, DeletedPodIsTerminatingAndReadinessGatesAreCounted) {
  EXPECT_EQ(Cells("", "pods", R"({"metadata":{"name":"p","deletionTimestamp":"2025-01-01T00:09:00Z"},
      "spec":{"containers":[{"name":"c"}],"readinessGates":[{"conditionType":"a"},{"conditionType":"b"}]},
      "status":{"phase":"Running","conditions":[{"type":"a","status":"True"},{"type":"b","status":"False"}]}})"),
            bj::parse(R"(["p","0/1","Terminating","0","<unknown>","<none>","<none>","<none>","1/2"])"));
}

// ---- apps

constexpr std::string_view kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"default","creationTimestamp":"2024-12-30T20:00:00Z","generation":2},
  "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"fe"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"},{"name":"log","image":"fluentbit:3"}]}}},
  "status":{"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}})";

TEST_F(PrinterTest, DeploymentReadyUpToDateAvailableAndWide) {
  EXPECT_EQ(Cells("apps", "deployments", kDeployment),
            bj::parse(R"(["web","2/3",3,2,"28h","nginx,log","nginx:1.27,fluentbit:3","app=web,tier=fe"])"));
}

TEST_F(PrinterTest, DeploymentDefaultsAndSelectorExpressions) {
  EXPECT_EQ(Cells("apps", "deployments", R"({"metadata":{"name":"d","creationTimestamp":"2025-01-01T00:00:00Z"},
      "spec":{"selector":{"matchExpressions":[{"key":"tier","operator":"In","values":["web","api"]},{"key":"canary","operator":"DoesNotExist"}]},
        "template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}})"),
            bj::parse(R"j(["d","0/1",0,0,"10m","c","i","!canary,tier in (api,web)"])j"));
}

TEST_F(PrinterTest, ReplicaSetDesiredCurrentReady) {
  EXPECT_EQ(Cells("apps", "replicasets", R"({"metadata":{"name":"web-5d8f","creationTimestamp":"2024-12-25T00:10:00Z"},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web","pod-template-hash":"5d8f"}},
        "template":{"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}},
      "status":{"replicas":2,"readyReplicas":1}})"),
            bj::parse(R"(["web-5d8f",2,2,1,"7d","nginx","nginx","app=web,pod-template-hash=5d8f"])"));
  EXPECT_EQ(Cells("apps", "replicasets", R"({"metadata":{"name":"r"},"spec":{"selector":{}}})").at(7), "<none>");
}

// ---- Events

TEST_F(PrinterTest, CoreEventColumns) {
  EXPECT_EQ(Cells("", "events", R"({"apiVersion":"v1","kind":"Event",
      "metadata":{"name":"web-1.17f3a","namespace":"default","creationTimestamp":"2025-01-01T00:00:00Z"},
      "involvedObject":{"kind":"Pod","name":"web-1","namespace":"default","fieldPath":"spec.containers{app}"},
      "reason":"BackOff","message":"Back-off restarting failed container\n","type":"Warning",
      "source":{"component":"kubelet","host":"node-1"},
      "firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-01T00:09:00Z","count":7})"),
            bj::parse(R"(["60s","Warning","BackOff","pod/web-1","spec.containers{app}","kubelet, node-1",
                          "Back-off restarting failed container","10m",7,"web-1.17f3a"])"));
}

TEST_F(PrinterTest, NewStyleEventUsesEventTimeSeriesAndReportingController) {
  // A core/v1 view of an event created through events.k8s.io: no first/lastTimestamp or count.
  EXPECT_EQ(Cells("", "events", R"({"metadata":{"name":"e"},"involvedObject":{"kind":"Node"},"type":"Normal",
      "reason":"Ready","message":"m","eventTime":"2025-01-01T00:07:59.500000Z","reportingComponent":"ctrl",
      "reportingInstance":"ctrl-abc"})"),
            bj::parse(R"(["2m","Normal","Ready","node","","ctrl, ctrl-abc","m","2m",1,"e"])"));
  EXPECT_EQ(Cells("events.k8s.io", "events", R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
      "metadata":{"name":"e2"},"regarding":{"kind":"Deployment","name":"web"},"note":" scaled ",
      "type":"Normal","reason":"ScalingReplicaSet","eventTime":"2025-01-01T00:00:00.000000Z",
      "reportingController":"deployment-controller","reportingInstance":"",
      "series":{"count":4,"lastObservedTime":"2025-01-01T00:09:58.000000Z"}})"),
            bj::parse(R"(["2s","Normal","ScalingReplicaSet","deployment/web","","deployment-controller","scaled","10m",4,"e2"])"));
}

// ---- Other core kinds

TEST_F(PrinterTest, NamespaceConfigMapSecretServiceAccountLease) {
  EXPECT_EQ(Cells("", "namespaces", R"({"metadata":{"name":"default","creationTimestamp":"2025-01-01T00:00:00Z"},"status":{"phase":"Active"}})"),
            bj::parse(R"(["default","Active","10m"])"));
  EXPECT_EQ(Cells("", "configmaps", R"({"metadata":{"name":"cfg","creationTimestamp":"2025-01-01T00:00:00Z"},"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}})"),
            bj::parse(R"(["cfg",3,"10m"])"));
  EXPECT_EQ(Cells("", "configmaps", R"({"metadata":{"name":"empty"}})"), bj::parse(R"(["empty",0,"<unknown>"])"));
  EXPECT_EQ(Cells("", "secrets", R"({"metadata":{"name":"tls","creationTimestamp":"2025-01-01T00:00:00Z"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}})"),
            bj::parse(R"(["tls","kubernetes.io/tls",2,"10m"])"));
  EXPECT_EQ(Cells("", "secrets", R"({"metadata":{"name":"s"},"stringData":{"a":"x","b":"y"},"data":{"a":"eA=="}})"),
            bj::parse(R"(["s","Opaque",2,"<unknown>"])"));
  EXPECT_EQ(Cells("", "serviceaccounts", R"({"metadata":{"name":"default","creationTimestamp":"2025-01-01T00:00:00Z"}})"),
            bj::parse(R"(["default",0,"10m"])"));
  EXPECT_EQ(Cells("coordination.k8s.io", "leases", R"({"metadata":{"name":"lock","creationTimestamp":"2025-01-01T00:09:59Z"},
      "spec":{"holderIdentity":"pod-a_1234","leaseDurationSeconds":15}})"),
            bj::parse(R"(["lock","pod-a_1234","1s"])"));
}

TEST_F(PrinterTest, ServicesByType) {
  EXPECT_EQ(Cells("", "services", R"({"metadata":{"name":"web","creationTimestamp":"2025-01-01T00:00:00Z"},
      "spec":{"type":"ClusterIP","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"selector":{"app":"web","tier":"fe"},
        "ports":[{"port":80,"protocol":"TCP","targetPort":8080},{"port":53,"protocol":"UDP"}]}})"),
            bj::parse(R"(["web","ClusterIP","10.96.0.10","<none>","80/TCP,53/UDP","10m","app=web,tier=fe"])"));
  EXPECT_EQ(Cells("", "services", R"({"metadata":{"name":"np"},"spec":{"type":"NodePort","clusterIPs":["10.96.1.1"],
        "ports":[{"port":80,"nodePort":30080}]}})"),
            bj::parse(R"(["np","NodePort","10.96.1.1","<none>","80:30080/TCP","<unknown>","<none>"])"));
  EXPECT_EQ(Cells("", "services", R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","clusterIPs":["10.96.1.2"],"ports":[{"port":443}]}})").at(3),
            "<pending>");
  EXPECT_EQ(Cells("", "services", R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","clusterIPs":["10.96.1.2"],"ports":[{"port":443}]},
        "status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"},{"hostname":"lb.example.com"}]}}})").at(3),
            "1.2.3.4,lb.example.com");
  EXPECT_EQ(Cells("", "services", R"({"metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"db.example.com"}})"),
            bj::parse(R"(["ext","ExternalName","<none>","db.example.com","<none>","<unknown>","<none>"])"));
}

TEST_F(PrinterTest, NodeStatusRolesAndSystemInfo) {
  EXPECT_EQ(Cells("", "nodes", R"j({"metadata":{"name":"node-1","creationTimestamp":"2024-12-01T00:00:00Z",
        "labels":{"node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/worker":"","kubernetes.io/role":"infra"}},
      "spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
        "addresses":[{"type":"InternalIP","address":"192.168.1.10"},{"type":"Hostname","address":"node-1"}],
        "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"Debian GNU/Linux 12 (bookworm)","kernelVersion":"6.1.0","containerRuntimeVersion":"containerd://1.7.0"}}})j"),
            bj::parse(R"j(["node-1","Ready,SchedulingDisabled","control-plane,infra,worker","31d","v1.32.0",
                          "192.168.1.10","<none>","Debian GNU/Linux 12 (bookworm)","6.1.0","containerd://1.7.0"])j"));
  EXPECT_EQ(Cells("", "nodes", R"({"metadata":{"name":"n"}})"),
            bj::parse(R"(["n","Unknown","<none>","<unknown>","","<none>","<none>","<unknown>","<unknown>","<unknown>"])"));
}

}  // namespace
}  // namespace kube::apiserver
