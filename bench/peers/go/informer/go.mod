module kubecpp.example/bench/informer

go 1.19
