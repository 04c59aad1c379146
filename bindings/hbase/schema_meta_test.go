package hbase

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
)

// The schema row's compare-and-set on the real HBase: one winner per
// version, legacy catalogs read as version 0.
func TestSchemaCommitCompareAndSet(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := context.Background()
	if err := s.PutMeta(ctx, legacyCatalogK, []byte("legacy")); err != nil {
		t.Fatal(err)
	}
	m, err := s.ReadSchema(ctx)
	if err != nil || m.Version != 0 || string(m.Catalog) != "legacy" {
		t.Fatalf("before any commit: %+v, %v; want version 0 with the legacy catalog", m, err)
	}
	// Eight concurrent commits over version 0: exactly one wins.
	var wg sync.WaitGroup
	wins := make(chan int, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.CommitSchema(ctx, 0, kv.SchemaMeta{Catalog: fmt.Appendf(nil, "c%d", i), Salts: []byte("{}")})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins <- i
			}
		}()
	}
	wg.Wait()
	close(wins)
	var winners []int
	for w := range wins {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("commits over version 0 that won: %v, want exactly one", winners)
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != 1 {
		t.Fatalf("version after one commit: %d, %v", v, err)
	}
	m, err = s.ReadSchema(ctx)
	if err != nil || m.Version != 1 || string(m.Catalog) != fmt.Sprintf("c%d", winners[0]) {
		t.Fatalf("after the commit: %+v, %v", m, err)
	}
	if ok, err := s.CommitSchema(ctx, 0, kv.SchemaMeta{Catalog: []byte("stale")}); ok || err != nil {
		t.Fatalf("commit over a stale version: ok=%v err=%v, want refused", ok, err)
	}
	if ok, err := s.CommitSchema(ctx, 1, kv.SchemaMeta{Catalog: []byte("c")}); !ok || err != nil {
		t.Fatalf("commit over the current version: ok=%v err=%v", ok, err)
	}
}

// Two backends over one catalog (two dohyo instances): DDL through one is
// usable through the other at once, concurrent DDL loses nothing, and a
// conflicting CREATE fails cleanly.
func TestSharedCatalogTwoBackends(t *testing.T) {
	cat := uniqueName("shared_")
	a := openTestBackend(t, "catalog="+cat)
	b := openTestBackend(t, "catalog="+cat)
	ks := uniqueName("tierks_")
	exec(t, a, fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", ks))
	exec(t, a, fmt.Sprintf("CREATE TABLE %s.t (k int PRIMARY KEY, v text)", ks))
	exec(t, b, fmt.Sprintf("INSERT INTO %s.t (k, v) VALUES (1, 'through b')", ks))

	_, err := b.Execute(context.Background(), &bindings.Request{Query: fmt.Sprintf("CREATE TABLE %s.t (k int PRIMARY KEY, w int)", ks)})
	var be *bindings.Error
	if !errors.As(err, &be) || be.Code != bindings.CodeAlreadyExists {
		t.Fatalf("conflicting CREATE TABLE through b: %v, want AlreadyExists", err)
	}

	var wg sync.WaitGroup
	for i, inst := range []*engine.Engine{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 3 {
				q := fmt.Sprintf("CREATE TABLE %s.c%d_%d (k int PRIMARY KEY)", ks, i, j)
				if _, err := inst.Execute(context.Background(), &bindings.Request{Query: q}); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for _, inst := range []*engine.Engine{a, b} {
		for {
			c, _ := inst.Catalog(context.Background())
			if n := len(c.Keyspace(ks).Tables); n == 7 {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("a backend sees %d tables, want 7: %v", n, c.Keyspace(ks).TableNames())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	exec(t, a, "DROP KEYSPACE "+ks)
}

func TestMembersHeartbeat(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := context.Background()
	before := time.Now().Add(-time.Minute)
	for _, a := range []string{"127.0.0.2:9042", "127.0.0.1:9042"} {
		if err := s.Heartbeat(ctx, Member{Addr: a, SchemaVersion: "v-" + a}); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := s.Members(ctx)
	if err != nil || len(ms) != 2 {
		t.Fatalf("members %+v, %v; want 2", ms, err)
	}
	for _, m := range ms {
		if m.SchemaVersion != "v-"+m.Addr || m.Heartbeat.Before(before) {
			t.Errorf("member %+v", m)
		}
	}
	if err := s.Leave(ctx, "127.0.0.1:9042"); err != nil {
		t.Fatal(err)
	}
	ms, err = s.Members(ctx)
	if err != nil || len(ms) != 1 || ms[0].Addr != "127.0.0.2:9042" {
		t.Fatalf("members after a leave: %+v, %v", ms, err)
	}
}

// BenchmarkSchemaVersionPoll is the cost of one poll of the tier's shared
// schema version (one small Get of the version cell), which every instance
// makes every 250 ms:
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench SchemaVersionPoll -benchtime 3s ./bindings/hbase/
func BenchmarkSchemaVersionPoll(b *testing.B) {
	s := openTestStore(b)
	defer s.Close()
	ctx := context.Background()
	if ok, err := s.CommitSchema(ctx, 0, kv.SchemaMeta{Catalog: []byte("{}"), Salts: []byte("{}")}); !ok || err != nil {
		b.Fatalf("commit: %v %v", ok, err)
	}
	b.ResetTimer()
	for b.Loop() {
		if v, err := s.SchemaVersion(ctx); err != nil || v != 1 {
			b.Fatalf("version %d, %v", v, err)
		}
	}
}
