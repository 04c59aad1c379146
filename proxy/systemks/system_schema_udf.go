package systemks

import (
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// system_schema.functions and system_schema.aggregates: one row per
// user-defined function and aggregate overload, as Cassandra 5.0 lists
// them (types as CQL text, tuples shown frozen).

func typeStrings(ts []*cql.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = schema.TypeString(t)
	}
	return out
}

func functionRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	for _, ks := range kss {
		for _, f := range ks.Functions {
			b.add(map[string]any{
				"keyspace_name":        ks.Name,
				"function_name":        f.Name,
				"argument_types":       typeStrings(f.ArgTypes),
				"argument_names":       f.ArgNames,
				"body":                 f.Body,
				"language":             f.Language,
				"return_type":          schema.TypeString(f.ReturnType),
				"called_on_null_input": f.CalledOnNull,
			})
		}
	}
	return b
}

func aggregateRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	for _, ks := range kss {
		for _, a := range ks.Aggregates {
			row := map[string]any{
				"keyspace_name":  ks.Name,
				"aggregate_name": a.Name,
				"argument_types": typeStrings(a.ArgTypes),
				"return_type":    schema.TypeString(a.ReturnType),
				"state_func":     a.StateFunc,
				"state_type":     schema.TypeString(a.StateType),
			}
			if a.FinalFunc != "" {
				row["final_func"] = a.FinalFunc
			}
			if a.InitCond != "" {
				row["initcond"] = a.InitCond
			}
			b.add(row)
		}
	}
	return b
}
