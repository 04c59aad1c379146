package difftest

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Step is one request of the workload.
type Step struct {
	Index   int
	Text    string // the statement as written, bound values appended
	Request *bindings.Request
	Batch   *bindings.BatchRequest
	Table   string // the table involved ("" for keyspace-level statements)
	// TTLColumns are result columns holding TTL(x): remaining seconds
	// depend on each server's clock, so they compare with a tolerance.
	TTLColumns []int
}

// Setup returns the statements that create the keyspace and its tables.
func (g *Generator) Setup(tables int) []Step {
	steps := []Step{g.step("", &bindings.Request{Query: "CREATE KEYSPACE " + g.ks +
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"}, "")}
	steps = append(steps, g.udtSetup()...)
	for i := range tables {
		t := g.newTable(fmt.Sprintf("t%d", i))
		g.tables = append(g.tables, t)
		steps = append(steps, g.step(g.ks, &bindings.Request{Query: t.createStatement()}, t.name))
		steps = append(steps, g.indexSteps(t)...)
	}
	g.maxTable = tables
	return steps
}

// Teardown returns the statement that drops the keyspace.
func (g *Generator) Teardown() Step {
	return g.step("", &bindings.Request{Query: "DROP KEYSPACE IF EXISTS " + g.ks}, "")
}

func (g *Generator) step(ks string, req *bindings.Request, table string) Step {
	req.Keyspace = ks
	req.Consistency, req.SerialConsistency = bindings.One, bindings.Serial
	s := Step{Index: g.n, Request: req, Table: table, Text: req.Query}
	g.n++
	return s
}

// nextTS returns a write timestamp no other write uses: usually later than
// every earlier one, now and then earlier than some (an out-of-order write,
// which newer data must win against). Timestamps are multiples of 10, so
// the ts-1 tombstone of a collection overwrite never ties with a write.
func (g *Generator) nextTS() int64 {
	if span := (g.ts - g.startTS) / 10; span > 100 && g.r.IntN(8) == 0 {
		for range 20 {
			ts := g.ts - 10*(1+g.r.Int64N(min(span-1, 3000)))
			if !g.usedTS[ts] {
				g.usedTS[ts] = true
				return ts
			}
		}
	}
	g.ts += 10 * (1 + g.r.Int64N(5))
	g.usedTS[g.ts] = true
	return g.ts
}

// Next returns the next step of the workload.
func (g *Generator) Next() Step {
	if len(g.pending) > 0 {
		st := g.pending[0]
		g.pending = g.pending[1:]
		return st
	}
	t := g.tables[g.r.IntN(len(g.tables))]
	switch p := g.r.IntN(1000); {
	case p < 4:
		return g.schemaChange(t)
	case p < 30:
		return g.invalid(t)
	case p < 250:
		return g.write(t, g.insert)
	case p < 430:
		return g.write(t, g.update)
	case p < 530:
		return g.write(t, g.delete)
	case p < 600:
		return g.batch(t)
	default:
		return g.read(t)
	}
}

// stmt accumulates one statement's bound values: each value is written as
// a literal, or as a marker with the bytes bound.
type stmt struct {
	g     *Generator
	bind  bool
	vals  []bindings.Value
	shown []string
}

func (g *Generator) newStmt(allowBind bool) *stmt {
	return &stmt{g: g, bind: allowBind && g.r.IntN(4) == 0}
}

func (s *stmt) val(t *cql.Type, v []byte) string {
	if s.bind {
		s.vals = append(s.vals, bindings.Value{Bytes: v})
		s.shown = append(s.shown, cql.FormatValue(t, v))
		return "?"
	}
	lit := cql.FormatValue(t, v)
	if s.g.r.IntN(6) == 0 {
		return altLiteral(t, v, lit)
	}
	return lit
}

// altLiteral spells a literal another way that Cassandra reads as the same
// value, to exercise the literal parser: timestamps with sub-millisecond
// digits (floored) or as integers, upper-case blobs, uuids and booleans,
// $$-quoted strings.
func altLiteral(t *cql.Type, v []byte, lit string) string {
	switch t.Kind {
	case cql.KindTimestamp:
		if strings.HasSuffix(lit, "Z'") && len(v) == 8 {
			if v[7]%2 == 0 {
				return strings.TrimSuffix(lit, "Z'") + "999Z'"
			}
			return fmt.Sprint(int64(binary.BigEndian.Uint64(v)))
		}
	case cql.KindBlob, cql.KindUUID, cql.KindTimeuuid, cql.KindBoolean:
		return strings.ToUpper(lit)
	case cql.KindText:
		if !strings.Contains(string(v), "$") && strings.HasPrefix(lit, "'") {
			return "$$" + string(v) + "$$"
		}
	}
	return lit
}

func (s *stmt) text(q string) string {
	if len(s.shown) == 0 {
		return q
	}
	return q + "  -- binds (" + strings.Join(s.shown, ", ") + ")"
}

// tableName returns t's name, qualified now and then.
func (g *Generator) tableName(t *table) string {
	if g.r.IntN(10) == 0 {
		return g.ks + "." + t.name
	}
	return t.name
}

// key draws a key column value: from its pool mostly, sometimes new.
func (g *Generator) key(c *column) []byte {
	if g.r.IntN(12) == 0 {
		return g.keyValue(c.typ)
	}
	return c.pool[g.r.IntN(len(c.pool))]
}

func (g *Generator) keyTuple(cs []*column) [][]byte {
	out := make([][]byte, len(cs))
	for i, c := range cs {
		out[i] = g.key(c)
	}
	return out
}

func eqs(s *stmt, cs []*column, vals [][]byte) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name + " = " + s.val(c.typ, vals[i])
	}
	return out
}

// writeOpts says how a write carries its timestamp.
type writeOpts struct {
	pk        [][]byte // fixed partition (batches); nil: draw one
	textTS    bool     // USING TIMESTAMP in the text (else the protocol's)
	allowBind bool
}

// write wraps a write generator: the timestamp goes in the text or in the
// request.
func (g *Generator) write(t *table, gen func(*table, writeOpts) (string, *stmt, int64)) Step {
	o := writeOpts{textTS: g.r.IntN(2) == 0, allowBind: true}
	q, s, ts := gen(t, o)
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	if !o.textTS {
		st.Request.Timestamp, st.Request.HasTimestamp = ts, true
		st.Text += fmt.Sprintf("  -- timestamp %d", ts)
	}
	return st
}

// using renders a USING clause with an optional TTL and the timestamp
// when it goes in the text.
func (g *Generator) using(o writeOpts, ts int64, ttl bool) string {
	var parts []string
	if ttl {
		parts = append(parts, fmt.Sprintf("TTL %d", []int{0, 86400, 500000}[g.r.IntN(3)]))
	}
	if o.textTS {
		parts = append(parts, fmt.Sprintf("TIMESTAMP %d", ts))
	}
	if len(parts) == 0 {
		return ""
	}
	return " USING " + strings.Join(parts, " AND ")
}

func (g *Generator) insert(t *table, o writeOpts) (string, *stmt, int64) {
	s := g.newStmt(o.allowBind)
	ts := g.nextTS()
	pk := o.pk
	if pk == nil {
		pk = g.keyTuple(t.pk)
	}
	var cols, vals []string
	for i, c := range t.pk {
		cols, vals = append(cols, c.name), append(vals, s.val(c.typ, pk[i]))
	}
	staticOnly := len(t.statics) > 0 && g.r.IntN(8) == 0
	if !staticOnly {
		for _, c := range t.ck {
			cols, vals = append(cols, c.name), append(vals, s.val(c.typ, g.key(c)))
		}
	}
	candidates := t.statics
	if !staticOnly {
		candidates = append(append(slices.Clone(t.statics), t.regulars...), t.udts...)
	}
	for _, c := range candidates {
		if g.r.IntN(2) == 0 {
			cols, vals = append(cols, c.name), append(vals, g.valueOrNull(s, c))
		}
	}
	if staticOnly && len(cols) == len(t.pk) {
		c := t.statics[0]
		cols, vals = append(cols, c.name), append(vals, g.valueOrNull(s, c))
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)%s", g.tableName(t), strings.Join(cols, ", "),
		strings.Join(vals, ", "), g.using(o, ts, g.r.IntN(8) == 0)), s, ts
}

