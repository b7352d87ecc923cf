package main

import "testing"

// The DeltaFIFO and indexer semantics the benchmarks rely on (see ../workqueue/queue_test.go).

func obj(ns, name, rv string) *BenchObject {
	return &BenchObject{ObjectMeta: ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

func TestDeltaFIFOQueuesKeysOnceInOrderAndKeepsTheirDeltas(t *testing.T) {
	f := NewDeltaFIFO(NewIndexer())
	f.Add(obj("a", "x", "1"))
	f.Add(obj("a", "y", "2"))
	f.Update(obj("a", "x", "3"))
	if f.Len() != 2 {
		t.Fatalf("Len = %d, want 2 keys", f.Len())
	}
	var got Deltas
	_ = f.Pop(func(d Deltas) error { got = d; return nil })
	if len(got) != 2 || got[0].Type != Added || got[1].Type != Updated ||
		got[1].Object.(*BenchObject).ResourceVersion != "3" {
		t.Fatalf("deltas of a/x = %+v, want Added then Updated at 3", got)
	}
}

func TestDedupCollapsesTrailingDeletesAndKeepsTheRealOne(t *testing.T) {
	real := Delta{Deleted, obj("a", "x", "1")}
	tomb := Delta{Deleted, DeletedFinalStateUnknown{"a/x", nil}}
	if d := dedupDeltas(Deltas{real, tomb}); len(d) != 1 || d[0] != real {
		t.Fatalf("dedup = %+v, want the real delete", d)
	}
	if d := dedupDeltas(Deltas{tomb, real}); len(d) != 1 || d[0] != real {
		t.Fatalf("dedup = %+v, want the real delete", d)
	}
}

func TestReplaceTombstonesKnownKeysMissingFromTheList(t *testing.T) {
	idx := NewIndexer()
	idx.Add(obj("a", "gone", "1"))
	f := NewDeltaFIFO(idx)
	f.Replace([]interface{}{obj("a", "kept", "2")}, "2")
	if f.HasSynced() {
		t.Fatalf("synced before the initial list was popped")
	}
	types := map[string]DeltaType{}
	for f.Len() > 0 {
		_ = f.Pop(func(d Deltas) error {
			types[metaNamespaceKey(d[0].Object)] = d[0].Type
			return nil
		})
	}
	if types["a/kept"] != Replaced || types["a/gone"] != Deleted || !f.HasSynced() {
		t.Fatalf("deltas = %v, synced %v; want a/kept Replaced, a/gone Deleted, synced", types, f.HasSynced())
	}
}

func TestIndexerKeepsTheNamespaceIndexWithTheObject(t *testing.T) {
	idx := NewIndexer()
	idx.Add(obj("a", "x", "1"))
	idx.Add(obj("b", "y", "1"))
	idx.Update(obj("a", "x", "2"))
	if n := len(idx.indices["namespace"]["a"]); n != 1 {
		t.Fatalf("namespace a holds %d keys, want 1", n)
	}
	if o, ok := idx.GetByKey("a/x"); !ok || o.(*BenchObject).ResourceVersion != "2" {
		t.Fatalf("a/x = %v, want resourceVersion 2", o)
	}
}
