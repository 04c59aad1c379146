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
	want := appendString(nil, "CREATED")
	want = appendString(want, "FUNCTION")
	want = appendString(want, "ks")
	want = appendString(want, "f")
	want = appendStringList(want, ch.Args)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("function change: %x, want %x", got, want)
	}
	ch = &bindings.SchemaChange{Type: bindings.Dropped, Target: bindings.TargetAggr, Keyspace: "ks", Object: "a", Args: []string{}}
	want = appendString(nil, "DROPPED")
	want = appendString(want, "AGGREGATE")
	want = appendString(want, "ks")
	want = appendString(want, "a")
	want = appendStringList(want, nil)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("aggregate change: %x, want %x", got, want)
	}
}
