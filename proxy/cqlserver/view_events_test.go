package cqlserver

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// viewEventSteps are DDL statements on a base table with views and the
// SCHEMA_CHANGE events Cassandra 5.0.9 pushes for each (recorded from the
// real server; TestViewSchemaEventsCassandra checks them there). A view
// that selects every column gains the columns added to its base, and one
// whose columns are renamed changes too, so each is an UPDATED TABLE event
// of its own: drivers refresh a view's metadata only on its own event.
// DROP KEYSPACE drops each of its tables, views and types too. Views come
// in no particular order in Cassandra (a hash map), so each step's events
// compare sorted.
var viewEventSteps = []struct {
	stmt   string
	events []string
}{
	{"CREATE TABLE %[1]s.base (k int, c int, v int, PRIMARY KEY (k, c))", []string{"CREATED TABLE %[1]s.base"}},
	{"CREATE MATERIALIZED VIEW %[1]s.mv AS SELECT * FROM %[1]s.base WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
		[]string{"CREATED TABLE %[1]s.mv"}},
	{"CREATE MATERIALIZED VIEW %[1]s.mv3 AS SELECT k, c, v FROM %[1]s.base WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
		[]string{"CREATED TABLE %[1]s.mv3"}},
	{"ALTER TABLE %[1]s.base ADD w int", []string{"UPDATED TABLE %[1]s.base", "UPDATED TABLE %[1]s.mv"}},
	{"ALTER TABLE %[1]s.base ADD (x int, y int)", []string{"UPDATED TABLE %[1]s.base", "UPDATED TABLE %[1]s.mv"}},
	{"ALTER TABLE %[1]s.base RENAME c TO cc", []string{"UPDATED TABLE %[1]s.base", "UPDATED TABLE %[1]s.mv", "UPDATED TABLE %[1]s.mv3"}},
	{"ALTER TABLE %[1]s.base WITH comment = 'x'", []string{"UPDATED TABLE %[1]s.base"}},
	{"ALTER MATERIALIZED VIEW %[1]s.mv WITH comment = 'y'", []string{"UPDATED TABLE %[1]s.mv"}},
	{"CREATE INDEX ON %[1]s.base (x)", []string{"UPDATED TABLE %[1]s.base"}},
	{"DROP MATERIALIZED VIEW %[1]s.mv3", []string{"DROPPED TABLE %[1]s.mv3"}},
	{"CREATE TYPE %[1]s.ty (a int)", []string{"CREATED TYPE %[1]s.ty"}},
	{"DROP KEYSPACE %[1]s", []string{"DROPPED TABLE %[1]s.mv", "DROPPED TABLE %[1]s.base", "DROPPED TYPE %[1]s.ty", "DROPPED KEYSPACE %[1]s"}},
}

// checkViewSchemaEvents runs viewEventSteps on addr and compares the
// SCHEMA_CHANGE events a connection registered for them receives. After
// each statement a table is created in a marker keyspace; its event ends
// the step (events arrive in order on the registered connection). Events
// of other keyspaces (other tests sharing the server) are not the step's.
func checkViewSchemaEvents(t *testing.T, addr, ks string) {
	t.Helper()
	dial := func() *client {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nc, primitive.ProtocolVersion4)
		nc.SetDeadline(time.Now().Add(2 * time.Minute))
		c.startup("")
		return c
	}
	ddl := dial()
	exec := func(q string) {
		t.Helper()
		if m := ddl.query(q, nil); m.GetOpCode() == primitive.OpCodeError {
			t.Fatalf("%s: %v", q, m)
		}
	}
	mark := ks + "_mark"
	for _, k := range []string{ks, mark} {
		exec("DROP KEYSPACE IF EXISTS " + k)
		exec("CREATE KEYSPACE " + k + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	}
	t.Cleanup(func() {
		for _, k := range []string{ks, mark} {
			ddl.query("DROP KEYSPACE IF EXISTS "+k, nil)
		}
	})
	ev := dial()
	if f := ev.do(&message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}}); f.Body.Message.GetOpCode() != primitive.OpCodeReady {
		t.Fatalf("REGISTER: %v", f.Body.Message)
	}
	for i, step := range viewEventSteps {
		stmt := fmt.Sprintf(step.stmt, ks)
		exec(stmt)
		exec(fmt.Sprintf("CREATE TABLE %s.t%d (k int PRIMARY KEY)", mark, i))
		var got []string
		for {
			f := ev.read()
			e, ok := f.Body.Message.(*message.SchemaChangeEvent)
			if !ok {
				continue
			}
			if e.Keyspace == mark {
				break
			}
			if e.Keyspace != ks {
				continue // another test's DDL on a shared Cassandra
			}
			s := fmt.Sprintf("%s %s %s", e.ChangeType, e.Target, e.Keyspace)
			if e.Target != primitive.SchemaChangeTargetKeyspace {
				s += "." + e.Object
			}
			got = append(got, s)
		}
		want := make([]string, len(step.events))
		for i, w := range step.events {
			want[i] = fmt.Sprintf(w, ks)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got events %s\nwant %s", stmt, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}

// TestViewSchemaEvents: the views an ALTER TABLE changes get SCHEMA_CHANGE
// events of their own, on the embedded store and on HBase (when
// configured).
func TestViewSchemaEvents(t *testing.T) {
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) {
			addr := newTestServerWith(t, sb.open(t), nil, nil).listen(t)
			checkViewSchemaEvents(t, addr, "view_events")
		})
	}
}

// TestViewSchemaEventsCassandra runs the same steps against the reference
// Cassandra named by DOHYO_TEST_CASSANDRA (skipped without it), so the
// expected events are Cassandra's.
func TestViewSchemaEventsCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" || testing.Short() {
		t.Skip("DOHYO_TEST_CASSANDRA is not set")
	}
	checkViewSchemaEvents(t, addr, "view_events")
}
