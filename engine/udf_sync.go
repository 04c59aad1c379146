package engine

import (
	"slices"

	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// udfKey names one overload: name and argument types.
func udfKey(name string, args []string) string {
	return name + "(" + strings.Join(args, schema.ArgSep) + ")"
}

// udfEntry is one function or aggregate overload as a diff sees it.
type udfEntry struct {
	target bindings.ChangeTarget
	name   string
	args   []string
	def    string // its definition, to tell an update
}

func udfEntries(ks *schema.Keyspace) map[string]udfEntry {
	out := map[string]udfEntry{}
	if ks == nil {
		return out
	}
	for _, f := range ks.Functions {
		args := typeTexts(f.ArgTypes)
		def := strings.Join(f.ArgNames, ",") + "|" + f.ReturnType.String() + "|" + f.Body
		if f.CalledOnNull {
			def += "|called"
		}
		out["f:"+udfKey(f.Name, args)] = udfEntry{bindings.TargetFunction, f.Name, args, def}
	}
	for _, a := range ks.Aggregates {
		args := typeTexts(a.ArgTypes)
		def := a.StateFunc + "|" + a.StateType.String() + "|" + a.FinalFunc + "|" + a.InitCond
		out["a:"+udfKey(a.Name, args)] = udfEntry{bindings.TargetAggr, a.Name, args, def}
	}
	return out
}

// diffUDFs lists the FUNCTION and AGGREGATE changes from old to cur (for
// schema changes another dohyo instance committed).
func diffUDFs(old, cur *schema.Catalog) []*bindings.SchemaChange {
	var out []*bindings.SchemaChange
	names := map[string]bool{}
	for _, n := range old.KeyspaceNames() {
		names[n] = true
	}
	for _, n := range cur.KeyspaceNames() {
		names[n] = true
	}
	for _, ksName := range sortedKeys(names) {
		was, now := udfEntries(old.Keyspace(ksName)), udfEntries(cur.Keyspace(ksName))
		for _, k := range sortedKeys(now) {
			e := now[k]
			switch p, ok := was[k]; {
			case !ok:
				out = append(out, &bindings.SchemaChange{Type: bindings.Created, Target: e.target, Keyspace: ksName, Object: e.name, Args: e.args})
			case p.def != e.def:
				out = append(out, &bindings.SchemaChange{Type: bindings.Updated, Target: e.target, Keyspace: ksName, Object: e.name, Args: e.args})
			}
		}
		for _, k := range sortedKeys(was) {
			if _, ok := now[k]; !ok {
				e := was[k]
				out = append(out, &bindings.SchemaChange{Type: bindings.Dropped, Target: e.target, Keyspace: ksName, Object: e.name, Args: e.args})
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func typeTexts(ts []*cql.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = schema.TypeString(t)
	}
	return out
}
