module kubecpp.example/bench/workqueue

go 1.19
