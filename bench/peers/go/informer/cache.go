// The algorithms of client-go v0.26's tools/cache that the informer benchmarks of
// ../shared/bench/README.md exercise, re-implemented from their documented behaviour for
// side-by-side timing on the machine that runs kubecpp's benchmarks (client-go's module cannot
// be fetched there): DeltaFIFO (items map + key queue + one sync.Cond, dedup of trailing
// deletes, Replace with DeletedFinalStateUnknown for known keys missing from the list),
// threadSafeMap with index functions, and a sharedIndexInformer reduced to what a benchmark
// sees: a list-then-watch loop into the DeltaFIFO, HandleDeltas into the indexer, and
// processorListeners with an unbuffered add channel, a growing ring buffer and a run goroutine.
package main

import (
	"errors"
	"sync"
	"time"
)

// ---------------------------------------------------------------- objects

type ObjectMeta struct {
	Name            string
	Namespace       string
	UID             string
	ResourceVersion string
	Labels          map[string]string
	Annotations     map[string]string
}

type BenchSpec struct {
	StringFields [10]string
	IntFields    [10]int64
	BoolFields   [10]bool
}

// BenchObject is the typed shape of ../shared/bench/README.md.
type BenchObject struct {
	APIVersion string
	Kind       string
	ObjectMeta
	Spec BenchSpec
}

func metaNamespaceKey(obj interface{}) string {
	switch o := obj.(type) {
	case *BenchObject:
		if o.Namespace == "" {
			return o.Name
		}
		return o.Namespace + "/" + o.Name
	case DeletedFinalStateUnknown:
		return o.Key
	}
	panic("unexpected object type")
}

// ---------------------------------------------------------------- DeltaFIFO

type DeltaType string

const (
	Added    DeltaType = "Added"
	Updated  DeltaType = "Updated"
	Deleted  DeltaType = "Deleted"
	Replaced DeltaType = "Replaced"
	Sync     DeltaType = "Sync"
)

type Delta struct {
	Type   DeltaType
	Object interface{}
}

type Deltas []Delta

type DeletedFinalStateUnknown struct {
	Key string
	Obj interface{}
}

var errClosed = errors.New("DeltaFIFO: closed")

type DeltaFIFO struct {
	lock                   sync.RWMutex
	cond                   sync.Cond
	items                  map[string]Deltas
	queue                  []string
	populated              bool
	initialPopulationCount int
	knownObjects           *Indexer
	emitDeltaTypeReplaced  bool
	closed                 bool
}

func NewDeltaFIFO(known *Indexer) *DeltaFIFO {
	f := &DeltaFIFO{items: map[string]Deltas{}, knownObjects: known, emitDeltaTypeReplaced: true}
	f.cond.L = &f.lock
	return f
}

func (f *DeltaFIFO) HasSynced() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.populated && f.initialPopulationCount == 0
}

func (f *DeltaFIFO) Len() int {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return len(f.queue)
}

func (f *DeltaFIFO) Add(obj interface{}) {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	f.queueActionLocked(Added, obj)
}

func (f *DeltaFIFO) Update(obj interface{}) {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	f.queueActionLocked(Updated, obj)
}

func (f *DeltaFIFO) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

func dedupDeltas(deltas Deltas) Deltas {
	n := len(deltas)
	if n < 2 {
		return deltas
	}
	a, b := &deltas[n-1], &deltas[n-2]
	if a.Type == Deleted && b.Type == Deleted {
		out := b
		if _, unknown := b.Object.(DeletedFinalStateUnknown); unknown {
			out = a
		}
		deltas[n-2] = *out
		return deltas[:n-1]
	}
	return deltas
}

func (f *DeltaFIFO) queueActionLocked(t DeltaType, obj interface{}) {
	id := metaNamespaceKey(obj)
	old := f.items[id]
	deltas := dedupDeltas(append(old, Delta{t, obj}))
	if _, exists := f.items[id]; !exists {
		f.queue = append(f.queue, id)
	}
	f.items[id] = deltas
	f.cond.Broadcast()
}

