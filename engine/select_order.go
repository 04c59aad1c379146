package engine

// ORDER BY on clustering columns: planning, and the in-memory ordering of
// rows collected across the partitions of an IN (ANN ordering: ann.go).

import (
	"sort"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

func (p *selectPlan) planOrder(ti *tableInfo, s *cql.Select, w *where) error {
	if len(s.OrderBy) == 0 {
		return nil
	}
	if !p.pkList {
		return invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	eqRestricted := func(pos int) bool {
		for _, r := range w.ck[pos] {
			if r.op == cql.OpEq {
				return true
			}
		}
		for _, m := range w.multi {
			if m.op == cql.OpEq {
				for _, c := range m.cols {
					if ti.cols[c].Position == pos {
						return true
					}
				}
			}
		}
		return false
	}
	orders, err := orderingColumns(ti, s.OrderBy)
	if err != nil {
		return err
	}
	// As Cassandra's SelectStatement.isReversed: every ordering is checked
	// (clustering column, declared order) before the directions are
	// compared, position by position.
	reversedAt := make([]*bool, len(ti.ck))
	i := 0
	for _, o := range orders {
		col := ti.cols[o.col]
		if col.Kind != schema.Clustering {
			return invalidf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", col.Name)
		}
		for i != col.Position {
			// Cassandra walks forward from i looking for equality
			// restrictions; going back to an earlier column ends with
			// an out-of-bounds server error there, answered here as the
			// declared-order error.
			if i > col.Position || !eqRestricted(i) {
				return invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
			}
			i++
		}
		i++
		r := o.desc != col.Desc
		reversedAt[col.Position] = &r
		p.orderBy = append(p.orderBy, orderCol{pos: col.Position, desc: o.desc})
	}
	var reversed *bool
	for _, r := range reversedAt {
		switch {
		case r == nil:
		case reversed == nil:
			reversed = r
		case *reversed != *r:
			return invalidf("Unsupported order by relation")
		}
	}
	p.reverse = *reversed
	return nil
}

// ordering is one ORDER BY column after orderingColumns merged repeats.
type ordering struct {
	col  int
	desc bool
}

// orderingColumns resolves the ORDER BY columns and merges a column named
// more than once (ORMs write ORDER BY a ASC, a DESC) as Cassandra's
// LinkedHashMap of orderings does: the column keeps the place of its first
// mention and takes the direction of its last.
func orderingColumns(ti *tableInfo, obs []cql.Ordering) ([]ordering, error) {
	out := make([]ordering, 0, len(obs))
	at := make(map[int]int, len(obs))
	for _, o := range obs {
		c, err := ti.column(o.Column)
		if err != nil {
			return nil, err
		}
		if j, ok := at[c]; ok {
			out[j].desc = o.Desc
			continue
		}
		at[c] = len(out)
		out = append(out, ordering{col: c, desc: o.Desc})
	}
	return out, nil
}

func (s *selectRun) sortCollected() {
	order := s.p.orderBy
	idx := make([]int, len(s.rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := s.sortKey[idx[a]], s.sortKey[idx[b]]
		for _, o := range order {
			col := s.ti.cols[s.ti.ck[o.pos]]
			var va, vb []byte
			if o.pos < len(ka) {
				va = ka[o.pos]
			}
			if o.pos < len(kb) {
				vb = kb[o.pos]
			}
			c := cql.Compare(col.Type, va, vb)
			// Cassandra puts nulls (rows of static-only partitions) first
			// in the declared clustering order, then reverses the whole
			// comparison when the query's order is the other one.
			reverse := o.desc
			if va == nil || vb == nil {
				reverse = o.desc != col.Desc
			}
			if reverse {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	rows := make([][][]byte, len(idx))
	for i, j := range idx {
		rows[i] = s.rows[j]
	}
	s.rows = rows
}

// needsPostOrdering: IN on the partition key with ORDER BY sorts rows of
// all partitions in memory, as Cassandra does.
func (p *selectPlan) needsPostOrdering() bool {
	return len(p.orderBy) > 0 && !p.sel.aggregate && p.keyIsInRelation()
}

// keyIsInRelation reports an IN on the partition key. As in Cassandra, an
// IN with a single value is an equality (IN (1, 1) is still an IN).
func (p *selectPlan) keyIsInRelation() bool {
	for _, rs := range p.w.pk {
		if len(rs) > 0 && rs[0].op == cql.OpIn && (rs[0].in == nil || len(rs[0].in) != 1) {
			return true
		}
	}
	return false
}