func (g *Generator) valueOrNull(s *stmt, c *column) string {
	if g.r.IntN(10) == 0 {
		if s.bind {
			s.vals = append(s.vals, bindings.Value{})
			s.shown = append(s.shown, "null")
			return "?"
		}
		return "null"
	}
	return s.val(c.typ, g.value(c.typ))
}

func (g *Generator) update(t *table, o writeOpts) (string, *stmt, int64) {
	s := g.newStmt(o.allowBind)
	ts := g.nextTS()
	staticOnly := len(t.statics) > 0 && g.r.IntN(5) == 0
	candidates := t.statics
	if !staticOnly {
		candidates = append(append(slices.Clone(t.statics), t.regulars...), t.udts...)
	}
	var sets []string
	for i, c := range candidates {
		// Without clustering restrictions only statics may be set; with
		// them, at least one regular column must be.
		last := i == len(candidates)-1
		if g.r.IntN(3) == 0 || (last && (len(sets) == 0 || !staticOnly && len(sets) == sumStatics(sets, t))) {
			sets = append(sets, g.assignment(s, c))
		}
	}
	pk := o.pk
	if pk == nil {
		pk = g.keyTuple(t.pk)
	}
	where := g.partitionWhere(s, t, pk, o.pk == nil)
	if !staticOnly {
		where = append(where, eqs(s, t.ck, g.keyTuple(t.ck))...)
	}
	return fmt.Sprintf("UPDATE %s%s SET %s WHERE %s", g.tableName(t), g.using(o, ts, g.r.IntN(10) == 0),
		strings.Join(sets, ", "), strings.Join(where, " AND ")), s, ts
}

