package metrics

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestClassCache: the cache answers what Classify answers, for texts seen
// again (same string or an equal copy), for different texts of the same
// length, and for more texts than it has slots, from several goroutines.
func TestClassCache(t *testing.T) {
	var queries []string
	for i := 0; i < 3*classSlots; i++ {
		queries = append(queries,
			fmt.Sprintf("SELECT v FROM ks%03d.t WHERE k = ?", i),
			fmt.Sprintf("UPDATE ks%03d.t SET v = ? WHERE k = ?", i),
			fmt.Sprintf("INSERT INTO t%03d (k, v) VALUES (?, ?)", i))
	}
	queries = append(queries, "", "USE ks", strings.Repeat("x", maxCachedQuery+1), "DELETE FROM other.t WHERE k = 1")
	var c classCache
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for _, q := range queries {
					if round == 2 {
						q = strings.Clone(q) // equal text at another address
					}
					op, ks := c.classify(q)
					if wop, wks := Classify(q); op != wop || ks != wks {
						t.Errorf("classify(%q) = %s, %q; Classify gives %s, %q", q, op, ks, wop, wks)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkClassCache(b *testing.B) {
	var c classCache
	q := "SELECT field0, field1, field2 FROM ycsb.usertable WHERE y_id = ?"
	for b.Loop() {
		c.classify(q)
	}
}