// Pop blocks until an item is queued, removes it and calls process with its deltas under the
// lock, as client-go does.
func (f *DeltaFIFO) Pop(process func(Deltas) error) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	for {
		for len(f.queue) == 0 {
			if f.closed {
				return errClosed
			}
			f.cond.Wait()
		}
		id := f.queue[0]
		f.queue = f.queue[1:]
		depth := len(f.queue)
		if f.initialPopulationCount > 0 {
			f.initialPopulationCount--
		}
		item, ok := f.items[id]
		if !ok {
			continue
		}
		delete(f.items, id)
		if depth > 10 {
			// client-go starts a utiltrace.Trace here (logged when processing takes > 100 ms).
			trace := &struct {
				name  string
				start time.Time
			}{"DeltaFIFO Pop Process", time.Now()}
			defer func() {
				if time.Since(trace.start) > 100*time.Millisecond {
					println(trace.name, "took long")
				}
			}()
		}
		return process(item)
	}
}

func (f *DeltaFIFO) Replace(list []interface{}, resourceVersion string) {
	f.lock.Lock()
	defer f.lock.Unlock()
	keys := make(map[string]struct{}, len(list))
	action := Sync
	if f.emitDeltaTypeReplaced {
		action = Replaced
	}
	for _, item := range list {
		keys[metaNamespaceKey(item)] = struct{}{}
		f.queueActionLocked(action, item)
	}
	queuedDeletions := 0
	for _, k := range f.knownObjects.ListKeys() {
		if _, ok := keys[k]; ok {
			continue
		}
		obj, exists := f.knownObjects.GetByKey(k)
		if !exists {
			continue
		}
		queuedDeletions++
		f.queueActionLocked(Deleted, DeletedFinalStateUnknown{k, obj})
	}
	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(keys) + queuedDeletions
	}
}

// ---------------------------------------------------------------- Indexer (threadSafeMap)

type IndexFunc func(obj interface{}) ([]string, error)

func metaNamespaceIndexFunc(obj interface{}) ([]string, error) {
	return []string{obj.(*BenchObject).Namespace}, nil
}

type Indexer struct {
	lock     sync.RWMutex
	items    map[string]interface{}
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]struct{}
}

func NewIndexer() *Indexer {
	return &Indexer{items: map[string]interface{}{},
		indexers: map[string]IndexFunc{"namespace": metaNamespaceIndexFunc},
		indices:  map[string]map[string]map[string]struct{}{}}
}

func (c *Indexer) Add(obj interface{}) { c.Update(obj) }
func (c *Indexer) Update(obj interface{}) {
	key := metaNamespaceKey(obj)
	c.lock.Lock()
	defer c.lock.Unlock()
	old := c.items[key]
	c.items[key] = obj
	c.updateIndices(old, obj, key)
}

func (c *Indexer) Get(obj interface{}) (interface{}, bool) {
	return c.GetByKey(metaNamespaceKey(obj))
}

func (c *Indexer) GetByKey(key string) (interface{}, bool) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	o, ok := c.items[key]
	return o, ok
}

func (c *Indexer) ListKeys() []string {
	c.lock.RLock()
	defer c.lock.RUnlock()
	keys := make([]string, 0, len(c.items))
	for k := range c.items {
		keys = append(keys, k)
	}
	return keys
}

func (c *Indexer) updateIndices(oldObj, newObj interface{}, key string) {
	var oldValues, values []string
	for name, indexFunc := range c.indexers {
		if oldObj != nil {
			oldValues, _ = indexFunc(oldObj)
		} else {
			oldValues = oldValues[:0]
		}
		values, _ = indexFunc(newObj)
		index := c.indices[name]
		if index == nil {
			index = map[string]map[string]struct{}{}
			c.indices[name] = index
		}
		if len(values) == 1 && len(oldValues) == 1 && values[0] == oldValues[0] {
			continue
		}
		for _, v := range oldValues {
			if set := index[v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(index, v)
				}
			}
		}
		for _, v := range values {
			set := index[v]
			if set == nil {
				set = map[string]struct{}{}
				index[v] = set
			}
			set[key] = struct{}{}
		}
	}
}

// ---------------------------------------------------------------- informer

type Handler interface {
	OnAdd(obj interface{})
	OnUpdate(oldObj, newObj interface{})
}