// sumStatics counts the assignments of static columns.
func sumStatics(sets []string, t *table) int {
	n := 0
	for _, a := range sets {
		for _, c := range t.statics {
			if strings.HasPrefix(a, c.name+" ") || strings.HasPrefix(a, c.name+"[") {
				n++
			}
		}
	}
	return n
}

// partitionWhere restricts the partition key by equality, or now and then
// (when allowed) by IN on one column.
func (g *Generator) partitionWhere(s *stmt, t *table, pk [][]byte, allowIn bool) []string {
	if !allowIn || g.r.IntN(8) != 0 {
		return eqs(s, t.pk, pk)
	}
	in := g.r.IntN(len(t.pk))
	var out []string
	for i, c := range t.pk {
		if i == in {
			out = append(out, c.name+" IN ("+g.inList(s, c, 1+g.r.IntN(3))+")")
			continue
		}
		out = append(out, c.name+" = "+s.val(c.typ, pk[i]))
	}
	return out
}

func (g *Generator) inList(s *stmt, c *column, n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = s.val(c.typ, g.key(c))
	}
	return strings.Join(vs, ", ")
}

// assignment is one SET item, collection operations included.
func (g *Generator) assignment(s *stmt, c *column) string {
	r := g.r
	if c.typ.Kind == cql.KindUDT {
		return g.udtAssignment(s, c)
	}
	if c.typ.Frozen {
		return c.name + " = " + g.valueOrNull(s, c)
	}
	switch c.typ.Kind {
	case cql.KindSet:
		e := cql.SetOf(c.typ.Elems[0])
		switch r.IntN(3) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, s.val(e, g.setValue(c.typ.Elems[0], 1+r.IntN(2))))
		case 1:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, s.val(e, g.setValue(c.typ.Elems[0], 1+r.IntN(2))))
		}
	case cql.KindList:
		l := cql.ListOf(c.typ.Elems[0])
		one := collection([][]byte{g.elem(c.typ.Elems[0])})
		switch r.IntN(8) {
		case 0, 1, 5:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, s.val(l, g.value(c.typ)))
		case 2:
			return fmt.Sprintf("%s = %s + %s", c.name, s.val(l, one), c.name)
		case 3:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, s.val(l, one))
		case 4:
			return fmt.Sprintf("%s[%s] = %s", c.name, s.val(cql.Scalar(cql.KindInt), be32(uint32(r.IntN(3)))),
				s.val(c.typ.Elems[0], g.elem(c.typ.Elems[0])))
		}
	case cql.KindMap:
		kt, vt := c.typ.Elems[0], c.typ.Elems[1]
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, s.val(c.typ, g.value(c.typ)))
		case 1:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, s.val(cql.SetOf(kt), g.setValue(kt, 1+r.IntN(2))))
		case 2:
			return fmt.Sprintf("%s[%s] = %s", c.name, s.val(kt, g.elem(kt)), s.val(vt, g.elem(vt)))
		}
	}
	return c.name + " = " + g.valueOrNull(s, c)
}

