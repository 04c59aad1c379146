package cqlserver

import (
	"bytes"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// TestSchemaChangeFunctionTarget checks the FUNCTION/AGGREGATE schema
// change options: keyspace, name and the argument types as a string list
// (protocol v4+ §4.2.6), which drivers need to refresh one overload.
func TestSchemaChangeFunctionTarget(t *testing.T) {
	ch := &bindings.SchemaChange{Type: bindings.Created, Target: bindings.TargetFunction, Keyspace: "ks", Object: "f",
		Args: []string{"int", "frozen<tuple<int, bigint>>"}}
	want := wire.AppendString(nil, "CREATED")
	want = wire.AppendString(want, "FUNCTION")
	want = wire.AppendString(want, "ks")
	want = wire.AppendString(want, "f")
	want = wire.AppendStringList(want, ch.Args)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("function change: %x, want %x", got, want)
	}
	ch = &bindings.SchemaChange{Type: bindings.Dropped, Target: bindings.TargetAggr, Keyspace: "ks", Object: "a", Args: []string{}}
	want = wire.AppendString(nil, "DROPPED")
	want = wire.AppendString(want, "AGGREGATE")
	want = wire.AppendString(want, "ks")
	want = wire.AppendString(want, "a")
	want = wire.AppendStringList(want, nil)
	if got := appendSchemaChange(nil, ch); !bytes.Equal(got, want) {
		t.Errorf("aggregate change: %x, want %x", got, want)
	}
}
