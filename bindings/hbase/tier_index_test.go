package hbase

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
)

// TestTierIndexShared checks that a secondary index is one index for every
// engine of a tier: rows written through one engine, before and while
// another engine creates the index, are found through both engines' index
// lookups, and overwrites made through either are seen by both.
func TestTierIndexShared(t *testing.T) {
	es := openTier(t, 2, engine.Options{}, false, nil)
	ks := tierKeyspace(t, es[0], "CREATE TABLE %s.t (k int, c int, v int, PRIMARY KEY (k, c))")
	ctx := t.Context()
	const keys, vals = 30, 5
	for k := 0; k < keys; k++ {
		exec(t, es[1], fmt.Sprintf("INSERT INTO %s.t (k, c, v) VALUES (%d, 0, %d)", ks, k, k%vals))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Add(1)
	go func() { // writes through engine 1 while engine 0 builds the index
		defer wg.Done()
		for i := 0; i < 60; i++ {
			k := i % keys
			if _, err := run(ctx, es[1], fmt.Sprintf("INSERT INTO %s.t (k, c, v) VALUES (%d, 1, %d)", ks, k, (k+i)%vals), bindings.One); err != nil {
				errs <- err
				return
			}
		}
	}()
	exec(t, es[0], fmt.Sprintf("CREATE INDEX ON %s.t (v) USING 'sai'", ks))
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Overwrites through engine 0 after the index exists.
	for k := 0; k < keys; k += 3 {
		exec(t, es[0], fmt.Sprintf("UPDATE %s.t SET v = %d WHERE k = %d AND c = 0", ks, (k+1)%vals, k))
	}
	truth := map[int][]string{}
	for _, row := range exec(t, es[0], fmt.Sprintf("SELECT k, c, v FROM %s.t", ks)).Rows {
		v := int(int32(binary.BigEndian.Uint32(row[2])))
		truth[v] = append(truth[v], fmt.Sprintf("%d/%d", int32(binary.BigEndian.Uint32(row[0])), int32(binary.BigEndian.Uint32(row[1]))))
	}
	for i, e := range es {
		for v := 0; v < vals; v++ {
			q := fmt.Sprintf("SELECT k, c FROM %s.t WHERE v = %d", ks, v)
			var got []string
			deadline := time.Now().Add(10 * time.Second)
			for {
				res, err := run(ctx, e, q, bindings.One)
				if err == nil {
					got = got[:0]
					for _, row := range res.Rows {
						got = append(got, fmt.Sprintf("%d/%d", int32(binary.BigEndian.Uint32(row[0])), int32(binary.BigEndian.Uint32(row[1]))))
					}
					break
				}
				if time.Now().After(deadline) { // engine 1 must learn of the index by its schema poll
					t.Fatalf("engine %d: %s: %v", i, q, err)
				}
				select {
				case <-ctx.Done():
					t.Fatal(ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
			}
			want := truth[v]
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("engine %d: v = %d:\n got %v\nwant %v", i, v, got, want)
			}
		}
	}
}
