package systemks

import "github.com/dohyo/dohyo/schema"

// DESCRIBE of user-defined functions and aggregates: elements are named
// with their argument types (f(int, text)), one per overload.

func functionElements(ks *schema.Keyspace, name string) []element {
	var out []element
	for _, f := range ks.Functions {
		if name == "" || f.Name == name {
			out = append(out, element{ks: ks.Name, typ: "function", name: f.DescribeName(), create: f.Describe(), raw: true})
		}
	}
	return out
}

func aggregateElements(ks *schema.Keyspace, name string) []element {
	var out []element
	for _, a := range ks.Aggregates {
		if name == "" || a.Name == name {
			out = append(out, element{ks: ks.Name, typ: "aggregate", name: a.DescribeName(), create: a.Describe(), raw: true})
		}
	}
	return out
}
