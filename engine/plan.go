package engine

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// planner turns a parsed statement into a plan against one state, and
// records the bind-marker specs a PREPARE answers with.
type planner struct {
	e       *Engine
	st      *state
	ks      string
	markers []*cql.BindMarker
	bind    []bindings.ColumnSpec
	// pkBind[i] is the marker index binding partition key column i by a
	// plain `k = ?` (or an INSERT value), -1 otherwise.
	pkBind []int
	table  *tableInfo
	result []bindings.ColumnSpec
	err    error // first error found while walking terms
	// aggSlots: while compiling an expression over aggregates, the
	// slots its aggregates and row reads become (fn_postagg.go).
	aggSlots *[]selector
	// consts: while compiling a selection, where its constant
	// subexpressions go (fn_const.go).
	consts *[]expr
}

func (b *planner) build(stmt cql.Statement) (plan, error) {
	var (
		pl  plan
		err error
	)
	switch s := stmt.(type) {
	case *cql.Select:
		pl, err = b.planSelect(s)
	case *cql.Insert:
		pl, err = b.planInsert(s)
	case *cql.Update:
		pl, err = b.planUpdate(s)
	case *cql.Delete:
		pl, err = b.planDelete(s)
	case *cql.Batch:
		pl, err = b.planBatch(s)
	default:
		return nil, bindings.Unsupported("statement %T is not supported by dohyo's wide-column engine", stmt)
	}
	if err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	for i, s := range b.bind {
		if s.Type == nil {
			return nil, bindings.Unsupported("cannot infer the type of bind marker %d", i)
		}
	}
	return pl, nil
}

// walkTerm assigns marker specs inside a term whose receiver has type t.
func (b *planner) walkTerm(term cql.Term, t *cql.Type, name string, ti *tableInfo) {
	if t == nil || term == nil {
		return
	}
	switch x := term.(type) {
	case *cql.BindMarker:
		if x.Index >= 0 && x.Index < len(b.bind) {
			n := name
			if x.Name != "" {
				n = x.Name
			}
			b.bind[x.Index] = ti.specNamed(n, t)
		}
	case *cql.CollectionLit:
		if b.err == nil && t.IsCollection() && containsMarker(x) {
			b.err = invalidf("Invalid %s literal for %s: bind variables are not supported inside collection literals", t.Kind, name)
		}
		switch t.Kind {
		case cql.KindList, cql.KindSet:
			for _, v := range x.Values {
				b.walkTerm(v, t.Elems[0], "value("+name+")", ti)
			}
		case cql.KindMap:
			for _, k := range x.Keys {
				b.walkTerm(k, t.Elems[0], "key("+name+")", ti)
			}
			for _, v := range x.Values {
				b.walkTerm(v, t.Elems[1], "value("+name+")", ti)
			}
		}
	case *cql.TupleLit:
		if len(x.Elems) == 1 && t.Kind != cql.KindTuple {
			b.walkTerm(x.Elems[0], t, name, ti) // (x): a parenthesized term
		}
		if t.Kind == cql.KindTuple {
			for i, e := range x.Elems {
				if i < len(t.Elems) {
					b.walkTerm(e, t.Elems[i], name, ti)
				}
			}
		}
	case *cql.UDTLit:
		if t.Kind == cql.KindUDT {
			for i, f := range x.Fields {
				for j, tf := range t.Fields {
					if tf == f && j < len(t.Elems) {
						b.walkTerm(x.Values[i], t.Elems[j], name+"."+f, ti)
					}
				}
			}
		}
	case *cql.Cast:
		b.walkTerm(x.Term, x.Type, name, ti)
	case *cql.Operation, *cql.Negation:
		b.walkOperation(term, t, ti)
	case *cql.FuncCall:
		var at *cql.Type
		switch x.Name {
		case "totimestamp", "tounixtimestamp", "todate":
			at = cql.Scalar(cql.KindTimeuuid)
		case "mintimeuuid", "maxtimeuuid":
			at = cql.Scalar(cql.KindTimestamp)
		}
		for _, a := range x.Args {
			b.walkTerm(a, at, "arg0("+x.Name+")", ti)
		}
	}
}

