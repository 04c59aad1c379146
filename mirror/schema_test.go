package mirror_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy"
)

// TestMirrorSchema: with Config.Schema, schema statements reach an empty
// mirror in order with the writes around them, across every worker: a
// keyspace and table created through the primary, rows written at once
// into many partitions, a column added and written, a second table
// created and dropped, a TRUNCATE — afterwards the mirror's full scan
// (write times included) equals the primary's. Without Schema, the same
// CREATE does not reach the mirror.
func TestMirrorSchema(t *testing.T) {
	for _, schema := range []bool{true, false} {
		t.Run(fmt.Sprint("schema=", schema), func(t *testing.T) {
			primary, copyBackend := open(t), open(t)
			m, err := mirror.New(mirror.Config{Targets: []mirror.Target{{Name: "copy", Backend: copyBackend}},
				Keyspaces: map[string][]string{"ks": {"copy"}}, Workers: 4, Timeout: 5 * time.Second, Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.Close)
			c, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"p": primary}, Default: "p", Tap: m, Stamp: m.Stamp})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			e := &env{primary: primary, copy: copyBackend, m: m, c: c, s: c.NewSession(bindings.SourceCQL)}
			e.q(t, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			e.q(t, "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
			if !schema {
				if err := m.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
				if _, err := copyBackend.Execute(t.Context(), &bindings.Request{Query: "SELECT * FROM ks.t"}); err == nil {
					t.Fatal("without Schema the mirror got the CREATE TABLE")
				}
				return
			}
			for k := 0; k < 40; k++ {
				e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'a')", i32(k))
			}
			e.q(t, "ALTER TABLE ks.t ADD w int")
			for k := 0; k < 40; k++ {
				e.q(t, "UPDATE ks.t SET w = ? WHERE k = ? AND c = 1", i32(k), i32(k))
			}
			e.q(t, "CREATE TABLE ks.gone (k int PRIMARY KEY)")
			e.q(t, "INSERT INTO ks.gone (k) VALUES (1)")
			e.q(t, "DROP TABLE ks.gone")
			e.q(t, "CREATE TABLE ks.emptied (k int PRIMARY KEY, v int)")
			e.q(t, "INSERT INTO ks.emptied (k, v) VALUES (1, 1)")
			e.q(t, "TRUNCATE ks.emptied")
			e.q(t, "INSERT INTO ks.emptied (k, v) VALUES (2, 2)")
			if err := m.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			st := m.Status()[0]
			if st.Failed != 0 || st.Dropped != 0 || st.Applied != st.Sent {
				t.Fatalf("status %+v: want every statement applied", st)
			}
			for _, q := range []string{"SELECT k, c, v, w, writetime(v), writetime(w) FROM ks.t", "SELECT k, v FROM ks.emptied"} {
				p, cp := scan(t, primary, q), scan(t, copyBackend, q)
				if !slices.Equal(p, cp) || len(p) == 0 {
					t.Errorf("%s: primary %q, mirror %q", q, p, cp)
				}
			}
			if _, err := copyBackend.Execute(t.Context(), &bindings.Request{Query: "SELECT * FROM ks.gone"}); err == nil {
				t.Error("the dropped table still exists on the mirror")
			}
		})
	}
}

// scan runs q on b and renders its rows, sorted.
func scan(t *testing.T, b bindings.Backend, q string) []string {
	t.Helper()
	res, err := b.Execute(t.Context(), &bindings.Request{Query: q, Consistency: bindings.One})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, r := range res.Rows {
		out = append(out, fmt.Sprintf("%x", r))
	}
	slices.Sort(out)
	return out
}

// TestMirrorSchemaFullQueue: a schema statement that finds a mirror's
// queue full is dropped and counted, and the primary does not wait (it
// answers every statement while no mirror call has ended): the mirror
// hangs (never answers) with a small queue.
func TestMirrorSchemaFullQueue(t *testing.T) {
	hang := &stuck{release: make(chan struct{})}
	m, err := mirror.New(mirror.Config{Targets: []mirror.Target{{Name: "hung", Backend: hang}},
		Keyspaces: map[string][]string{"ks": {"hung"}}, Workers: 2, Queue: 2, Timeout: time.Minute, Schema: true})
	if err != nil {
		t.Fatal(err)
	}
	primary := open(t)
	c, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"p": primary}, Default: "p", Tap: m, Stamp: m.Stamp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := &env{primary: primary, m: m, c: c, s: c.NewSession(bindings.SourceCQL)}
	e.q(t, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	var creates []*bindings.Request
	for i := 0; i < 20; i++ {
		creates = append(creates, &bindings.Request{Query: fmt.Sprintf("CREATE TABLE ks.t%d (k int PRIMARY KEY)", i), Consistency: bindings.One})
	}
	writeWhileHung(t, e, hang, creates)
	if st := m.Status()[0]; st.Dropped == 0 {
		t.Errorf("status %+v: want schema statements dropped at the full queue", st)
	}
	close(hang.release)
	m.Close()
}