func (g *Generator) delete(t *table, o writeOpts) (string, *stmt, int64) {
	s := g.newStmt(o.allowBind)
	ts := g.nextTS()
	pk := o.pk
	if pk == nil {
		pk = g.keyTuple(t.pk)
	}
	using := ""
	if o.textTS {
		using = fmt.Sprintf(" USING TIMESTAMP %d", ts)
	}
	// Markers bind in text order: the targets' (in s) come before the
	// WHERE clause's (in ws).
	ws := &stmt{g: g, bind: s.bind}
	where := g.partitionWhere(ws, t, pk, o.pk == nil)
	var targets []string
	switch p := g.r.IntN(10); {
	case p < 3 || len(t.ck) == 0 && p < 6: // row (or partition without clustering)
		where = append(where, eqs(ws, t.ck, g.keyTuple(t.ck))...)
	case p < 6: // columns or collection elements of a row
		for _, c := range t.regulars {
			if g.r.IntN(3) != 0 {
				continue
			}
			kind := c.typ.Kind
			if c.typ.Frozen {
				kind = cql.KindBlob // frozen: the whole value only
			}
			switch kind {
			case cql.KindMap:
				targets = append(targets, fmt.Sprintf("%s[%s]", c.name, s.val(c.typ.Elems[0], g.elem(c.typ.Elems[0]))))
			case cql.KindList:
				if g.r.IntN(4) == 0 {
					targets = append(targets, fmt.Sprintf("%s[%s]", c.name, s.val(cql.Scalar(cql.KindInt), be32(uint32(g.r.IntN(3))))))
					continue
				}
				targets = append(targets, c.name)
			default:
				targets = append(targets, c.name)
			}
		}
		for _, c := range t.udts {
			if g.r.IntN(3) == 0 {
				targets = append(targets, g.udtDeleteTarget(c))
			}
		}
		if len(targets) == 0 {
			targets = append(targets, t.regulars[0].name)
		}
		where = append(where, eqs(ws, t.ck, g.keyTuple(t.ck))...)
	case p < 7 && len(t.statics) > 0: // static columns of a partition
		targets = append(targets, t.statics[g.r.IntN(len(t.statics))].name)
	case p < 8: // partition
	default: // clustering range
		where = append(where, g.clusteringSlice(ws, t)...)
	}
	q := "DELETE "
	if len(targets) > 0 {
		q += strings.Join(targets, ", ") + " "
	}
	s.vals, s.shown = append(s.vals, ws.vals...), append(s.shown, ws.shown...)
	return fmt.Sprintf("%sFROM %s%s WHERE %s", q, g.tableName(t), using, strings.Join(where, " AND ")), s, ts
}

