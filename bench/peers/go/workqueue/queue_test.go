package main

import (
	"testing"
	"time"
)

// The semantics the benchmarks rely on, checked before scripts/bench times anything: a peer
// that dropped or duplicated work would make the side-by-side figures meaningless.

func TestQueueIsStingyFairAndRequeuesAtDone(t *testing.T) {
	q := newQueue()
	q.Add("a")
	q.Add("b")
	q.Add("a") // already queued: no-op
	if len(q.items) != 2 {
		t.Fatalf("queued %d items, want 2", len(q.items))
	}
	item, _ := q.Get()
	if item != "a" {
		t.Fatalf("Get = %v, want a (first added)", item)
	}
	q.Add("a") // while processing: marked dirty, queued at Done
	if len(q.items) != 1 {
		t.Fatalf("an item being processed was queued again before Done")
	}
	q.Done("a")
	if got, _ := q.Get(); got != "b" {
		t.Fatalf("Get = %v, want b", got)
	}
	if got, _ := q.Get(); got != "a" {
		t.Fatalf("Get = %v, want a (re-added while processing)", got)
	}
	q.ShutDown()
	if _, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get after ShutDown on an empty queue did not report shutdown")
	}
}

func TestDelayingQueueKeepsTheEarlierReadyTime(t *testing.T) {
	q := newDelayingQueue()
	defer q.ShutDown()
	q.AddAfter("x", time.Hour)
	q.AddAfter("x", 10*time.Millisecond)
	start := time.Now()
	got, _ := q.Get()
	if got != "x" || time.Since(start) > 5*time.Second {
		t.Fatalf("Get = %v after %v, want x after about 10 ms", got, time.Since(start))
	}
	q.Done(got)
}

func TestRateLimiters(t *testing.T) {
	r := newItemExponentialFailure(time.Millisecond, 5*time.Millisecond)
	for i, want := range []time.Duration{1, 2, 4, 5, 5} {
		if got := r.When("k"); got != want*time.Millisecond {
			t.Fatalf("When #%d = %v, want %v ms", i, got, want)
		}
	}
	if r.NumRequeues("k") != 5 {
		t.Fatalf("NumRequeues = %d, want 5", r.NumRequeues("k"))
	}
	r.Forget("k")
	if r.NumRequeues("k") != 0 || r.When("k") != time.Millisecond {
		t.Fatalf("Forget did not reset the item")
	}
	b := newBucket(10, 100)
	for i := 0; i < 100; i++ {
		if d := b.When(nil); d != 0 {
			t.Fatalf("call %d within the burst waits %v", i, d)
		}
	}
	if d := b.When(nil); d < 50*time.Millisecond || d > 150*time.Millisecond {
		t.Fatalf("the first call past the burst waits %v, want about 100 ms", d)
	}
}
