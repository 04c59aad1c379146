package difftest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// read generates a SELECT: point, partition, partition IN, clustering
// slices, full scans, DISTINCT and COUNT(*), with ORDER BY, LIMIT, PER
// PARTITION LIMIT, WRITETIME/TTL selectors and paging now and then.
func (g *Generator) read(t *table) Step {
	r := g.r
	if r.IntN(8) == 0 {
		return g.readBeyond(t)
	}
	if len(t.udts) > 0 && r.IntN(6) == 0 {
		return g.udtRead(t)
	}
	s := g.newStmt(true)
	var where []string
	partitionRestricted, distinct, count := false, false, false
	switch shape := r.IntN(24); {
	case shape < 4: // point
		where = append(eqs(s, t.pk, g.keyTuple(t.pk)), eqs(s, t.ck, g.keyTuple(t.ck))...)
		partitionRestricted = true
	case shape < 8: // partition
		where = eqs(s, t.pk, g.keyTuple(t.pk))
		partitionRestricted = true
	case shape < 11: // partition IN
		where = g.partitionIn(s, t)
		partitionRestricted = true
		if r.IntN(2) == 0 {
			where = append(where, g.clusteringSlice(s, t)...)
		}
	case shape < 17: // clustering slice
		where = append(eqs(s, t.pk, g.keyTuple(t.pk)), g.clusteringSlice(s, t)...)
		partitionRestricted = true
	case shape < 20: // full scan
	case shape < 22:
		distinct = true
		if r.IntN(2) == 0 {
			where = g.partitionIn(s, t)
		}
	default:
		count = true
		if r.IntN(2) == 0 {
			where = eqs(s, t.pk, g.keyTuple(t.pk))
			partitionRestricted = true
			if r.IntN(2) == 0 {
				where = append(where, g.clusteringSlice(s, t)...)
			}
		}
	}

	var sel []string
	var ttlCols []int
	switch {
	case count:
		sel = []string{"COUNT(*)"}
	case distinct:
		sel = strings.Split(names(t.pk), ", ")
		for _, c := range t.statics {
			if r.IntN(2) == 0 {
				sel = append(sel, c.name)
			}
		}
	case r.IntN(2) == 0:
		sel = []string{"*"}
	default:
		cols := t.all()
		r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		for _, c := range cols[:1+r.IntN(len(cols))] {
			if r.IntN(10) == 0 {
				sel = append(sel, c.name+" AS a_"+c.name)
				continue
			}
			sel = append(sel, c.name)
		}
		for _, c := range append(append([]*column{}, t.statics...), t.regulars...) {
			if c.typ.IsCollection() && !c.typ.Frozen || r.IntN(4) != 0 {
				continue
			}
			if r.IntN(3) == 0 {
				ttlCols = append(ttlCols, len(sel))
				sel = append(sel, "TTL("+c.name+")")
			} else {
				sel = append(sel, "WRITETIME("+c.name+")")
			}
		}
	}
	q := "SELECT "
	if distinct {
		q += "DISTINCT "
	}
	q += strings.Join(sel, ", ") + " FROM " + g.tableName(t)
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if partitionRestricted && len(t.ck) > 0 && !count && r.IntN(4) == 0 {
		reverse := r.IntN(2) == 0
		var order []string
		for _, c := range t.ck[:1+r.IntN(len(t.ck))] {
			dir := "ASC"
			if c.desc != reverse {
				dir = "DESC"
			}
			order = append(order, c.name+" "+dir)
		}
		q += " ORDER BY " + strings.Join(order, ", ")
	}
	if !count && r.IntN(8) == 0 && (!distinct || r.IntN(8) == 0) {
		q += fmt.Sprintf(" PER PARTITION LIMIT %d", 1+r.IntN(3))
	}
	if r.IntN(4) == 0 {
		q += fmt.Sprintf(" LIMIT %d", 1+r.IntN(6))
	}
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	st.TTLColumns = ttlCols
	if r.IntN(5) == 0 {
		st.Request.PageSize = int32(1 + r.IntN(6))
		st.Text += fmt.Sprintf("  -- page size %d", st.Request.PageSize)
	}
	return st
}

// partitionIn restricts every partition key column, at least one by IN.
func (g *Generator) partitionIn(s *stmt, t *table) []string {
	in := g.r.IntN(len(t.pk))
	var out []string
	for i, c := range t.pk {
		if i == in || g.r.IntN(3) == 0 {
			out = append(out, c.name+" IN ("+g.inList(s, c, 1+g.r.IntN(4))+")")
			continue
		}
		out = append(out, c.name+" = "+s.val(c.typ, g.key(c)))
	}
	return out
}

