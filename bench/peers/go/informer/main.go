// go_informer runs the DeltaFIFO and informer shapes of bench/cache/cache_bench.cpp on the
// client-go algorithms of cache.go, so that scripts/bench can put kubecpp and client-go's design
// side by side on one machine. It prints cache_bench's line names ("<metric> <number> [unit]").
//
// Not printed: live heap per cached object. BenchObject here has only the fields of the shape,
// not the whole of client-go's ObjectMeta, so its heap would not compare.
//
// Usage: go_informer [-n OBJECTS] [-events EVENTS]
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// benchObject builds object i of ../shared/bench/README.md at resourceVersion rv.
func benchObject(i, rv int) BenchObject {
	sum := sha256.Sum256([]byte(strconv.Itoa(i)))
	o := BenchObject{
		APIVersion: "bench.example.com/v1",
		Kind:       "BenchObject",
		ObjectMeta: ObjectMeta{
			Name:            fmt.Sprintf("bench-object-%06d", i),
			Namespace:       fmt.Sprintf("namespace-%02d", i%100),
			UID:             fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i),
			ResourceVersion: strconv.Itoa(rv),
			Labels: map[string]string{
				"app.kubernetes.io/name":      fmt.Sprintf("bench-app-%02d", i%50),
				"app.kubernetes.io/instance":  fmt.Sprintf("instance-%06d", i),
				"app.kubernetes.io/component": fmt.Sprintf("component-%d", i%5),
				"app.kubernetes.io/part-of":   "bench-suite",
				"tier":                        []string{"backend", "frontend"}[i%2],
			},
			Annotations: map[string]string{
				"bench.example.com/description": fmt.Sprintf("benchmark object number %06d used for informer memory and throughput measurement", i),
				"bench.example.com/owner":       fmt.Sprintf("team-%02d@example.com", i%20),
				"bench.example.com/checksum":    hex.EncodeToString(sum[:]),
			},
		},
	}
	for k := 0; k < 10; k++ {
		o.Spec.StringFields[k] = fmt.Sprintf("v%02d-%012d", k, i)
		o.Spec.IntFields[k] = int64(i*(k+1) + k)
		o.Spec.BoolFields[k] = (i+k)%2 == 0
	}
	return o
}

func seconds(t0, t1 time.Time) float64 { return t1.Sub(t0).Seconds() }

// popAll pops every queued key into the indexer (its newest delta), as the benchmark's
// process function does.
func popAll(fifo *DeltaFIFO, indexer *Indexer) {
	for fifo.Len() > 0 {
		_ = fifo.Pop(func(d Deltas) error {
			indexer.Add(d[len(d)-1].Object)
			return nil
		})
	}
}

func fifoAddPop(objs []*BenchObject) {
	indexer := NewIndexer()
	fifo := NewDeltaFIFO(indexer)
	n := float64(len(objs))
	t0 := time.Now()
	for _, o := range objs {
		fifo.Add(o)
	}
	t1 := time.Now()
	popAll(fifo, indexer)
	t2 := time.Now()
	fmt.Printf("deltafifo_add            %.2f M/s\n", n/seconds(t0, t1)/1e6)
	fmt.Printf("deltafifo_pop_to_indexer %.2f M/s\n", n/seconds(t1, t2)/1e6)
	fmt.Printf("deltafifo_add_plus_pop   %.2f M/s\n", n/seconds(t0, t2)/1e6)
}

func fifoReplacePop(objs []*BenchObject) {
	indexer := NewIndexer()
	fifo := NewDeltaFIFO(indexer)
	list := make([]interface{}, len(objs))
	for i, o := range objs {
		list[i] = o
	}
	n := float64(len(objs))
	t0 := time.Now()
	fifo.Replace(list, strconv.Itoa(len(objs)))
	t1 := time.Now()
	popAll(fifo, indexer)
	t2 := time.Now()
	fmt.Printf("deltafifo_replace_ms     %.1f\n", seconds(t0, t1)*1e3)
	fmt.Printf("deltafifo_replace_plus_pop %.2f M/s\n", n/seconds(t0, t2)/1e6)
}

// counter is the benchmark's handler: it counts notifications and closes `reached` when the
// count hits the target.
type counter struct {
	mu      sync.Mutex
	seen    int64
	target  int64
	reached chan struct{}
}

func (c *counter) arm(target int64) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target = target
	c.reached = make(chan struct{})
	if c.seen >= target {
		close(c.reached)
	}
	return c.reached
}

func (c *counter) count() {
	c.mu.Lock()
	c.seen++
	if c.seen == c.target {
		close(c.reached)
	}
	c.mu.Unlock()
}

func (c *counter) OnAdd(interface{})                   { c.count() }
func (c *counter) OnUpdate(oldObj, newObj interface{}) { c.count() }

func informer(n, nEvents int) {
	list := make([]BenchObject, n) // a typed list, as a fake ListWatch returns it
	for i := range list {
		list[i] = benchObject(i, i+1)
	}
	h := &counter{}
	inf := NewInformer(h)
	events := make(chan Event) // watch.NewFake: unbuffered
	t0 := time.Now()
	go inf.Run(list, strconv.Itoa(n), events)
	for !inf.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	t1 := time.Now()
	fmt.Printf("informer_sync_%dk_ms      %.1f\n", n/1000, seconds(t0, t1)*1e3)
	list = nil
	<-h.arm(int64(n)) // every initial add delivered

	delivered := int64(n)
	push := func(make func(i int) *BenchObject) float64 {
		delivered += int64(nEvents)
		reached := h.arm(delivered)
		start := time.Now()
		for i := 0; i < nEvents; i++ {
			events <- Event{Object: make(i)}
		}
		<-reached
		return float64(nEvents) / time.Since(start).Seconds() / 1e3
	}
	// Each event object built fresh, as a decoder would (client-go's 147 k/s shape).
	fresh := push(func(i int) *BenchObject {
		o := benchObject(i%n, n+1+i)
		return &o
	})
	fmt.Printf("informer_events_fresh_per_s %.0f k\n", fresh)
	prebuilt := make([]*BenchObject, nEvents)
	for i := range prebuilt {
		o := benchObject(i%n, n+1+nEvents+i)
		prebuilt[i] = &o
	}
	kps := push(func(i int) *BenchObject { return prebuilt[i] })
	fmt.Printf("informer_events_prebuilt_per_s %.0f k\n", kps)
	close(events)
}

func main() {
	n := flag.Int("n", 100000, "objects")
	nEvents := flag.Int("events", 200000, "MODIFIED events")
	flag.Parse()
	if *n < 1 || *nEvents < 1 {
		fmt.Fprintln(os.Stderr, "go_informer: -n and -events must be positive")
		os.Exit(2)
	}
	objs := make([]*BenchObject, *n)
	for i := range objs {
		o := benchObject(i, i+1)
		objs[i] = &o
	}
	fifoAddPop(objs)
	fifoReplacePop(objs)
	objs = nil
	informer(*n, *nEvents)
}
