// The algorithms of client-go v0.26's util/workqueue (Type, delayingType, rateLimitingType and
// the rate limiters), re-implemented from their documented behaviour for side-by-side timing on
// the machine that runs kubecpp's benchmarks: Debian's Go 1.19 is installable there, client-go's
// module is not (no module proxy). Only what the benchmark shapes of ../shared/bench/README.md
// use is here; no metrics (client-go's default provider is a no-op).
package main

import (
	"container/heap"
	"math"
	"sync"
	"time"
)

type empty struct{}
type set map[interface{}]empty

// queue is workqueue.Type: a slice FIFO, a dirty set, a processing set and one sync.Cond.
type queue struct {
	items        []interface{}
	dirty        set
	processing   set
	cond         *sync.Cond
	shuttingDown bool
}

func newQueue() *queue {
	return &queue{dirty: set{}, processing: set{}, cond: sync.NewCond(&sync.Mutex{})}
}

func (q *queue) Add(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.dirty[item] = empty{}
	if _, ok := q.processing[item]; ok {
		return
	}
	q.items = append(q.items, item)
	q.cond.Signal()
}

func (q *queue) Get() (interface{}, bool) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	for len(q.items) == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return nil, true
	}
	item := q.items[0]
	q.items[0] = nil // no memory leak through the slice's backing array
	q.items = q.items[1:]
	q.processing[item] = empty{}
	delete(q.dirty, item)
	return item, false
}

func (q *queue) Done(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.items = append(q.items, item)
		q.cond.Signal()
	} else if len(q.processing) == 0 {
		q.cond.Signal() // wakes a ShutDownWithDrain
	}
}

func (q *queue) ShutDown() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.shuttingDown = true
	q.cond.Broadcast()
}

func (q *queue) ShuttingDown() bool {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return q.shuttingDown
}

// waitFor is one AddAfter waiting in the delaying queue's heap.
type waitFor struct {
	data    interface{}
	readyAt time.Time
	index   int
}

type waitForHeap []*waitFor

func (h waitForHeap) Len() int            { return len(h) }
func (h waitForHeap) Less(i, j int) bool  { return h[i].readyAt.Before(h[j].readyAt) }
func (h waitForHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *waitForHeap) Push(x interface{}) { e := x.(*waitFor); e.index = len(*h); *h = append(*h, e) }
func (h *waitForHeap) Pop() interface{} {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// delayingQueue is delayingType: AddAfter sends to a channel of 1,000 entries read by one
// waiting loop, which keeps a heap and a map (an item already waiting keeps the earlier time)
// and wakes on the earliest ready time, on new entries, and on a 10 s heartbeat.
type delayingQueue struct {
	*queue
	stop       chan struct{}
	stopOnce   sync.Once
	waitingFor chan *waitFor
}

func newDelayingQueue() *delayingQueue {
	q := &delayingQueue{queue: newQueue(), stop: make(chan struct{}), waitingFor: make(chan *waitFor, 1000)}
	go q.waitingLoop()
	return q
}

func (q *delayingQueue) ShutDown() {
	q.stopOnce.Do(func() {
		q.queue.ShutDown()
		close(q.stop)
	})
}

func (q *delayingQueue) AddAfter(item interface{}, d time.Duration) {
	if q.ShuttingDown() {
		return
	}
	if d <= 0 {
		q.Add(item)
		return
	}
	select {
	case <-q.stop:
	case q.waitingFor <- &waitFor{data: item, readyAt: time.Now().Add(d)}:
	}
}

func (q *delayingQueue) waitingLoop() {
	never := make(<-chan time.Time)
	var timer *time.Timer
	heartbeat := time.NewTicker(10 * time.Second)
	defer heartbeat.Stop()
	waiting := &waitForHeap{}
	heap.Init(waiting)
	byData := map[interface{}]*waitFor{}
	insert := func(e *waitFor) {
		if old, ok := byData[e.data]; ok {
			if old.readyAt.After(e.readyAt) {
				old.readyAt = e.readyAt
				heap.Fix(waiting, old.index)
			}
			return
		}
		heap.Push(waiting, e)
		byData[e.data] = e
	}
	for {
		if q.ShuttingDown() {
			return
		}
		now := time.Now()
		for waiting.Len() > 0 {
			e := (*waiting)[0]
			if e.readyAt.After(now) {
				break
			}
			e = heap.Pop(waiting).(*waitFor)
			q.Add(e.data)
			delete(byData, e.data)
		}
		next := never
		if waiting.Len() > 0 {
			if timer != nil {
				timer.Stop()
			}
			timer = time.NewTimer((*waiting)[0].readyAt.Sub(now))
			next = timer.C
		}
		select {
		case <-q.stop:
			return
		case <-heartbeat.C:
		case <-next:
		case e := <-q.waitingFor:
			if e.readyAt.After(time.Now()) {
				insert(e)
			} else {
				q.Add(e.data)
			}
			for drained := false; !drained; {
				select {
				case e := <-q.waitingFor:
					if e.readyAt.After(time.Now()) {
						insert(e)
					} else {
						q.Add(e.data)
					}
				default:
					drained = true
				}
			}
		}
	}
}

type rateLimiter interface {
	When(item interface{}) time.Duration
	Forget(item interface{})
	NumRequeues(item interface{}) int
}

// itemExponentialFailure: base * 2^failures, capped at max; per-item failure counts.
type itemExponentialFailure struct {
	mu        sync.Mutex
	failures  map[interface{}]int
	baseDelay time.Duration
	maxDelay  time.Duration
}

func newItemExponentialFailure(base, max time.Duration) *itemExponentialFailure {
	return &itemExponentialFailure{failures: map[interface{}]int{}, baseDelay: base, maxDelay: max}
}

func (r *itemExponentialFailure) When(item interface{}) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := r.failures[item]
	r.failures[item]++
	backoff := float64(r.baseDelay.Nanoseconds()) * math.Pow(2, float64(exp))
	if backoff > math.MaxInt64 {
		return r.maxDelay
	}
	if d := time.Duration(backoff); d <= r.maxDelay {
		return d
	}
	return r.maxDelay
}