// invalid generates a statement Cassandra rejects; the targets must reject
// it with the same error code.
func (g *Generator) invalid(t *table) Step {
	s := g.newStmt(false)
	pk := strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND ")
	v := t.regulars[0]
	var q string
	switch g.r.IntN(12) {
	case 0:
		q = fmt.Sprintf("SELECT * FROM %s WHERE %s AND %s = %s", t.name, pk, v.name, cql.FormatValue(v.typ, g.value(v.typ)))
	case 1:
		q = fmt.Sprintf("SELECT nope FROM %s WHERE %s", t.name, pk)
	case 2:
		q = fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s", t.name, t.pk[0].name, cql.FormatValue(t.pk[0].typ, g.key(t.pk[0])), pk)
	case 3:
		q = "SELEC * FROM " + t.name
	case 4:
		q = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) USING TTL 999999999", t.name, t.pk[0].name, cql.FormatValue(t.pk[0].typ, g.key(t.pk[0])))
	case 5:
		q = fmt.Sprintf("SELECT * FROM %s WHERE %s LIMIT 0", t.name, pk)
	case 6:
		q = "SELECT * FROM nope_table"
	case 7:
		lit := "'zzz'"
		if k := t.pk[0].typ.Kind; k == cql.KindText || k == cql.KindAscii {
			lit = "12"
		}
		q = fmt.Sprintf("SELECT * FROM %s WHERE %s = %s", t.name, t.pk[0].name, lit)
	case 8:
		if len(t.ck) > 0 {
			q = fmt.Sprintf("SELECT * FROM %s ORDER BY %s DESC", t.name, t.ck[0].name)
			break
		}
		q = fmt.Sprintf("SELECT * FROM %s WHERE %s ORDER BY %s", t.name, pk, v.name)
	case 9:
		if len(t.ck) > 1 {
			c1 := t.ck[1]
			q = fmt.Sprintf("SELECT * FROM %s WHERE %s AND %s > %s", t.name, pk, c1.name, cql.FormatValue(c1.typ, g.key(c1)))
			break
		}
		fallthrough
	case 10:
		if len(t.ck) > 0 {
			c0 := t.ck[0]
			q = fmt.Sprintf("DELETE %s FROM %s WHERE %s AND %s > %s", v.name, t.name, pk, c0.name, cql.FormatValue(c0.typ, g.key(c0)))
			break
		}
		fallthrough
	default:
		q = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, v.name, cql.FormatValue(v.typ, g.value(v.typ)))
	}
	return g.step(g.ks, &bindings.Request{Query: q, Timestamp: g.nextTS(), HasTimestamp: true}, t.name)
}

// schemaChange alters a table: adds or drops a column, truncates it, or
// drops and recreates it with a new random schema.
func (g *Generator) schemaChange(t *table) Step {
	switch p := g.r.IntN(10); {
	case p < 4:
		g.nextCol++
		c := &column{name: fmt.Sprintf("x%d", g.nextCol), typ: valueTypes[g.r.IntN(len(valueTypes))]}
		if g.r.IntN(3) == 0 {
			c.typ = collectionTypes[g.r.IntN(len(collectionTypes))]
		}
		t.regulars = append(t.regulars, c)
		return g.step(g.ks, &bindings.Request{Query: fmt.Sprintf("ALTER TABLE %s ADD %s %s", t.name, c.name, c.typ)}, t.name)
	case p < 6 && len(t.regulars) > 1 && t.regulars[len(t.regulars)-1].index == "":
		// The last column: never an indexed one (Cassandra refuses to
		// drop a column its indexes depend on).
		i := len(t.regulars) - 1
		c := t.regulars[i]
		t.regulars = append(t.regulars[:i:i], t.regulars[i+1:]...)
		return g.step(g.ks, &bindings.Request{Query: fmt.Sprintf("ALTER TABLE %s DROP %s", t.name, c.name)}, t.name)
	case p < 8:
		return g.step(g.ks, &bindings.Request{Query: "TRUNCATE " + t.name}, t.name)
	}
	// Recreate: the DROP now, the CREATE as the next step.
	nt := g.newTable(t.name)
	nt.version = t.version + 1
	for i, x := range g.tables {
		if x == t {
			g.tables[i] = nt
		}
	}
	st := g.step(g.ks, &bindings.Request{Query: "DROP TABLE " + t.name}, t.name)
	g.pending = append(g.pending, g.step(g.ks, &bindings.Request{Query: nt.createStatement()}, nt.name))
	g.pending = append(g.pending, g.indexSteps(nt)...)
	return st
}

// numericKinds are the types aggregates sum without floating-point
// rounding questions.
var numericKinds = map[cql.Kind]bool{cql.KindInt: true, cql.KindBigint: true, cql.KindSmallint: true, cql.KindTinyint: true, cql.KindVarint: true}

