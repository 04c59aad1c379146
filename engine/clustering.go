package engine

import (
	"github.com/dohyo/dohyo/cql"
)

// ckPlan is the clustering part of a WHERE clause: an equality prefix (EQ or
// IN, single- or multi-column), then an optional slice, then leftovers that
// can only be applied as filters.
type ckPlan struct {
	eqs       []*restriction // consumed EQ/IN steps in column order
	prefixLen int            // clustering columns fixed by eqs
	lower     *restriction   // slice restrictions after the prefix
	upper     *restriction
	leftover  []*restriction // need filtering
}

func (p *ckPlan) full(nck int) bool { return p.prefixLen == nck && p.lower == nil && p.upper == nil }

func (p *ckPlan) empty() bool {
	return len(p.eqs) == 0 && p.lower == nil && p.upper == nil && len(p.leftover) == 0
}

// planClustering splits clustering restrictions into what key ranges can
// express and what must be filtered.
func planClustering(ti *tableInfo, w *where) *ckPlan {
	p := &ckPlan{}
	used := map[*restriction]bool{}
	nck := len(ti.ck)
	i := 0
	for i < nck {
		if rs := w.ck[i]; len(rs) == 1 && rs[0].isEQorIN() {
			p.eqs = append(p.eqs, rs[0])
			used[rs[0]] = true
			i++
			continue
		}
		var m *restriction
		for _, r := range w.multi {
			if (r.op == cql.OpEq || r.op == cql.OpIn) && ti.cols[r.cols[0]].Position == i {
				m = r
			}
		}
		if m == nil {
			break
		}
		p.eqs = append(p.eqs, m)
		used[m] = true
		i += len(m.cols)
	}
	p.prefixLen = i
	if i < nck {
		multiSlice := false
		for _, r := range w.multi {
			if r.isSlice() && ti.cols[r.cols[0]].Position == i {
				multiSlice = true
				if isLower(r.op) {
					p.lower = r
				} else {
					p.upper = r
				}
				used[r] = true
			}
		}
		if !multiSlice {
			for _, r := range w.ck[i] {
				if r.isSlice() {
					if isLower(r.op) {
						p.lower = r
					} else {
						p.upper = r
					}
					used[r] = true
				}
			}
		}
	}
	for pos := 0; pos < nck; pos++ {
		for _, r := range w.ck[pos] {
			if !used[r] {
				p.leftover = append(p.leftover, r)
			}
		}
	}
	for _, r := range w.multi {
		if !used[r] {
			p.leftover = append(p.leftover, r)
		}
	}
	return p
}

// filteringError is Cassandra's complaint about clustering restrictions
// that would need filtering.
func (p *ckPlan) filteringError(ti *tableInfo, w *where) error {
	if len(p.leftover) == 0 {
		return nil
	}
	// Restricted columns in position order against the clustering columns.
	restricted := make([]bool, len(ti.ck))
	for pos, rs := range w.ck {
		if len(rs) > 0 {
			restricted[pos] = true
		}
	}
	for _, m := range w.multi {
		for _, c := range m.cols {
			restricted[ti.cols[c].Position] = true
		}
	}
	var names []int
	for pos, r := range restricted {
		if r {
			names = append(names, pos)
		}
	}
	for i, pos := range names {
		if pos != i {
			return invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted",
				ti.cols[ti.ck[pos]].Name, ti.cols[ti.ck[i]].Name)
		}
	}
	// Contiguous but after a slice.
	slicePos := p.prefixLen
	for _, r := range p.leftover {
		pos := ti.cols[r.cols[0]].Position
		if pos > slicePos && slicePos < len(ti.ck) {
			return invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)",
				ti.cols[ti.ck[pos]].Name, ti.cols[ti.ck[slicePos]].Name)
		}
	}
	return errRequiresFiltering
}

var errRequiresFiltering = invalidf("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")

// ckEval is a ckPlan evaluated with bound values: the equality prefixes
// (sorted in clustering order, deduplicated) and slice bounds.
type ckEval struct {
	prefixes     [][][]byte
	lower, upper *Bound
	full         bool
	one          [1][][]byte // backs prefixes until a restriction replaces it
}

