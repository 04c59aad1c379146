package mirror

import (
	"hash/maphash"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

type kind int

const (
	kindOther kind = iota // USE, auth...: not mirrored
	kindWrite
	kindRead
	kindSchema // schema statements and TRUNCATE: mirrored with Config.Schema, as barriers
)

// classify names the keyspace and table a statement works on and whether
// it is mirrored as a write or as a (sampled) read.
func classify(st cql.Statement, sessionKS string) (ks, table string, k kind) {
	t := cql.TargetOf(st)
	ks = t.Keyspace
	if ks == "" {
		ks = sessionKS
	}
	switch t.Kind.Class() {
	case cql.ClassWrite:
		return ks, t.Table, kindWrite
	case cql.ClassSchema:
		return ks, t.Table, kindSchema
	case cql.ClassRead:
		if t.Kind == cql.StmtSelect && !isSystem(ks) {
			return ks, t.Table, kindRead
		}
	}
	return "", "", kindOther
}

func isSystem(ks string) bool {
	switch ks {
	case "system", "system_schema", "system_auth", "system_distributed", "system_traces",
		"system_views", "system_virtual_schema":
		return true
	}
	return false
}

// Stampable tells whether a statement may be given a write timestamp by
// the coordinator when the client sent none: plain writes, not
// conditional ones (LWT keeps its own ordering, and Cassandra refuses a
// timestamp on them) nor read-modify-write or counter assignments.
func Stampable(st cql.Statement) bool {
	switch s := st.(type) {
	case *cql.Insert:
		return !s.IfNotExists
	case *cql.Update:
		if s.IfExists || len(s.If) > 0 {
			return false
		}
		for _, a := range s.Set {
			if a.Op != cql.AssignSet && a.Op != cql.AssignField {
				return false
			}
		}
		return true
	case *cql.Delete:
		return !s.IfExists && len(s.If) == 0
	}
	return false
}

// partitionHash writes a request's partition identity into h: the first
// column the statement restricts by equality (or an INSERT's first
// column) and its value. Drivers and people write the partition key first,
// so requests of one partition hash alike and one worker applies them in
// the primary's order. When that guess is wrong (a clustering column
// first), requests of one partition may be applied out of order, which
// only matters for statements that carry no timestamp (LWT, counters,
// read-modify-write): mirrored plain writes carry the primary's. It
// returns false when there is nothing to hash (named bind values, IN,
// ranges only).
func partitionHash(h *maphash.Hash, st cql.Statement, vals []bindings.Value) bool {
	term := func(col string, t cql.Term) bool {
		h.WriteString(col)
		h.WriteByte(0)
		switch x := t.(type) {
		case *cql.BindMarker:
			if x.Name != "" || x.Index >= len(vals) {
				return false
			}
			h.Write(vals[x.Index].Bytes)
		case *cql.Literal:
			h.WriteString(x.Text)
		default:
			return false
		}
		return true
	}
	where := func(rs []cql.Relation) bool {
		for _, r := range rs {
			if r.Op == cql.OpEq && !r.Token && len(r.Columns) == 1 {
				return term(r.Columns[0], r.Value)
			}
		}
		return false
	}
	switch s := st.(type) {
	case *cql.Insert:
		if len(s.Values) == 0 || len(s.Columns) == 0 {
			return false
		}
		return term(s.Columns[0], s.Values[0])
	case *cql.Update:
		return where(s.Where)
	case *cql.Delete:
		return where(s.Where)
	case *cql.Select:
		return where(s.Where)
	}
	return false
}