// readBeyond generates reads outside DESIGN D3's list that the engine
// implements anyway: token ranges, ALLOW FILTERING on regular columns
// (comparisons, IN, CONTAINS, CONTAINS KEY), GROUP BY and aggregates.
func (g *Generator) readBeyond(t *table) Step {
	r := g.r
	s := g.newStmt(true)
	var q string
	filtering := false
	if r.IntN(3) == 0 {
		if st, ok := g.indexedRead(t); ok {
			return st
		}
	}
	switch r.IntN(5) {
	case 4: // native functions in the selection
		return g.functionRead(t)
	case 0: // token range scan, or token filter of listed partitions
		pks := names(t.pk)
		bound := func(ops ...string) string {
			op := ops[r.IntN(len(ops))]
			switch r.IntN(5) {
			case 0:
				return fmt.Sprintf("token(%s) %s %d", pks, op, r.Int64()-r.Int64())
			case 1: // the ring's start and end
				return fmt.Sprintf("token(%s) %s %d", pks, op, int64(math.MinInt64))
			}
			return fmt.Sprintf("token(%s) %s token(%s)", pks, op, g.tupleVals(s, t.pk))
		}
		var conds []string
		switch r.IntN(6) {
		case 0:
			conds = append(conds, bound("="))
		case 1:
			conds = append(conds, bound("<", "<="))
		default:
			conds = append(conds, bound(">", ">="))
			if r.IntN(2) == 0 {
				conds = append(conds, bound("<", "<="))
			}
		}
		if r.IntN(4) == 0 {
			conds = append(conds, g.partitionIn(s, t)...)
		}
		sel := "*"
		if r.IntN(3) == 0 {
			sel = "token(" + pks + "), " + pks
		}
		q = fmt.Sprintf("SELECT %s FROM %s WHERE %s", sel, t.name, strings.Join(conds, " AND "))
	case 1: // filtering
		var where []string
		cands := append(append([]*column{}, t.statics...), t.regulars...)
		// Static collections are not filtered with CONTAINS / CONTAINS KEY:
		// Cassandra 5.0.9 matches deleted elements in single-partition reads
		// (ss = ss - {2}; then WHERE k = 1 AND ss CONTAINS 2 returns the
		// row), and paged full scans of such filters were seen to disagree
		// with dohyo too (seed 1274953584541411285, statements 1405 and
		// 1753: Cassandra leaves out static-only partitions and stops a
		// paged scan early) without it being settled which side is right.
		// That case stays out of the comparison until it is.
		cands = slices.DeleteFunc(cands, func(c *column) bool {
			return c.typ.IsCollection() && !c.typ.Frozen && slices.Contains(t.statics, c)
		})
		if len(cands) == 0 {
			return g.read(t) // nothing to filter on: another kind of read
		}
		c := cands[r.IntN(len(cands))]
		if r.IntN(2) == 0 {
			where = eqs(s, t.pk, g.keyTuple(t.pk))
		}
		switch {
		case c.typ.IsCollection() && !c.typ.Frozen && c.typ.Kind == cql.KindMap && r.IntN(2) == 0:
			where = append(where, fmt.Sprintf("%s CONTAINS KEY %s", c.name, s.val(c.typ.Elems[0], g.elem(c.typ.Elems[0]))))
		case c.typ.IsCollection() && !c.typ.Frozen:
			et := c.typ.Elems[len(c.typ.Elems)-1]
			where = append(where, fmt.Sprintf("%s CONTAINS %s", c.name, s.val(et, g.elem(et))))
		case r.IntN(4) == 0:
			where = append(where, fmt.Sprintf("%s IN (%s, %s)", c.name, s.val(c.typ, g.value(c.typ)), s.val(c.typ, g.value(c.typ))))
		default:
			where = append(where, fmt.Sprintf("%s %s %s", c.name, []string{"=", "<", ">", "<=", ">="}[r.IntN(5)], s.val(c.typ, g.value(c.typ))))
		}
		q = fmt.Sprintf("SELECT * FROM %s WHERE %s", t.name, strings.Join(where, " AND "))
		filtering = true
	case 2: // GROUP BY
		group := names(t.pk)
		if len(t.ck) > 0 && r.IntN(2) == 0 {
			group += ", " + t.ck[0].name
		}
		q = fmt.Sprintf("SELECT %s, COUNT(*) FROM %s", group, t.name)
		if r.IntN(2) == 0 {
			q += " WHERE " + strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND ")
		}
		q += " GROUP BY " + group
	default: // aggregates
		sel := []string{"COUNT(*)"}
		for _, c := range t.regulars {
			switch {
			case numericKinds[c.typ.Kind]:
				sel = append(sel, fmt.Sprintf("MIN(%s)", c.name), fmt.Sprintf("MAX(%s)", c.name), fmt.Sprintf("SUM(%s)", c.name), fmt.Sprintf("AVG(%s)", c.name))
			case !c.typ.IsCollection() && c.typ.Kind != cql.KindDuration:
				sel = append(sel, fmt.Sprintf("MIN(%s)", c.name), fmt.Sprintf("MAX(%s)", c.name))
			}
		}
		q = fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(sel, ", "), t.name, strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND "))
	}
	if r.IntN(4) == 0 {
		q += fmt.Sprintf(" LIMIT %d", 1+r.IntN(6))
	}
	if filtering {
		q += " ALLOW FILTERING"
	}
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	if r.IntN(4) == 0 {
		st.Request.PageSize = int32(1 + r.IntN(6))
		st.Text += fmt.Sprintf("  -- page size %d", st.Request.PageSize)
	}
	return st
}

// tupleVals renders values for cs, comma-separated (for token(...)).
func (g *Generator) tupleVals(s *stmt, cs []*column) string {
	vs := make([]string, len(cs))
	for i, c := range cs {
		vs[i] = s.val(c.typ, g.key(c))
	}
	return strings.Join(vs, ", ")
}
