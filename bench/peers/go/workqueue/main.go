// go_workqueue runs the workqueue benchmark shapes of bench/workqueue/workqueue_bench.cpp on
// the client-go algorithms of queue.go, so that scripts/bench can put kubecpp and client-go's
// design side by side on one machine. Output, per repetition:
//
//	== rep <r>
//	<benchmark name as in workqueue_bench> <metric>=<value> ...
//
// Usage: go_workqueue [-reps R] [-filter SUBSTRING]
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cpuSeconds is the CPU time of the whole process (all threads).
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return float64(u.Utime.Sec+u.Stime.Sec) + float64(u.Utime.Usec+u.Stime.Usec)*1e-6
}

var keyCache = map[bool][]string{}

// keys returns the first n keys: "namespace-NN/bench-object-NNNNNN" or, short, "k-NNNNNNN".
func keys(short bool, n int) []string {
	k := keyCache[short]
	for len(k) < n {
		i := len(k)
		if short {
			k = append(k, fmt.Sprintf("k-%07d", i))
		} else {
			k = append(k, fmt.Sprintf("namespace-%02d/bench-object-%06d", i%100, i))
		}
	}
	keyCache[short] = k
	return k[:n]
}

func indexOf(key string) int {
	i := 0
	for _, c := range key[len(key)-6:] {
		i = i*10 + int(c-'0')
	}
	return i
}

// startWorkers starts the benchmarks' 2 worker goroutines: each calls get until it reports
// shutdown and handle for every item. The returned function waits for both and returns how
// many items they got.
func startWorkers(get func() (interface{}, bool), handle func(item interface{})) func() int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := 0
			for {
				item, shutdown := get()
				if shutdown {
					break
				}
				handle(item)
				c++
			}
			mu.Lock()
			total += c
			mu.Unlock()
		}()
	}
	return func() int {
		wg.Wait()
		return total
	}
}

// (a) and (b): 1 producer Adds 1M distinct keys (addsPerKey times each), 2 workers Get/Done.
func producerWorkers(name string, short bool, addsPerKey int) string {
	const n = 1000000
	ks := keys(short, n)
	q := newQueue()
	cpu0 := cpuSeconds()
	t0 := time.Now()
	wait := startWorkers(q.Get, q.Done)
	for _, k := range ks {
		for r := 0; r < addsPerKey; r++ {
			q.Add(k)
		}
	}
	q.ShutDown()
	processed := wait()
	s := time.Since(t0).Seconds()
	cpu := cpuSeconds() - cpu0
	line := fmt.Sprintf("%s items_per_s=%.0f cpu_ns_per_item=%.1f", name, float64(processed)/s,
		cpu*1e9/float64(processed))
	if addsPerKey > 1 {
		line += fmt.Sprintf(" add_calls_per_s=%.0f", float64(n*addsPerKey)/s)
	}
	return line + "\n"
}

// (c): single goroutine Add/Get/Done with 1,000 items queued, warmed: ns and allocations per item.
func singleThread(name string, short bool) string {
	const nkeys, depth, warm, steps = 2048, 1000, 200000, 2000000
	ks := keys(short, nkeys)
	q := newQueue()
	next := 0
	for ; next < depth; next++ {
		q.Add(ks[next])
	}
	step := func() {
		q.Add(ks[next%nkeys])
		next++
		item, _ := q.Get()
		q.Done(item)
	}
	for i := 0; i < warm; i++ {
		step()
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	for i := 0; i < steps; i++ {
		step()
	}
	s := time.Since(t0).Seconds()
	runtime.ReadMemStats(&m1)
	return fmt.Sprintf("%s ns_per_item=%.1f allocs_per_item=%.2f\n", name, s*1e9/steps,
		float64(m1.Mallocs-m0.Mallocs)/steps)
}

// (d): RateLimitingQueue(DefaultControllerRateLimiter): 100k Add, 2 workers Get+Forget+Done.
func rateLimitingAdd(name string) string {
	const n = 100000
	ks := keys(false, n)
	q := newRateLimitingQueue(defaultControllerRateLimiter())
	cpu0 := cpuSeconds()
	t0 := time.Now()
	wait := startWorkers(q.Get, func(item interface{}) {
		q.Forget(item)
		q.Done(item)
	})
	for _, k := range ks {
		q.Add(k)
	}
	q.ShutDown()
	processed := wait()
	s := time.Since(t0).Seconds()
	return fmt.Sprintf("%s items_per_s=%.0f cpu_ns_per_item=%.1f\n", name, float64(processed)/s,
		(cpuSeconds()-cpu0)*1e9/float64(processed))
}

// (e): AddRateLimited with ItemExponentialFailure(1 ns, 1 ms), 10k items, 2 workers; each item
// re-AddRateLimited `retries` times before Forget.
func addRateLimited(name string, retries int) string {
	const n = 10000
	ks := keys(false, n)
	q := newRateLimitingQueue(newItemExponentialFailure(time.Nanosecond, time.Millisecond))
	var finished sync.WaitGroup
	finished.Add(n)
	cpu0 := cpuSeconds()
	t0 := time.Now()
	wait := startWorkers(q.Get, func(item interface{}) {
		if q.NumRequeues(item) <= retries {
			q.AddRateLimited(item) // a failure: retry later
			q.Done(item)
		} else {
			q.Forget(item)
			q.Done(item)
			finished.Done()
		}
	})
	for _, k := range ks {
		q.AddRateLimited(k)
	}
	finished.Wait()
	s := time.Since(t0).Seconds()
	q.ShutDown()
	deliveries := wait()
	return fmt.Sprintf("%s items_per_s=%.0f deliveries_per_s=%.0f cpu_ns_per_delivery=%.1f\n", name,
		float64(n)/s, float64(deliveries)/s, (cpuSeconds()-cpu0)*1e9/float64(deliveries))
}

func percentileMs(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1)+0.5)] * 1e3
}

