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
	if r.IntN(10) == 0 {
		return g.arithRead(t)
	}
	if len(t.udts) > 0 && r.IntN(6) == 0 {
		return g.udtRead(t)
	}
	s := g.newStmt(true)
	where, sh := g.readWhere(s, t)
	var sel []string
	var ttlCols []int
	switch {
	case sh.count:
		sel = []string{"COUNT(*)"}
	case sh.distinct:
		sel = strings.Split(names(t.pk), ", ")
		for _, c := range t.statics {
			if r.IntN(2) == 0 {
				sel = append(sel, c.name)
			}
		}
	case r.IntN(2) == 0:
		sel = []string{"*"}
	default:
		sel, ttlCols = g.readColumns(t)
	}
	q := "SELECT "
	if sh.distinct {
		q += "DISTINCT "
	}
	q += strings.Join(sel, ", ") + " FROM " + g.tableName(t)
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += g.readModifiers(t, sh)
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	st.TTLColumns = ttlCols
	if r.IntN(5) == 0 {
		st.Request.PageSize = int32(1 + r.IntN(6))
		st.Text += fmt.Sprintf("  -- page size %d", st.Request.PageSize)
	}
	return st
}

// readShape is what read's WHERE clause chose: the read restricts one
// partition (or lists partitions), is SELECT DISTINCT, or counts rows.
type readShape struct {
	partitionRestricted, distinct, count bool
}

// readWhere draws the shape of a read and its WHERE restrictions.
func (g *Generator) readWhere(s *stmt, t *table) ([]string, readShape) {
	r := g.r
	var where []string
	var sh readShape
	switch shape := r.IntN(24); {
	case shape < 4: // point
		where = append(eqs(s, t.pk, g.keyTuple(t.pk)), eqs(s, t.ck, g.keyTuple(t.ck))...)
		sh.partitionRestricted = true
	case shape < 8: // partition
		where = eqs(s, t.pk, g.keyTuple(t.pk))
		sh.partitionRestricted = true
	case shape < 11: // partition IN
		where = g.partitionIn(s, t)
		sh.partitionRestricted = true
		if r.IntN(2) == 0 {
			where = append(where, g.clusteringSlice(s, t)...)
		}
	case shape < 17: // clustering slice
		where = append(eqs(s, t.pk, g.keyTuple(t.pk)), g.clusteringSlice(s, t)...)
		sh.partitionRestricted = true
	case shape < 20: // full scan
	case shape < 22:
		sh.distinct = true
		if r.IntN(2) == 0 {
			where = g.partitionIn(s, t)
		}
	default:
		sh.count = true
		if r.IntN(2) == 0 {
			where = eqs(s, t.pk, g.keyTuple(t.pk))
			sh.partitionRestricted = true
			if r.IntN(2) == 0 {
				where = append(where, g.clusteringSlice(s, t)...)
			}
		}
	}
	return where, sh
}

// readColumns draws a selection of columns (some aliased) with WRITETIME
// and TTL selectors; ttlCols are the positions of the TTL ones.
func (g *Generator) readColumns(t *table) (sel []string, ttlCols []int) {
	r := g.r
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
	return sel, ttlCols
}

// readModifiers draws what follows a read's WHERE clause: ORDER BY, PER
// PARTITION LIMIT and LIMIT, each now and then.
func (g *Generator) readModifiers(t *table, sh readShape) string {
	r := g.r
	var q string
	if sh.partitionRestricted && len(t.ck) > 0 && !sh.count && r.IntN(4) == 0 {
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
	if !sh.count && r.IntN(8) == 0 && (!sh.distinct || r.IntN(8) == 0) {
		q += fmt.Sprintf(" PER PARTITION LIMIT %d", 1+r.IntN(3))
	}
	if r.IntN(4) == 0 {
		q += fmt.Sprintf(" LIMIT %d", 1+r.IntN(6))
	}
	return q
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
// rounding questions (decimal: BigDecimal's exact sums, half-even
// running averages).
var numericKinds = map[cql.Kind]bool{cql.KindInt: true, cql.KindBigint: true, cql.KindSmallint: true, cql.KindTinyint: true, cql.KindVarint: true,
	cql.KindDecimal: true}

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
		q = g.tokenRead(s, t)
	case 1: // filtering
		var ok bool
		if q, ok = g.filteringRead(s, t); !ok {
			return g.read(t) // nothing to filter on: another kind of read
		}
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
		q = g.aggregateRead(s, t)
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

// tokenRead draws a token range scan, or a token filter of listed
// partitions, with bounds from token values, the ring's ends or keys.
func (g *Generator) tokenRead(s *stmt, t *table) string {
	r := g.r
	pks := names(t.pk)
	var conds []string
	switch r.IntN(6) {
	case 0:
		conds = append(conds, g.tokenBound(s, t, pks, "="))
	case 1:
		conds = append(conds, g.tokenBound(s, t, pks, "<", "<="))
	default:
		conds = append(conds, g.tokenBound(s, t, pks, ">", ">="))
		if r.IntN(2) == 0 {
			conds = append(conds, g.tokenBound(s, t, pks, "<", "<="))
		}
	}
	if r.IntN(4) == 0 {
		conds = append(conds, g.partitionIn(s, t)...)
	}
	sel := "*"
	if r.IntN(3) == 0 {
		sel = "token(" + pks + "), " + pks
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s", sel, t.name, strings.Join(conds, " AND "))
}

// tokenBound draws one token(pks) restriction with one of ops.
func (g *Generator) tokenBound(s *stmt, t *table, pks string, ops ...string) string {
	r := g.r
	op := ops[r.IntN(len(ops))]
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("token(%s) %s %d", pks, op, r.Int64()-r.Int64())
	case 1: // the ring's start and end
		return fmt.Sprintf("token(%s) %s %d", pks, op, int64(math.MinInt64))
	}
	return fmt.Sprintf("token(%s) %s token(%s)", pks, op, g.tupleVals(s, t.pk))
}

// filteringRead draws a read filtering on a static or regular column (to
// run with ALLOW FILTERING); ok is false when no column can be filtered.
func (g *Generator) filteringRead(s *stmt, t *table) (q string, ok bool) {
	r := g.r
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
		return "", false
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
	return fmt.Sprintf("SELECT * FROM %s WHERE %s", t.name, strings.Join(where, " AND ")), true
}

// aggregateRead draws COUNT(*) with MIN, MAX, SUM and AVG of the regular
// columns that have them, in one partition.
func (g *Generator) aggregateRead(s *stmt, t *table) string {
	sel := []string{"COUNT(*)"}
	for _, c := range t.regulars {
		switch {
		case numericKinds[c.typ.Kind]:
			sel = append(sel, fmt.Sprintf("MIN(%s)", c.name), fmt.Sprintf("MAX(%s)", c.name), fmt.Sprintf("SUM(%s)", c.name), fmt.Sprintf("AVG(%s)", c.name))
		case !c.typ.IsCollection() && c.typ.Kind != cql.KindDuration:
			sel = append(sel, fmt.Sprintf("MIN(%s)", c.name), fmt.Sprintf("MAX(%s)", c.name))
		}
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(sel, ", "), t.name, strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND "))
}

// tupleVals renders values for cs, comma-separated (for token(...)).
func (g *Generator) tupleVals(s *stmt, cs []*column) string {
	vs := make([]string, len(cs))
	for i, c := range cs {
		vs[i] = s.val(c.typ, g.key(c))
	}
	return strings.Join(vs, ", ")
}