// walkOperation resolves an operation in a term for its receiver type
// t, as Cassandra does when it prepares the statement (its failures are
// the statement's), and types the bind markers of its arguments
// (arg0(system._add)).
func (b *planner) walkOperation(term cql.Term, t *cql.Type, ti *tableInfo) {
	sig, err := cql.ResolveOperation(t, term)
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		return
	}
	switch x := term.(type) {
	case *cql.Operation:
		b.walkTerm(unparen(x.L), sig.L, cql.OpArgName(x.Op, 0), ti)
		b.walkTerm(unparen(x.R), sig.R, cql.OpArgName(x.Op, 1), ti)
	case *cql.Negation:
		b.walkTerm(unparen(x.X), sig.L, cql.OpArgName('n', 0), ti)
	}
}

// unparen is a parenthesized term's content: (x) as an operand.
func unparen(t cql.Term) cql.Term {
	if tl, ok := t.(*cql.TupleLit); ok && len(tl.Elems) == 1 {
		return tl.Elems[0]
	}
	return t
}

// noteEq records `pk = ?` for PKIndexes.
func (b *planner) noteEq(ti *tableInfo, col int, term cql.Term) {
	m, ok := term.(*cql.BindMarker)
	if !ok {
		return
	}
	for pos, c := range ti.pk {
		if c == col {
			if b.pkBind == nil {
				b.pkBind = make([]int, len(ti.pk))
				for i := range b.pkBind {
					b.pkBind[i] = -1
				}
			}
			b.pkBind[pos] = m.Index
		}
	}
}

// using evaluates USING TTL / TIMESTAMP.
type usingPlan struct {
	ttl, ts cql.Term
}

func (b *planner) planUsing(ti *tableInfo, u cql.Using) usingPlan {
	b.walkTerm(u.TTL, cql.Scalar(cql.KindInt), "[ttl]", ti)
	b.walkTerm(u.Timestamp, cql.Scalar(cql.KindBigint), "[timestamp]", ti)
	return usingPlan{ttl: u.TTL, ts: u.Timestamp}
}

const maxTTL = 20 * 365 * 24 * 60 * 60 // Cassandra's MAX_TTL: 20 years

// maxDeletionTime is 2038-01-19T03:14:06Z: Cassandra 5.0 in its default
// storage compatibility mode (CASSANDRA_4) rejects writes whose TTL would
// expire later (expiration date overflow policy REJECT).
const maxDeletionTime = 1<<31 - 2

// writeParams are the evaluated timestamp and TTL of a modification.
type writeParams struct {
	ts  int64
	ttl int32 // seconds; 0: none
	now int64 // unix seconds (TTL expiry base)
}

func (x *execCtx) evalUsing(ti *tableInfo, u usingPlan) (writeParams, error) {
	wp := writeParams{now: x.nowS, ttl: ti.defaultTTL}
	tsSet := false
	if u.ts != nil {
		b, unset, err := x.eval(cql.Scalar(cql.KindBigint), u.ts, "[timestamp]")
		if err != nil {
			return wp, err
		}
		if !unset {
			if b == nil {
				return wp, invalidf("Invalid null value of timestamp")
			}
			wp.ts, tsSet = int64(be64u(b)), true
			if wp.ts == -1<<63 {
				return wp, invalidf("Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]")
			}
		}
	}
	if !tsSet {
		if x.hasTS {
			wp.ts = x.ts
		} else {
			wp.ts = x.e.nextTimestampAt(x.now)
		}
	}
	if u.ttl != nil {
		b, unset, err := x.eval(cql.Scalar(cql.KindInt), u.ttl, "[ttl]")
		if err != nil {
			return wp, err
		}
		switch {
		case unset:
		case b == nil:
			wp.ttl = 0 // a null TTL means none, as in Cassandra
		default:
			ttl := int32(be32u(b))
			if ttl < 0 {
				return wp, invalidf("A TTL must be greater or equal to 0, but was %d", ttl)
			}
			if ttl > maxTTL {
				return wp, invalidf("ttl is too large. requested (%d) maximum (%d)", ttl, maxTTL)
			}
			if x.nowS+int64(ttl) > maxDeletionTime {
				return wp, invalidf("Request on table %s.%s with ttl of %d seconds exceeds maximum supported "+
					"expiration date of 2038-01-19T03:14:06+00:00. In order to avoid this use a lower TTL, change "+
					"the expiration date overflow policy or upgrade to a version where this limitation is fixed. "+
					"See CASSANDRA-14092 and CASSANDRA-14227 for more details.", ti.t.Keyspace, ti.t.Name, ttl)
			}
			wp.ttl = ttl
		}
	}
	return wp, nil
}