func (r *itemExponentialFailure) NumRequeues(item interface{}) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

func (r *itemExponentialFailure) Forget(item interface{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// bucket is a token bucket (golang.org/x/time/rate's Reserve().Delay()): `limit` tokens per
// second up to `burst`; a reservation may take the balance negative and waits it out.
type bucket struct {
	mu     sync.Mutex
	limit  float64
	burst  float64
	tokens float64
	last   time.Time
}

func newBucket(qps float64, burst int) *bucket {
	return &bucket{limit: qps, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

func (b *bucket) When(interface{}) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = math.Min(b.burst, b.tokens+elapsed.Seconds()*b.limit)
		b.last = now
	}
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.limit * float64(time.Second))
}
func (b *bucket) Forget(interface{})          {}
func (b *bucket) NumRequeues(interface{}) int { return 0 }

// maxOf waits for the longest of its limiters.
type maxOf []rateLimiter

func (m maxOf) When(item interface{}) time.Duration {
	var d time.Duration
	for _, l := range m {
		if w := l.When(item); w > d {
			d = w
		}
	}
	return d
}

func (m maxOf) NumRequeues(item interface{}) int {
	n := 0
	for _, l := range m {
		if r := l.NumRequeues(item); r > n {
			n = r
		}
	}
	return n
}

func (m maxOf) Forget(item interface{}) {
	for _, l := range m {
		l.Forget(item)
	}
}

// defaultControllerRateLimiter: 5 ms .. 1000 s per item, and 10 qps with a burst of 100 overall.
func defaultControllerRateLimiter() rateLimiter {
	return maxOf{newItemExponentialFailure(5*time.Millisecond, 1000*time.Second), newBucket(10, 100)}
}

type rateLimitingQueue struct {
	*delayingQueue
	limiter rateLimiter
}

func newRateLimitingQueue(l rateLimiter) *rateLimitingQueue {
	return &rateLimitingQueue{delayingQueue: newDelayingQueue(), limiter: l}
}

func (q *rateLimitingQueue) AddRateLimited(item interface{}) { q.AddAfter(item, q.limiter.When(item)) }
func (q *rateLimitingQueue) Forget(item interface{})         { q.limiter.Forget(item) }
func (q *rateLimitingQueue) NumRequeues(item interface{}) int {
	return q.limiter.NumRequeues(item)
}
