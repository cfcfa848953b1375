package lru

import "testing"

func TestWeighted(t *testing.T) {
	var evicted []string
	c := New[string, int](10)
	c.OnEvict = func(k string, _ int) { evicted = append(evicted, k) }
	c.Add("a", 1, 4)
	c.Add("b", 2, 4)
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	if !c.Add("c", 3, 4) { // 12 > 10: b, the oldest, goes
		t.Fatal("c not held")
	}
	if _, ok := c.Peek("b"); ok || len(evicted) != 1 || evicted[0] != "b" {
		t.Fatalf("b kept, evicted %v", evicted)
	}
	if w := c.Weight(); w != 8 {
		t.Fatalf("weight %d, want 8", w)
	}
	if !c.Grow("a", 2) || c.Weight() != 10 {
		t.Fatalf("grow: weight %d", c.Weight())
	}
	if c.Grow("c", 1) { // 11: a is older than c, a goes... then c alone fits
		if _, ok := c.Peek("a"); ok {
			t.Fatal("a kept over budget")
		}
	} else {
		t.Fatal("c evicted by its own growth while a was older")
	}
	if c.Add("huge", 0, 11) || c.Len() != 1 || c.Weight() != 5 {
		t.Fatalf("an entry over the whole budget was kept, or evicted others: len %d", c.Len())
	}
	c.Add("g", 0, 2)
	if c.Grow("g", 9) || c.Len() != 1 || c.Weight() != 5 {
		t.Fatalf("an entry grown over the whole budget was kept, or evicted others: len %d", c.Len())
	}
	c.Remove("c")
	c.Add("x", 1, 3)
	c.Add("x", 2, 5) // replace: no eviction callback, weight replaced
	if v, _ := c.Get("x"); v != 2 || c.Weight() != 5 {
		t.Fatalf("replace: v %d weight %d", v, c.Weight())
	}
	c.Add("y", 1, 5)
	c.Resize(5)
	if _, ok := c.Peek("y"); !ok || c.Len() != 1 || c.Weight() != 5 {
		t.Fatalf("resize: len %d weight %d", c.Len(), c.Weight())
	}
	c.Purge()
	if c.Len() != 0 || c.Weight() != 0 {
		t.Fatalf("purge: len %d weight %d", c.Len(), c.Weight())
	}
}
