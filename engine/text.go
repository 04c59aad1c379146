package engine

import (
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// termText renders a term as CQL source for error messages, the way
// Cassandra prints operations ("v = v + 1").
func termText(term cql.Term) string {
	switch x := term.(type) {
	case nil:
		return ""
	case *cql.Literal:
		switch x.Kind {
		case cql.LitString:
			return "'" + strings.ReplaceAll(x.Text, "'", "''") + "'"
		case cql.LitNull:
			return "null"
		}
		return x.Text
	case *cql.BindMarker:
		if x.Name != "" {
			return ":" + x.Name
		}
		return "?"
	case *cql.CollectionLit:
		open, end := "{", "}"
		if x.Kind == cql.CollList {
			open, end = "[", "]"
		}
		parts := make([]string, len(x.Values))
		for i, v := range x.Values {
			parts[i] = termText(v)
			if x.Kind == cql.CollMap && i < len(x.Keys) {
				parts[i] = termText(x.Keys[i]) + ": " + parts[i]
			}
		}
		return open + strings.Join(parts, ", ") + end
	case *cql.TupleLit:
		parts := make([]string, len(x.Elems))
		for i, v := range x.Elems {
			parts[i] = termText(v)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *cql.UDTLit:
		parts := make([]string, len(x.Values))
		for i, v := range x.Values {
			parts[i] = x.Fields[i] + ": " + termText(v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *cql.FuncCall:
		parts := make([]string, len(x.Args))
		for i, v := range x.Args {
			parts[i] = termText(v)
		}
		return x.Name + "(" + strings.Join(parts, ", ") + ")"
	case *cql.Cast:
		return "(" + x.Type.String() + ")" + termText(x.Term)
	case *cql.Operation, *cql.Negation:
		return cql.OperandText(x)
	}
	return "?"
}

// assignText renders an assignment as Cassandra prints it in messages.
func assignText(a cql.Assignment) string {
	c := a.Column
	v := termText(a.Value)
	switch a.Op {
	case cql.AssignAdd, cql.AssignAddTo:
		return c + " = " + c + " + " + v
	case cql.AssignPrepend:
		return c + " = " + v + " - " + c // sic: Cassandra 5.0.9 prints a prepend so
	case cql.AssignRemove, cql.AssignRemoveFrom:
		return c + " = " + c + " - " + v
	case cql.AssignElement:
		return c + "[" + termText(a.Key) + "] = " + v
	case cql.AssignField:
		return c + "." + a.Field + " = " + v
	}
	return c + " = " + v
}
