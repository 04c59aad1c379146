package capture

import "github.com/dohyo/dohyo/cql"

// role says how a bind marker relates to the column(s) it is bound against;
// it decides redaction (column roles) and the value's type (dumps).
type role uint8

const (
	roleNone      role = iota // no column: a function argument, a selector term, ...
	roleDirect                // a whole value of the column
	roleInList                // `col IN ?`: a list of column values
	roleKey                   // a map key or list index: `m[?]`
	roleElem                  // an element of a list/set, or a map value (`m[k] = ?`)
	roleMapKey                // a key inside a map literal
	roleTuple                 // `(a, b) = ?`: a tuple of the listed columns
	roleJSON                  // `INSERT ... JSON ?`: the whole row
	roleTTL                   // USING TTL ?
	roleTimestamp             // USING TIMESTAMP ?
	roleLimit                 // LIMIT ? / PER PARTITION LIMIT ?
	roleToken                 // token(...) > ?: a token, not a column value
)

// binding is what one bind marker (or literal) is bound against.
type binding struct {
	keyspace, table string
	columns         []string // one column, several for tuple roles, none for JSON
	role            role
	untyped         bool // column data whose type is not derivable (nested deeper, UDT field)
}

// hasColumns reports whether the binding carries data of table columns.
func (b binding) hasColumns() bool {
	switch b.role {
	case roleNone, roleTTL, roleTimestamp, roleLimit, roleToken:
		return false
	}
	return true
}

// bindingMap maps the markers of a parsed statement to columns: markers[i]
// describes Parsed.Markers[i]; literals lists every literal written in a
// column position (they matter to redaction: they live in the text).
type bindingMap struct {
	markers  []binding
	literals []binding
}

func mapBindings(p *cql.Parsed, sessionKS string) *bindingMap {
	m := &bindingMap{markers: make([]binding, len(p.Markers))}
	m.statement(p.Stmt, sessionKS, nil)
	return m
}

func (m *bindingMap) statement(st cql.Statement, sessionKS string, batchUsing *cql.Using) {
	ks := func(k string) string {
		if k == "" {
			return sessionKS
		}
		return k
	}
	switch s := st.(type) {
	case *cql.Insert:
		at := binding{keyspace: ks(s.Keyspace), table: s.Table}
		for i, col := range s.Columns {
			if i < len(s.Values) {
				m.term(s.Values[i], at.with(roleDirect, col))
			}
		}
		if s.JSON != nil {
			m.term(s.JSON, at.with(roleJSON))
		}
		m.using(s.Using)
	case *cql.Update:
		at := binding{keyspace: ks(s.Keyspace), table: s.Table}
		for _, a := range s.Set {
			if a.Key != nil {
				m.term(a.Key, at.with(roleKey, a.Column))
			}
			switch a.Op {
			case cql.AssignElement:
				m.term(a.Value, at.with(roleElem, a.Column))
			case cql.AssignField:
				m.term(a.Value, at.with(roleNone, a.Column).colData())
			default:
				m.term(a.Value, at.with(roleDirect, a.Column))
			}
		}
		m.where(at, s.Where)
		m.conditions(at, s.If)
		m.using(s.Using)
	case *cql.Delete:
		at := binding{keyspace: ks(s.Keyspace), table: s.Table}
		for _, t := range s.Targets {
			if t.Key != nil {
				m.term(t.Key, at.with(roleKey, t.Column))
			}
		}
		m.where(at, s.Where)
		m.conditions(at, s.If)
		m.using(s.Using)
	case *cql.Select:
		at := binding{keyspace: ks(s.Keyspace), table: s.Table}
		m.where(at, s.Where)
		if s.Limit != nil {
			m.term(s.Limit, binding{role: roleLimit})
		}
		if s.PerPartitionLimit != nil {
			m.term(s.PerPartitionLimit, binding{role: roleLimit})
		}
	case *cql.Batch:
		for _, c := range s.Statements {
			m.statement(c, sessionKS, &s.Using)
		}
		m.using(s.Using)
	}
}

// with returns a copy of b bound to columns with a role.
func (b binding) with(r role, columns ...string) binding {
	b.role, b.columns = r, columns
	return b
}

// colData marks a binding that carries column data of an unknown type (a UDT
// field): it is redacted with its column but has no type of its own.
func (b binding) colData() binding {
	b.role, b.untyped = roleElem, true
	return b
}