// unrestricted are the evaluations of a clustering plan without
// restrictions (not full, full: a table without clustering columns), shared
// by every statement: read-only, like every ckEval once evaluated.
var unrestricted = [2]ckEval{{prefixes: [][][]byte{nil}}, {prefixes: [][][]byte{nil}, full: true}}

func (x *execCtx) evalClustering(ti *tableInfo, p *ckPlan) (*ckEval, error) {
	if len(p.eqs) == 0 && p.lower == nil && p.upper == nil {
		if p.full(len(ti.ck)) {
			return &unrestricted[1], nil
		}
		return &unrestricted[0], nil
	}
	ev := &ckEval{full: p.full(len(ti.ck))}
	ev.prefixes = ev.one[:]
	for _, r := range p.eqs {
		var vals [][][]byte
		if r.multi {
			t, err := x.tupleValues(ti, r)
			if err != nil {
				return nil, err
			}
			vals = t
		} else {
			vs, err := x.restrictionValues(ti, r)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				vals = append(vals, [][]byte{v})
			}
		}
		var err error
		if ev.prefixes, err = cartesian(ev.prefixes, vals); err != nil {
			return nil, err
		}
	}
	bound := func(r *restriction) (*Bound, error) {
		if r == nil {
			return nil, nil
		}
		incl := r.op == cql.OpGte || r.op == cql.OpLte
		if r.multi {
			t, err := x.tupleValues(ti, r)
			if err != nil {
				return nil, err
			}
			return &Bound{Values: t[0], Inclusive: incl}, nil
		}
		vs, err := x.sliceValue(ti, r)
		if err != nil {
			return nil, err
		}
		return &Bound{Values: [][]byte{vs}, Inclusive: incl}, nil
	}
	var err error
	if ev.lower, err = bound(p.lower); err != nil {
		return nil, err
	}
	if ev.upper, err = bound(p.upper); err != nil {
		return nil, err
	}
	if len(ev.prefixes) > 1 {
		ev.prefixes = sortPrefixes(ti, ev.prefixes)
	}
	return ev, nil
}

// sliceValue evaluates the bound of a single-column slice.
func (x *execCtx) sliceValue(ti *tableInfo, r *restriction) ([]byte, error) {
	col := ti.cols[r.cols[0]]
	v, unset, err := x.eval(col.Type, r.value, col.Name)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid unset value for column %s", col.Name)
	}
	if v == nil {
		return nil, invalidf("Invalid null value in condition for column %s", col.Name)
	}
	return v, nil
}

// sortPrefixes orders clustering prefixes in clustering (key) order and
// removes duplicates, as Cassandra does for IN on clustering columns.
func sortPrefixes(ti *tableInfo, prefixes [][][]byte) [][][]byte {
	type kp struct {
		key []byte
		p   [][]byte
	}
	items := make([]kp, 0, len(prefixes))
	keys := make([][]byte, 0, len(prefixes))
	byKey := map[string][][]byte{}
	for _, p := range prefixes {
		k, err := ti.codec.appendClustering(nil, p)
		if err != nil {
			continue
		}
		if _, dup := byKey[string(k)]; dup {
			continue
		}
		byKey[string(k)] = p
		keys = append(keys, k)
	}
	keys = sortUniqueKeys(keys)
	for _, k := range keys {
		items = append(items, kp{k, byKey[string(k)]})
	}
	out := make([][][]byte, len(items))
	for i, it := range items {
		out[i] = it.p
	}
	return out
}

// ranges returns the key ranges of partition pk selected by the evaluated
// clustering restrictions, in clustering order; points holds full row keys
// instead when every clustering column is fixed.
func (ev *ckEval) ranges(ti *tableInfo, pk [][]byte) (points [][]byte, rs []KeyRange, err error) {
	if ev.full && len(ti.ck) > 0 {
		points = make([][]byte, 0, len(ev.prefixes))
		for _, p := range ev.prefixes {
			k, err := ti.codec.RowKey(pk, p)
			if err != nil {
				return nil, nil, err
			}
			points = append(points, k)
		}
		return points, nil, nil
	}
	for _, p := range ev.prefixes {
		r, err := ti.codec.Slice(pk, p, ev.lower, ev.upper)
		if err != nil {
			return nil, nil, err
		}
		rs = append(rs, r...)
	}
	return nil, rs, nil
}
