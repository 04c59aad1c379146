package engine

import (
	"bytes"
	"context"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// selectPlan is a planned SELECT.
type selectPlan struct {
	ti       *tableInfo
	w        *where
	pkList   bool    // partition key fully restricted by EQ/IN
	ck       *ckPlan // clustering restrictions (pkList only)
	filters  []*restriction
	index    *indexUse // candidate rows from indexes (scans only)
	sel      *selection
	reverse  bool
	orderBy  []orderCol // post-query ordering across IN partitions
	ann      *annPlan   // ORDER BY ... ANN OF
	limit    cql.Term
	ppl      cql.Term
	distinct bool
	// grouped: GROUP BY on the partition key and the first groupCK
	// clustering columns.
	grouped bool
	groupCK int
	// staticRows: a partition without rows but with static content yields
	// a row (Cassandra's "queries full partitions").
	staticRows bool
	specs      []bindings.ColumnSpec
	// warnings are the client warnings of every execution (warn.go).
	warnings []string
}

type orderCol struct {
	pos  int // clustering position
	desc bool
}

func (b *planner) planSelect(s *cql.Select) (plan, error) {
	p, w, err := b.selectBasics(s)
	if err != nil {
		return nil, err
	}
	ti := p.ti
	// With the whole partition key restricted by = or IN, token
	// restrictions filter the listed partitions (token.go).
	p.pkList = w.pkExact()
	if restrictsVectorIndex(ti, w) {
		return nil, invalidf("Vector indexes only support ANN queries")
	}
	allowFiltering := s.AllowFiltering
	if hasANN(s) {
		if p.ann, err = b.planANN(ti, s, w); err != nil {
			return nil, err
		}
		// Every restriction is indexed or on the key (planANN): the rows
		// are read as an ALLOW FILTERING query would read them.
		allowFiltering = true
	}
	if err := p.planFilters(s, w, allowFiltering); err != nil {
		return nil, err
	}
	if err := p.planShape(s, w); err != nil {
		return nil, err
	}
	p.warnings = p.aggregateWarnings()
	b.result = p.specs
	return p, nil
}

// selectBasics resolves a SELECT's table, selection and WHERE clause, and
// notes the types of its bind markers.
func (b *planner) selectBasics(s *cql.Select) (*selectPlan, *where, error) {
	ti, err := b.st.lookupTable(b.ks, s.Keyspace, s.Table)
	if err != nil {
		return nil, nil, err
	}
	b.table = ti
	p := &selectPlan{ti: ti, distinct: s.Distinct, limit: s.Limit, ppl: s.PerPartitionLimit}
	if p.sel, err = b.compileSelection(ti, s); err != nil {
		return nil, nil, err
	}
	w, err := b.analyzeWhere(ti, s.Where)
	if err != nil {
		return nil, nil, err
	}
	p.w = w
	for _, rs := range w.pk {
		for _, r := range rs {
			if r.op == cql.OpEq {
				b.noteEq(ti, r.cols[0], r.value)
			}
		}
	}
	b.walkTerm(s.Limit, cql.Scalar(cql.KindInt), "[limit]", ti)
	b.walkTerm(s.PerPartitionLimit, cql.Scalar(cql.KindInt), "[per_partition_limit]", ti)
	return p, w, nil
}

// planFilters chooses the index a scan reads and turns the restrictions
// that neither the key nor the index resolves into filters, refusing those
// that need ALLOW FILTERING without it.
func (p *selectPlan) planFilters(s *cql.Select, w *where, allowFiltering bool) error {
	ti := p.ti
	idx := chooseIndex(ti, w)
	if idx != nil {
		if hasINOnKey(w) {
			return errIndexWithIN
		}
		if len(s.OrderBy) > 0 && p.ann == nil {
			return invalidf("ORDER BY with 2ndary indexes is not supported, except for ANN queries.")
		}
	}
	if !p.pkList && w.hasPK() {
		var pkRs []*restriction
		for _, rs := range w.pk {
			pkRs = append(pkRs, rs...)
		}
		if !allowFiltering && !idx.coversAll(pkRs) {
			return errRequiresFiltering
		}
		for _, rs := range w.pk {
			p.filters = append(p.filters, rs...)
		}
	}
	if err := p.planCKFilters(w, idx, allowFiltering); err != nil {
		return err
	}
	if len(w.others) > 0 {
		if !allowFiltering && !idx.coversAll(w.others) {
			return errRequiresFiltering
		}
		p.filters = append(p.filters, w.others...)
	}
	if !p.pkList {
		p.index = idx
	}
	return nil
}

// planCKFilters plans the clustering restrictions: slices of the listed
// partitions (filters for what is left over), or filters of a scan.
func (p *selectPlan) planCKFilters(w *where, idx *indexUse, allowFiltering bool) error {
	ti := p.ti
	if p.pkList {
		p.ck = planClustering(ti, w)
		if len(p.ck.leftover) > 0 {
			if !allowFiltering && !idx.coversAll(p.ck.leftover) {
				return p.ck.filteringError(ti, w)
			}
			p.filters = append(p.filters, p.ck.leftover...)
		}
		return nil
	}
	if !w.hasCK() {
		return nil
	}
	var ckRs []*restriction
	for _, rs := range w.ck {
		ckRs = append(ckRs, rs...)
	}
	ckCovered := len(w.multi) == 0 && idx.coversAll(ckRs)
	ck := planClustering(ti, w)
	if err := ck.filteringError(ti, w); err != nil && !allowFiltering && err != errRequiresFiltering && idx == nil {
		return err
	}
	if !allowFiltering && !ckCovered {
		return errRequiresFiltering
	}
	for _, rs := range w.ck {
		p.filters = append(p.filters, rs...)
	}
	p.filters = append(p.filters, w.multi...)
	return nil
}

// planShape checks and plans what a SELECT returns: static-only rows,
// DISTINCT, ordering, ANN, GROUP BY and the result columns.
func (p *selectPlan) planShape(s *cql.Select, w *where) error {
	ti := p.ti
	// As Cassandra's queriesFullPartitions: restrictions on static columns
	// (filtering) still let a static-only partition yield its row.
	p.staticRows = !w.hasCK()
	for _, r := range w.others {
		if ti.cols[r.cols[0]].Kind == schema.Regular {
			p.staticRows = false
		}
	}
	if w.hasCK() && p.sel.onlyStatic(ti) {
		return invalidf("Cannot restrict clustering columns when selecting only static columns")
	}
	if s.PerPartitionLimit != nil && p.sel.aggregate && !s.Distinct {
		return invalidf("PER PARTITION LIMIT is not allowed with aggregate queries.")
	}

	if s.Distinct {
		if err := p.checkDistinct(ti, s, w); err != nil {
			return err
		}
	}
	if p.ann != nil {
		if err := p.checkANNSelect(s); err != nil {
			return err
		}
	} else if err := p.planOrder(ti, s, w); err != nil {
		return err
	}
	if len(s.GroupBy) > 0 {
		if err := p.planGroupBy(ti, s, w); err != nil {
			return err
		}
	}
	p.specs = p.sel.specs()
	if p.sel.json {
		p.specs = []bindings.ColumnSpec{ti.specNamed("[json]", cql.Scalar(cql.KindText))}
	}
	return nil
}

// checkDistinct follows Cassandra's validateDistinctSelection: only
// partition-key and static restrictions, only partition-key and static
// columns read by the selectors (through functions and aggregates too:
// ORMs send SELECT DISTINCT count(k)), and every partition-key column read
// when the query ranges over partitions. Aggregates then aggregate the one
// row of each partition.
func (p *selectPlan) checkDistinct(ti *tableInfo, s *cql.Select, w *where) error {
	if s.PerPartitionLimit != nil {
		return invalidf("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
	}
	regular := false
	for _, r := range w.others {
		if ti.cols[r.cols[0]].Kind == schema.Regular {
			regular = true
		}
	}
	if w.hasCK() || regular {
		return invalidf("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	seen := map[int]bool{}
	for _, sc := range p.sel.sels {
		for _, c := range sc.reads(ti) {
			k := ti.cols[c].Kind
			if k != schema.PartitionKey && k != schema.Static {
				return invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", ti.cols[c].Name)
			}
			seen[c] = true
		}
	}
	if p.pkList {
		return nil
	}
	for _, c := range ti.pk {
		if !seen[c] {
			return invalidf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", ti.cols[c].Name)
		}
	}
	return nil
}

// planGroupBy checks GROUP BY as Cassandra does: primary key columns in
// order, skipping only columns restricted by equality, never part of the
// partition key.
func (p *selectPlan) planGroupBy(ti *tableInfo, s *cql.Select, w *where) error {
	if s.PerPartitionLimit != nil {
		return bindings.Unsupported("PER PARTITION LIMIT with GROUP BY is not supported by dohyo's wide-column engine")
	}
	keyCols := append(append([]int(nil), ti.pk...), ti.ck...)
	eqRestricted := func(c int) bool {
		col := ti.cols[c]
		var rs []*restriction
		if col.Kind == schema.PartitionKey {
			rs = w.pk[col.Position]
		} else {
			rs = w.ck[col.Position]
		}
		for _, r := range rs {
			if r.op == cql.OpEq {
				return true
			}
		}
		return false
	}
	next := 0
	for _, name := range s.GroupBy {
		c, err := ti.column(name)
		if err != nil {
			return err
		}
		if !ti.isKey(c) {
			return invalidf("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", name)
		}
		for {
			if next >= len(keyCols) {
				return invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
			k := keyCols[next]
			next++
			if ti.cols[k].Kind == schema.Clustering {
				p.groupCK++
			}
			if k == c {
				break
			}
			if !eqRestricted(k) {
				return invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
		}
	}
	if next < len(ti.pk) {
		return invalidf("Group by is not supported on only a part of the partition key")
	}
	if p.groupCK > 0 && p.distinct {
		return invalidf("Grouping on clustering columns is not allowed for SELECT DISTINCT queries")
	}
	if p.groupCK > 0 && p.needsPostOrdering() {
		return invalidf("Grouping on clustering columns is not allowed for queries with ORDER BY on IN partitions")
	}
	p.grouped = true
	return nil
}

// checkPagedPostOrdering refuses to page a query that needs post-query
// ordering, following Cassandra's SelectStatement.execute: a query that
// selects nothing whatever the data is answered unpaged (so it passes);
// aggregates always page internally (so they fail); the LIMIT does not
// matter, since post-ordered queries read without it.
func (s *selectRun) checkPagedPostOrdering() error {
	p := s.p
	if s.x.pageSize <= 0 || len(p.orderBy) == 0 || !p.keyIsInRelation() {
		return nil
	}
	if !p.sel.aggregate && !p.grouped {
		empty, err := s.emptySelection()
		if err != nil || empty {
			return err
		}
	}
	return invalidf("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")
}

// emptySelection reports whether the restrictions select no row whatever
// the data: no partition key (IN ()), or clustering restrictions that
// cannot match (an empty IN, slice bounds that cross).
func (s *selectRun) emptySelection() (bool, error) {
	if !s.p.pkList {
		return false, nil
	}
	keys, err := s.x.partitionKeys(s.ti, s.p.w)
	if err != nil || len(keys) == 0 {
		return err == nil, err
	}
	if !s.ti.hasCK {
		return false, nil
	}
	ev, err := s.x.evalClustering(s.ti, s.p.ck)
	if err != nil {
		return false, err
	}
	points, ranges, err := ev.ranges(s.ti, keys[0])
	if err != nil {
		return false, err
	}
	return len(points) == 0 && len(ranges) == 0, nil
}

func (p *selectPlan) execute(ctx context.Context, x *execCtx) (*bindings.Result, error) {
	res, err := p.read(ctx, x)
	if err == nil && p.warnings != nil {
		res.Warnings = p.warnings
	}
	return res, err
}

func (p *selectPlan) read(ctx context.Context, x *execCtx) (*bindings.Result, error) {
	if x.serial && p.pkList {
		return p.executeSerial(ctx, x)
	}
	run := &selectRun{p: p, x: x, ti: p.ti, limit: -1, env: x.rowEnv()}
	if err := p.sel.checkConsts(p.ti, run.env); err != nil {
		return nil, err
	}
	var err error
	if run.limit, err = x.evalLimit(p.limit, "[limit]", "LIMIT"); err != nil {
		return nil, err
	}
	if run.ppl, err = x.evalLimit(p.ppl, "[per_partition_limit]", "PER PARTITION LIMIT"); err != nil {
		return nil, err
	}
	if run.filters, err = x.evalFilters(p.ti, p.filters); err != nil {
		return nil, err
	}
	if x.pageSize > 0 && !p.sel.aggregate && !p.grouped {
		// Grouped results come in one page (groups are built in memory).
		run.pageSize = int(x.pageSize)
	}
	if err := run.checkPagedPostOrdering(); err != nil {
		return nil, err
	}
	if p.needsPostOrdering() {
		run.collect = true
		run.pageSize = 0
	}
	if p.ann != nil {
		if err := run.startANN(); err != nil {
			return nil, err
		}
	}
	if p.sel.aggregate && !p.grouped {
		run.agg = newAggState(p.sel)
	}
	if p.grouped && x.pageSize > 0 && len(x.pagingState) > 0 {
		// Groups are built in memory and paged by offset (see result).
		ps, err := decodePagingState(x.pagingState)
		if err != nil {
			return nil, err
		}
		run.groupOffset = ps.partIdx
	}
	var resume *pagingState
	if len(x.pagingState) > 0 && run.pageSize > 0 {
		if resume, err = decodePagingState(x.pagingState); err != nil {
			return nil, err
		}
		run.limit = resume.remaining
	}
	if run.limit == 0 {
		return run.result(), nil
	}
	if !run.collect && run.agg == nil && !p.grouped && len(run.filters) == 0 {
		switch {
		case run.pageSize > 0 && (run.limit < 0 || run.pageSize < run.limit):
			x.scanHint = run.pageSize + 1
		case run.limit > 0:
			x.scanHint = run.limit + 1
		}
	}
	if p.pkList {
		err = run.runPartitions(ctx, resume)
	} else {
		err = run.runScan(ctx, resume)
	}
	if err != nil {
		return nil, err
	}
	res := run.result()
	if run.env.err != nil {
		return nil, run.env.err
	}
	return res, nil
}

// executeSerial runs a SERIAL read of one partition holding the partition
// (see coord.go): it sees every LWT that completed before it started, and
// an LWT committed by a process that died is completed first.
func (p *selectPlan) executeSerial(ctx context.Context, x *execCtx) (*bindings.Result, error) {
	keys, err := x.partitionKeys(p.ti, p.w)
	if err != nil {
		return nil, err
	}
	if len(keys) > 1 {
		return nil, invalidf("SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time")
	}
	refs := make([]partRef, 0, 1)
	for _, pk := range keys {
		hkey, err := x.partitionKey(p.ti, pk)
		if err != nil {
			return nil, err
		}
		refs = append(refs, partRef{ti: p.ti, key: hkey})
	}
	gs, err := x.e.lockParts(ctx, refs)
	if err != nil {
		return nil, err
	}
	defer gs.abort(ctx)
	x.serial = false
	return p.execute(ctx, x)
}

// evalLimit evaluates LIMIT or PER PARTITION LIMIT; -1 means none.
func (x *execCtx) evalLimit(t cql.Term, recv, what string) (int, error) {
	if t == nil {
		return -1, nil
	}
	b, unset, err := x.eval(cql.Scalar(cql.KindInt), t, recv)
	if err != nil {
		return 0, err
	}
	if unset {
		return -1, nil
	}
	if b == nil {
		return 0, invalidf("Invalid null value of limit")
	}
	n := int32(be32u(b))
	if n <= 0 {
		return 0, invalidf("%s must be strictly positive", what)
	}
	return int(n), nil
}

// selectRun is one execution of a selectPlan: counting, limits, paging.
type selectRun struct {
	p       *selectPlan
	x       *execCtx
	ti      *tableInfo
	filters []*evFilter
	rows    [][][]byte
	sortKey [][][]byte // collect mode: clustering values per row
	agg     *aggState
	env     *rowEnv  // selection evaluation (functions)
	gkey    [][]byte // GROUP BY: key of the group being aggregated

	limit       int // remaining LIMIT; -1: none
	ppl         int // PER PARTITION LIMIT; -1: none
	groupOffset int // GROUP BY: groups returned by earlier pages
	pageSize    int
	collect     bool // post-query ordering: read everything, sort, then limit
	ann         *annRun

	// position of the last returned row
	partIdx   int
	partCount int
	partDone  bool
	lastKey   []byte
	stopped   bool // page full or LIMIT reached
	paged     bool // stopped because the page is full
	// single: the query targets one partition (paging exhaustion rule).
	lastPartition bool
}

// emit adds one row; it returns false when the current partition must not
// produce more rows (or the query is stopped).
func (s *selectRun) emit(r *cqlRow, statics *cqlRow, staticRow bool) bool {
	p := s.p
	s.partCount++
	if p.grouped {
		s.group(r, statics)
		if s.ppl > 0 && s.partCount >= s.ppl {
			s.partDone = true
		}
		return !s.partDone
	}
	if s.agg != nil {
		s.agg.add(p.sel, s.ti, r, statics, s.env)
	} else if s.ann != nil {
		s.ann.offer(s, r, statics)
	} else {
		if s.rows == nil {
			s.rows = s.x.resultRows()
		}
		s.rows = append(s.rows, p.sel.project(s.ti, r, statics, s.env))
		if s.collect {
			s.sortKey = append(s.sortKey, r.ck)
		}
	}
	s.lastKey = r.key
	s.partDone = staticRow || p.distinct || !s.ti.hasCK
	if s.ppl > 0 && s.partCount >= s.ppl {
		s.partDone = true
	}
	if s.agg != nil || s.collect {
		return !s.partDone
	}
	if s.limit > 0 {
		s.limit--
		if s.limit == 0 {
			s.stopped = true
			return false
		}
	}
	if s.pageSize > 0 && len(s.rows) >= s.pageSize {
		s.stopped, s.paged = true, true
		return false
	}
	return !s.partDone
}

// partition processes the rows of one partition. points/pointRows or ranges
// select clustering rows; resume continues after a row key.
func (s *selectRun) partition(ctx context.Context, part *partition, points [][]byte, pointRows []kv.Row, ranges []KeyRange, resume []byte) error {
	statics := part.hdr.statics
	if s.p.distinct {
		if resume != nil {
			return nil
		}
		live := statics != nil
		if !live {
			err := s.x.visitRows(ctx, s.ti, part, points, pointRows, ranges, false, nil, func(r *cqlRow) (bool, error) {
				live = true
				return false, nil
			})
			if err != nil {
				return err
			}
		}
		if live {
			row := &cqlRow{key: part.key, pk: part.pk, static: true}
			if statics != nil {
				row = statics
			}
			if matchAll(s.filters, s.ti, row, statics) {
				s.emit(row, statics, true)
			}
		}
		return nil
	}
	any := resume != nil
	err := s.x.visitRows(ctx, s.ti, part, points, pointRows, ranges, s.p.reverse, resume, func(r *cqlRow) (bool, error) {
		any = true
		if !matchAll(s.filters, s.ti, r, statics) {
			return true, nil
		}
		return s.emit(r, statics, false), nil
	})
	if err != nil || s.stopped || any {
		return err
	}
	if s.p.staticRows && statics != nil && s.ti.hasCK && matchAll(s.filters, s.ti, statics, statics) {
		s.emit(statics, statics, true)
	}
	return nil
}

// runPartitions executes a query over an explicit list of partitions.
func (s *selectRun) runPartitions(ctx context.Context, resume *pagingState) error {
	keys, err := s.x.partitionKeys(s.ti, s.p.w)
	if err != nil {
		return err
	}
	ev, err := s.x.evalClustering(s.ti, s.p.ck)
	if err != nil {
		return err
	}
	start := 0
	var after []byte
	if resume != nil {
		start = resume.partIdx
		if resume.partDone {
			start++
		} else {
			after = resume.lastKey
			s.partCount = resume.partCount
		}
	}
	// Tables without clustering columns keep a whole partition in its
	// header row: fetch every IN partition in one multi-get instead of one
	// round trip per partition (HBase: 100 sequential RPCs otherwise).
	var pre []kv.Row
	if !s.ti.hasCK && len(keys)-start > 1 {
		if pre, err = s.x.prefetchHeaders(ctx, s.ti, keys[start:]); err != nil {
			return err
		}
	}
	for i := start; i < len(keys); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		pk := keys[i]
		s.partIdx, s.lastPartition = i, i == len(keys)-1
		if i != start || after == nil {
			s.partCount = 0
		}
		s.partDone = false
		var points [][]byte
		var ranges []KeyRange
		if s.ti.hasCK {
			if points, ranges, err = ev.ranges(s.ti, pk); err != nil {
				return err
			}
			if points == nil && len(ranges) == 0 && !s.p.staticRows && !s.p.distinct {
				continue
			}
		}
		var part *partition
		var pointRows []kv.Row
		if pre != nil {
			part, err = s.x.partitionFromHeader(s.ti, pk, pre[i-start].Key, pre[i-start])
		} else {
			part, pointRows, err = s.x.openPartition(ctx, s.ti, pk, points)
		}
		if err != nil {
			return err
		}
		if err := s.partition(ctx, part, points, pointRows, ranges, after); err != nil {
			return err
		}
		after = nil
		if s.stopped {
			return nil
		}
	}
	return nil
}

// result builds the RESULT, with a paging state when more rows may follow.
func (s *selectRun) result() *bindings.Result {
	res := s.x.newResult()
	*res = bindings.Result{Kind: bindings.ResultRows, Columns: s.p.specs}
	switch {
	case s.p.grouped:
		s.flushGroup()
		if s.limit >= 0 && len(s.rows) > s.limit {
			s.rows = s.rows[:s.limit]
		}
		// A page holds at most page-size groups, as in Cassandra; the
		// paging state is the number of groups already returned.
		if size := int(s.x.pageSize); size > 0 {
			off := min(s.groupOffset, len(s.rows))
			end := min(off+size, len(s.rows))
			if end < len(s.rows) {
				// lastKey must be non-empty; grouped pages do not use it.
				res.PagingState = (&pagingState{remaining: -1, partIdx: end, lastKey: []byte{0}}).encode()
			}
			s.rows = s.rows[off:end]
		}
	case s.agg != nil:
		res.Rows = [][][]byte{s.agg.result(s.p.sel, s.ti, s.env)}
		if s.p.sel.json {
			res.Rows = jsonRows(s.p.sel.specs(), res.Rows)
		}
		return res
	case s.ann != nil:
		s.rows = s.ann.rows()
	case s.collect:
		s.sortCollected()
		if s.limit >= 0 && len(s.rows) > s.limit {
			s.rows = s.rows[:s.limit]
		}
	}
	res.Rows = s.rows
	if res.Rows == nil {
		res.Rows = [][][]byte{}
	}
	if s.p.sel.json {
		res.Rows = jsonRows(s.p.sel.specs(), res.Rows)
	}
	if s.paged && s.limit != 0 && !(s.lastPartition && s.partDone) {
		ps := &pagingState{remaining: s.limit, partIdx: s.partIdx, partCount: s.partCount, partDone: s.partDone, lastKey: s.lastKey}
		res.PagingState = ps.encode()
	}
	return res
}

// group adds a row to the current GROUP BY group, starting a new group
// when the partition key or the grouped clustering prefix changes.
func (s *selectRun) group(r *cqlRow, statics *cqlRow) {
	key := make([][]byte, 0, len(r.pk)+s.p.groupCK)
	key = append(key, r.pk...)
	for i := 0; i < s.p.groupCK; i++ {
		var v []byte
		if i < len(r.ck) {
			v = r.ck[i]
		}
		key = append(key, v)
	}
	if s.agg == nil || !sameKey(key, s.gkey) {
		s.flushGroup()
		s.agg, s.gkey = newAggState(s.p.sel), key
	}
	s.agg.add(s.p.sel, s.ti, r, statics, s.env)
}

func (s *selectRun) flushGroup() {
	if s.agg != nil && s.agg.seen {
		s.rows = append(s.rows, s.agg.result(s.p.sel, s.ti, s.env))
	}
	s.agg = nil
}

func sameKey(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) || (a[i] == nil) != (b[i] == nil) {
			return false
		}
	}
	return true
}