func (m *bindingMap) using(u cql.Using) {
	if u.TTL != nil {
		m.term(u.TTL, binding{role: roleTTL})
	}
	if u.Timestamp != nil {
		m.term(u.Timestamp, binding{role: roleTimestamp})
	}
}

func (m *bindingMap) where(at binding, rels []cql.Relation) {
	for _, r := range rels {
		if r.Token {
			m.term(r.Value, binding{role: roleToken})
			for _, t := range r.In {
				m.term(t, binding{role: roleToken})
			}
			continue
		}
		if len(r.Columns) > 1 {
			m.tuple(at, r.Columns, r.Value)
			for _, t := range r.In {
				m.tuple(at, r.Columns, t)
			}
			continue
		}
		if len(r.Columns) == 0 {
			continue
		}
		col := r.Columns[0]
		if r.Key != nil {
			m.term(r.Key, at.with(roleKey, col))
			m.term(r.Value, at.with(roleElem, col))
			continue
		}
		m.relValue(at, col, r.Op, r.Value, r.In)
	}
}

func (m *bindingMap) relValue(at binding, col string, op cql.RelOp, v cql.Term, in []cql.Term) {
	switch {
	case op == cql.OpIn && in == nil:
		m.term(v, at.with(roleInList, col))
	case op == cql.OpContains:
		m.term(v, at.with(roleElem, col))
	case op == cql.OpContainsKey:
		m.term(v, at.with(roleMapKey, col))
	default:
		m.term(v, at.with(roleDirect, col))
	}
	for _, t := range in {
		m.term(t, at.with(roleDirect, col))
	}
}

// tuple maps `(a, b) op (x, y)` element-wise, and `(a, b) op ?` to a tuple.
func (m *bindingMap) tuple(at binding, cols []string, t cql.Term) {
	if tl, ok := t.(*cql.TupleLit); ok && len(tl.Elems) == len(cols) {
		for i, e := range tl.Elems {
			m.term(e, at.with(roleDirect, cols[i]))
		}
		return
	}
	m.term(t, at.with(roleTuple, cols...))
}

func (m *bindingMap) conditions(at binding, conds []cql.Condition) {
	for _, c := range conds {
		switch {
		case c.Key != nil:
			m.term(c.Key, at.with(roleKey, c.Column))
			m.term(c.Value, at.with(roleElem, c.Column))
			for _, t := range c.In {
				m.term(t, at.with(roleElem, c.Column))
			}
		case c.Field != "":
			m.term(c.Value, at.with(roleNone, c.Column).colData())
		default:
			m.relValue(at, c.Column, c.Op, c.Value, c.In)
		}
	}
}

// term records the binding of every marker and literal inside t. Nested
// terms (collection elements, function arguments) keep their column for
// redaction but lose their direct type.
func (m *bindingMap) term(t cql.Term, b binding) {
	switch x := t.(type) {
	case nil:
	case *cql.BindMarker:
		if x.Index >= 0 && x.Index < len(m.markers) {
			m.markers[x.Index] = b
		}
	case *cql.Literal:
		if b.hasColumns() && x.Kind != cql.LitNull {
			m.literals = append(m.literals, b)
		}
	case *cql.CollectionLit:
		for _, k := range x.Keys {
			m.term(k, b.nested(roleMapKey))
		}
		for _, v := range x.Values {
			m.term(v, b.nested(roleElem))
		}
	case *cql.TupleLit:
		for _, e := range x.Elems {
			m.term(e, b.nested(roleElem))
		}
	case *cql.UDTLit:
		for _, v := range x.Values {
			m.term(v, b.nested(roleElem))
		}
	case *cql.FuncCall:
		for _, a := range x.Args {
			n := b.nested(roleElem)
			n.untyped = n.hasColumns()
			m.term(a, n)
		}
	case *cql.Cast:
		m.term(x.Term, b)
	case *cql.Operation:
		for _, a := range []cql.Term{x.L, x.R} {
			n := b.nested(roleElem)
			n.untyped = n.hasColumns()
			m.term(a, n)
		}
	case *cql.Negation:
		n := b.nested(roleElem)
		n.untyped = n.hasColumns()
		m.term(x.X, n)
	}
}

// nested is the binding of a term inside a collection, tuple or call: it
// still carries the column's data (for redaction), with an element role
// when the outer term was the column itself, and no known type otherwise.
func (b binding) nested(r role) binding {
	if !b.hasColumns() {
		return b
	}
	if b.role == roleDirect && !b.untyped {
		b.role = r
	} else {
		b.role, b.untyped = roleElem, true
	}
	return b
}