type addNotification struct{ newObj interface{} }
type updateNotification struct{ oldObj, newObj interface{} }

// ring is client-go's buffer.RingGrowing: a FIFO that doubles when full.
type ring struct {
	data     []interface{}
	beg, len int
}

func (r *ring) ReadOne() (interface{}, bool) {
	if r.len == 0 {
		return nil, false
	}
	d := r.data[r.beg]
	r.data[r.beg] = nil
	r.len--
	if r.beg == len(r.data)-1 {
		r.beg = 0
	} else {
		r.beg++
	}
	return d, true
}

func (r *ring) WriteOne(d interface{}) {
	if r.len == len(r.data) {
		bigger := make([]interface{}, len(r.data)*2)
		n := copy(bigger, r.data[r.beg:])
		copy(bigger[n:], r.data[:r.beg])
		r.beg, r.data = 0, bigger
	}
	r.data[(r.beg+r.len)%len(r.data)] = d
	r.len++
}

type listener struct {
	handler Handler
	addCh   chan interface{}
	nextCh  chan interface{}
	pending ring
}

func newListener(h Handler) *listener {
	l := &listener{handler: h, addCh: make(chan interface{}), nextCh: make(chan interface{}),
		pending: ring{data: make([]interface{}, 1024)}}
	go l.pop()
	go l.run()
	return l
}

func (l *listener) pop() {
	defer close(l.nextCh)
	var nextCh chan<- interface{}
	var notification interface{}
	for {
		select {
		case nextCh <- notification:
			var ok bool
			notification, ok = l.pending.ReadOne()
			if !ok {
				nextCh = nil
			}
		case n, ok := <-l.addCh:
			if !ok {
				return
			}
			if notification == nil {
				notification = n
				nextCh = l.nextCh
			} else {
				l.pending.WriteOne(n)
			}
		}
	}
}

func (l *listener) run() {
	for next := range l.nextCh {
		switch n := next.(type) {
		case updateNotification:
			l.handler.OnUpdate(n.oldObj, n.newObj)
		case addNotification:
			l.handler.OnAdd(n.newObj)
		}
	}
}

// Event is one watch event (only MODIFIED is used).
type Event struct {
	Object interface{}
}

// Informer lists once (the whole list, as a fake ListWatch serves it), then applies watch
// events from a channel; HandleDeltas feeds the indexer and the listeners.
type Informer struct {
	fifo        *DeltaFIFO
	indexer     *Indexer
	blockDeltas sync.Mutex
	listeners   []*listener
}

func NewInformer(handlers ...Handler) *Informer {
	s := &Informer{indexer: NewIndexer()}
	s.fifo = NewDeltaFIFO(s.indexer)
	for _, h := range handlers {
		s.listeners = append(s.listeners, newListener(h))
	}
	return s
}

func (s *Informer) HasSynced() bool { return s.fifo.HasSynced() }

func (s *Informer) distribute(n interface{}) {
	for _, l := range s.listeners {
		l.addCh <- n
	}
}

func (s *Informer) handleDeltas(deltas Deltas) error {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	for _, d := range deltas {
		switch d.Type {
		case Sync, Replaced, Added, Updated:
			if old, exists := s.indexer.Get(d.Object); exists {
				s.indexer.Update(d.Object)
				s.distribute(updateNotification{old, d.Object})
			} else {
				s.indexer.Add(d.Object)
				s.distribute(addNotification{d.Object})
			}
		}
	}
	return nil
}

// Run lists (the reflector's ExtractList + syncWith copies), replaces, then applies watch
// events until the channel closes; the controller's process loop pops meanwhile.
func (s *Informer) Run(list []BenchObject, resourceVersion string, events <-chan Event) {
	go func() {
		for s.fifo.Pop(s.handleDeltas) == nil {
		}
	}()
	objs := make([]interface{}, 0, len(list)) // meta.ExtractList
	for i := range list {
		objs = append(objs, &list[i])
	}
	found := make([]interface{}, 0, len(objs)) // syncWith
	found = append(found, objs...)
	s.fifo.Replace(found, resourceVersion)
	for ev := range events {
		s.fifo.Update(ev.Object)
	}
	s.fifo.Close()
}
