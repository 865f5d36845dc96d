package simulate

import "testing"

// TestFinishedTurnEvictedFirst checks that a finished turn kept for a next
// turn leaves the cache before the older prefixes it would otherwise
// push out: a document several sessions ask about stays cached.
func TestFinishedTurnEvictedFirst(t *testing.T) {
	e, err := NewEngine(Deployment{KVCapacityTokens: 3 * 4096})
	if err != nil {
		t.Fatal(err)
	}
	e.WarmPrefix("doc-a", 4096)
	e.WarmPrefix("doc-b", 4096)
	e.warm("turn:1", 4096, true) // fills the cache
	e.warm("turn:2", 4096, true) // one must go
	if e.prefix["doc-a"] == nil || e.prefix["doc-b"] == nil {
		t.Errorf("after two finished turns, cached prefixes %v; want doc-a and doc-b kept", keys(e.prefix))
	}
	if e.prefix["turn:1"] != nil && e.prefix["turn:2"] != nil {
		t.Errorf("after two finished turns, cached prefixes %v; want one turn evicted", keys(e.prefix))
	}
}

func keys(m map[string]*prefixEntry) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