func be64u(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func be32u(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Prepare describes a statement's bind markers and result columns.
func (e *Engine) Prepare(ctx context.Context, keyspace, query string) (res *bindings.Prepared, err error) {
	defer e.recoverTo(&err, query)
	res, err = e.prepare(ctx, keyspace, query)
	if err != nil {
		return nil, cqlError(err)
	}
	return res, nil
}

func (e *Engine) prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	p, err := e.parse(query, nil)
	if err != nil {
		return nil, err
	}
	h := &preparedStmt{e: e, ks: keyspace, parsed: p}
	switch s := p.Stmt.(type) {
	case *cql.Use, *cql.CreateKeyspace, *cql.AlterKeyspace, *cql.DropKeyspace, *cql.CreateTable,
		*cql.AlterTable, *cql.DropTable, *cql.Truncate, *cql.CreateIndex, *cql.DropIndex, *cql.CreateType, *cql.AlterUserType, *cql.DropType,
		*cql.CreateView, *cql.AlterView, *cql.DropView,
		*cql.CreateFunction, *cql.DropFunction, *cql.CreateAggregate, *cql.DropAggregate:
		h.kind = stmtOther
		return &bindings.Prepared{Keyspace: keyspace, Handle: h}, nil
	case *cql.Unsupported:
		return nil, unsupportedStatement(s.What)
	}
	cp, err := h.plan(ctx)
	if err != nil {
		return nil, err
	}
	out := *cp.prepared
	out.Handle = h
	return &out, nil
}

// prepared describes the planned statement for PREPARE.
func (b *planner) prepared() *bindings.Prepared {
	out := &bindings.Prepared{Bind: b.bind, Result: b.result, Keyspace: b.ks}
	if b.table != nil {
		out.Keyspace, out.Table = b.table.t.Keyspace, b.table.t.Name
	}
	if b.pkBind != nil {
		complete := true
		for _, i := range b.pkBind {
			if i < 0 {
				complete = false
			}
		}
		if complete {
			for _, i := range b.pkBind {
				out.PKIndexes = append(out.PKIndexes, uint16(i))
			}
		}
	}
	return out
}

func containsMarker(term cql.Term) bool {
	switch x := term.(type) {
	case *cql.BindMarker:
		return true
	case *cql.CollectionLit:
		for _, k := range x.Keys {
			if containsMarker(k) {
				return true
			}
		}
		for _, v := range x.Values {
			if containsMarker(v) {
				return true
			}
		}
	case *cql.TupleLit:
		for _, v := range x.Elems {
			if containsMarker(v) {
				return true
			}
		}
	case *cql.UDTLit:
		for _, v := range x.Values {
			if containsMarker(v) {
				return true
			}
		}
	case *cql.Cast:
		return containsMarker(x.Term)
	case *cql.Operation:
		return containsMarker(x.L) || containsMarker(x.R)
	case *cql.Negation:
		return containsMarker(x.X)
	case *cql.FuncCall:
		for _, v := range x.Args {
			if containsMarker(v) {
				return true
			}
		}
	}
	return false
}