// clusteringSlice restricts the clustering columns by a slice: a range on
// the first, equality then a range, a multi-column slice or IN.
func (g *Generator) clusteringSlice(s *stmt, t *table) []string {
	if len(t.ck) == 0 {
		return nil
	}
	c0 := t.ck[0]
	ops := []string{">", ">=", "<", "<="}
	switch p := g.r.IntN(10); {
	case p < 3:
		w := []string{fmt.Sprintf("%s %s %s", c0.name, ops[g.r.IntN(2)], s.val(c0.typ, g.key(c0)))}
		if g.r.IntN(2) == 0 {
			w = append(w, fmt.Sprintf("%s %s %s", c0.name, ops[2+g.r.IntN(2)], s.val(c0.typ, g.key(c0))))
		}
		return w
	case p < 5 && len(t.ck) > 1:
		c1 := t.ck[1]
		return []string{c0.name + " = " + s.val(c0.typ, g.key(c0)),
			fmt.Sprintf("%s %s %s", c1.name, ops[g.r.IntN(4)], s.val(c1.typ, g.key(c1)))}
	case p < 7 && len(t.ck) > 1:
		c1 := t.ck[1]
		w := []string{fmt.Sprintf("(%s, %s) %s (%s, %s)", c0.name, c1.name, ops[g.r.IntN(2)],
			s.val(c0.typ, g.key(c0)), s.val(c1.typ, g.key(c1)))}
		if g.r.IntN(2) == 0 {
			w = append(w, fmt.Sprintf("(%s) %s (%s)", c0.name, ops[2+g.r.IntN(2)], s.val(c0.typ, g.key(c0))))
		}
		return w
	case p < 8:
		return []string{fmt.Sprintf("%s IN (%s)", c0.name, g.inList(s, c0, 1+g.r.IntN(3)))}
	case p < 9 && len(t.ck) > 1:
		c1 := t.ck[1]
		var tuples []string
		for range 1 + g.r.IntN(3) {
			tuples = append(tuples, fmt.Sprintf("(%s, %s)", s.val(c0.typ, g.key(c0)), s.val(c1.typ, g.key(c1))))
		}
		return []string{fmt.Sprintf("(%s, %s) IN (%s)", c0.name, c1.name, strings.Join(tuples, ", "))}
	}
	return []string{fmt.Sprintf("%s %s %s", c0.name, ops[g.r.IntN(4)], s.val(c0.typ, g.key(c0)))}
}

// batch groups 2-5 writes, on one partition or several, each child with
// its own timestamp, as a BATCH message or a BEGIN BATCH statement.
func (g *Generator) batch(t *table) Step {
	logged := g.r.IntN(2) == 0
	var pk [][]byte
	if g.r.IntN(2) == 0 {
		pk = g.keyTuple(t.pk)
	}
	asText := g.r.IntN(3) == 0
	n := 2 + g.r.IntN(4)
	req := &bindings.BatchRequest{Keyspace: g.ks, Type: cql.BatchUnlogged,
		Consistency: bindings.One, SerialConsistency: bindings.Serial}
	if logged {
		req.Type = cql.BatchLogged
	}
	var texts []string
	for range n {
		o := writeOpts{pk: pk, textTS: true, allowBind: !asText}
		gen := []func(*table, writeOpts) (string, *stmt, int64){g.insert, g.update, g.update, g.delete}[g.r.IntN(4)]
		q, s, _ := gen(t, o)
		req.Entries = append(req.Entries, bindings.BatchEntry{Query: q, Values: s.vals})
		texts = append(texts, s.text(q))
	}
	kind := "BEGIN UNLOGGED BATCH"
	if logged {
		kind = "BEGIN BATCH"
	}
	if asText {
		q := kind + " " + strings.Join(texts, "; ") + " APPLY BATCH"
		return g.step(g.ks, &bindings.Request{Query: q}, t.name)
	}
	st := Step{Index: g.n, Batch: req, Table: t.name,
		Text: "@batch " + strings.TrimPrefix(kind, "BEGIN ") + "\n    " + strings.Join(texts, "\n    ")}
	g.n++
	return st
}
