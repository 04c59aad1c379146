package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// TestSharedSchemaUserTypes: user types go through the shared catalog
// commit: another engine sees them (events, and the type is usable there).
func TestSharedSchemaUserTypes(t *testing.T) {
	es := newSharedEngines(t, 2, 20*time.Millisecond)
	a, b := es[0], es[1]
	got := make(chan *bindings.SchemaChange, 16)
	b.OnSchemaChange(func(ch *bindings.SchemaChange) { got <- ch })
	deadline := time.After(10 * time.Second)
	for _, step := range []struct{ ks, ddl, want string }{
		{"", fmt.Sprintf(sharedKSDDL, "ks"), "CREATED KEYSPACE ks."},
		{"ks", "CREATE TYPE addr (street text)", "CREATED TYPE ks.addr"},
		{"ks", "ALTER TYPE addr ADD zip int", "UPDATED TYPE ks.addr"},
		{"ks", "CREATE TABLE t (k int PRIMARY KEY, a addr)", "CREATED TABLE ks.t"},
	} {
		mustExecOn(t, a, step.ks, step.ddl)
		select {
		case ch := <-got:
			if s := fmt.Sprintf("%s %s %s.%s", ch.Type, ch.Target, ch.Keyspace, ch.Object); s != step.want {
				t.Fatalf("after %q the polling engine reported %q, want %q", step.ddl, s, step.want)
			}
		case <-deadline:
			t.Fatalf("no event on the polling engine after %q", step.ddl)
		}
	}
	mustExecOn(t, b, "ks", "UPDATE t SET a.zip = 7 WHERE k = 1")
	if rows := formatRows(mustExecOn(t, a, "ks", "SELECT a.zip FROM t WHERE k = 1")); len(rows) != 1 || rows[0] != "7" {
		t.Fatalf("field written through b, read through a: %v", rows)
	}
	if _, err := execOn(b, "ks", "DROP TYPE addr"); err == nil {
		t.Fatal("DROP TYPE of a type in use succeeded on the other engine")
	}
}