// (f): DelayingQueue, 100k AddAfter with delays uniform in 0..100 ms; 2 workers record lateness.
func delayingLateness(name string) string {
	const n = 100000
	ks := keys(false, n)
	rng := rand.New(rand.NewSource(42))
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = time.Duration(rng.Int63n(100000001))
	}
	ready := make([]time.Time, n)
	lateness := make([]float64, n)
	q := newDelayingQueue()
	var finished sync.WaitGroup
	finished.Add(n)
	t0 := time.Now()
	wait := startWorkers(q.Get, func(item interface{}) {
		now := time.Now()
		i := indexOf(item.(string))
		lateness[i] = now.Sub(ready[i]).Seconds()
		q.Done(item)
		finished.Done()
	})
	for i := 0; i < n; i++ {
		ready[i] = time.Now().Add(delays[i])
		q.AddAfter(ks[i], delays[i])
	}
	burstEnd := time.Now()
	finished.Wait()
	q.ShutDown()
	wait()
	var after []float64
	for i := 0; i < n; i++ {
		if ready[i].After(burstEnd) {
			after = append(after, lateness[i])
		}
	}
	return fmt.Sprintf("%s addafter_calls_per_s=%.0f late_p50_ms=%.3f late_p99_ms=%.3f "+
		"after_burst_p50_ms=%.3f after_burst_p99_ms=%.3f after_burst_items=%d\n", name,
		float64(n)/burstEnd.Sub(t0).Seconds(), percentileMs(lateness, 0.5), percentileMs(lateness, 0.99),
		percentileMs(after, 0.5), percentileMs(after, 0.99), len(after))
}

func main() {
	reps := flag.Int("reps", 3, "repetitions of each benchmark, in this process")
	filter := flag.String("filter", "", "run only the benchmarks whose name contains this")
	flag.Parse()
	if *reps < 1 {
		fmt.Fprintln(os.Stderr, "go_workqueue: -reps must be at least 1")
		os.Exit(2)
	}
	benches := []struct {
		name string
		run  func(string) string
	}{
		{"BM_Queue_1MDistinctKeys_2Workers/short_keys:0", func(n string) string { return producerWorkers(n, false, 1) }},
		{"BM_Queue_1MDistinctKeys_2Workers/short_keys:1", func(n string) string { return producerWorkers(n, true, 1) }},
		{"BM_Queue_1MKeys_Added4x_2Workers", func(n string) string { return producerWorkers(n, false, 4) }},
		{"BM_Queue_SingleThread_AddGetDone/short_keys:0", func(n string) string { return singleThread(n, false) }},
		{"BM_Queue_SingleThread_AddGetDone/short_keys:1", func(n string) string { return singleThread(n, true) }},
		{"BM_RateLimitingQueue_100kAdd_2Workers", rateLimitingAdd},
		{"BM_AddRateLimited_10kItems/retries:0", func(n string) string { return addRateLimited(n, 0) }},
		{"BM_AddRateLimited_10kItems/retries:3", func(n string) string { return addRateLimited(n, 3) }},
		{"BM_DelayingQueue_100kAddAfter_Lateness", delayingLateness},
	}
	// Like Google Benchmark's --benchmark_repetitions: all repetitions of one benchmark, then
	// the next. The output is grouped by repetition for the report.
	out := make([][]string, *reps)
	for _, b := range benches {
		if !strings.Contains(b.name, *filter) {
			continue
		}
		for r := 0; r < *reps; r++ {
			line := b.run(b.name)
			fmt.Fprint(os.Stderr, line)
			out[r] = append(out[r], line)
		}
	}
	for r, lines := range out {
		fmt.Printf("== rep %d\n", r+1)
		for _, l := range lines {
			fmt.Print(l)
		}
	}
}
