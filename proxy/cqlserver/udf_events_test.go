package cqlserver

import (
	"bytes"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// TestSchemaChangeFunctionTarget checks the FUNCTION/AGGREGATE schema
// change options: keyspace, name and the argument types as a string list
// (protocol v4+ §4.2.6), which drivers need to refresh one overload.
func TestSchemaChangeFunctionTarget(t *testing.T) {
	ch := &bindings.SchemaChange{Type: bindings.Created, Target: bindings.TargetFunction, Keyspace: "ks", Object: "f",
		Args: []string{"int", "frozen<tuple<int, bigint>>"}}
	want := AppendString(nil, "CREATED")
	want = AppendString(want, "FUNCTION")
	want = AppendString(want, "ks")
	want = AppendString(want, "f")
	want = AppendStringList(want, ch.Args)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("function change: %x, want %x", got, want)
	}
	ch = &bindings.SchemaChange{Type: bindings.Dropped, Target: bindings.TargetAggr, Keyspace: "ks", Object: "a", Args: []string{}}
	want = AppendString(nil, "DROPPED")
	want = AppendString(want, "AGGREGATE")
	want = AppendString(want, "ks")
	want = AppendString(want, "a")
	want = AppendStringList(want, nil)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("aggregate change: %x, want %x", got, want)
	}
}
