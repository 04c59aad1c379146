package engine

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/murmur3"
	"github.com/dohyo/dohyo/schema"
)

type selKind int

const (
	selColumn selKind = iota
	selWritetime
	selTTL
	selToken
	selExpr // a function call or cast (fn_select.go)
	selCountStar
	selCount
	selMin
	selMax
	selSum
	selAvg
	selUDA     // a user-defined aggregate (fn_udf.go)
	selPostAgg // a function or operation over aggregates (fn_postagg.go)
)

func (k selKind) aggregate() bool { return k >= selCountStar }

// selector is one compiled result column.
type selector struct {
	kind selKind
	col  int // column index (not for COUNT(*) and token)
	spec bindings.ColumnSpec
	// args: token() of columns other than the partition key (nil: of
	// the partition key).
	args []int
	// field: a UDT field selection (c.f) of column col: index + 1.
	field int
	// expr: selExpr (and an aggregate of an expression); refs: the
	// columns it reads.
	expr expr
	refs []int
	// argType: the type an aggregate of an expression aggregates.
	argType *cql.Type
	// uda: selUDA's aggregate.
	uda *udaImpl
	// inner: selPostAgg's slots, aggregated before expr is evaluated.
	inner *selection
}

// aggType is the type of the values an aggregate selector accumulates.
func (sc selector) aggType(ti *tableInfo) *cql.Type {
	if sc.expr != nil {
		return sc.argType
	}
	return ti.cols[sc.col].Type
}

// selection is a compiled SELECT clause.
type selection struct {
	sels      []selector
	aggregate bool
	// statics reports that a static column is selected.
	statics bool
	json    bool // SELECT JSON: rows become one "[json]" text column
	// consts: the selection's subexpressions over terms only (1 / 0),
	// which Cassandra computes once per execution, before any row
	// (fn_const.go).
	consts []expr
}

func (b *planner) compileSelection(ti *tableInfo, s *cql.Select) (*selection, error) {
	sel := &selection{json: s.JSON}
	if s.Star {
		for i := range ti.cols {
			sel.sels = append(sel.sels, selector{kind: selColumn, col: i, spec: ti.colSpec(i)})
			if ti.cols[i].Kind == schema.Static {
				sel.statics = true
			}
		}
		return sel, nil
	}
	hasAgg := false
	b.consts = &sel.consts
	defer func() { b.consts = nil }()
	for _, sl := range s.Selectors {
		sc, err := b.compileSelector(ti, sl)
		if err != nil {
			return nil, err
		}
		if sl.Alias != "" {
			sc.spec.Name = sl.Alias
		}
		if sc.kind.aggregate() {
			hasAgg = true
		}
		if sc.kind == selColumn && ti.cols[sc.col].Kind == schema.Static {
			sel.statics = true
		}
		for _, c := range sc.refs {
			if ti.cols[c].Kind == schema.Static {
				sel.statics = true
			}
		}
		sel.sels = append(sel.sels, sc)
	}
	sel.aggregate = hasAgg
	return sel, nil
}

func (b *planner) compileSelector(ti *tableInfo, sl *cql.Selector) (selector, error) {
	switch sl.Kind {
	case cql.SelColumn:
		c, err := ti.column(sl.Column)
		if err != nil {
			return selector{}, err
		}
		return selector{kind: selColumn, col: c, spec: ti.colSpec(c)}, nil
	case cql.SelElement:
		if sl.Field != "" && sl.Key == nil {
			return b.compileFieldSelector(ti, sl)
		}
		if c, err := ti.column(sl.Column); err == nil && ti.cols[c].Type.Kind == cql.KindVector {
			return selector{}, invalidf("Invalid element selection: %s is of type %s is not a collection", sl.Column, ti.cols[c].Type)
		}
		return selector{}, bindings.Unsupported("selecting an element or field of %s is not supported by dohyo", sl.Column)
	case cql.SelCountStar:
		return selector{kind: selCountStar, spec: ti.specNamed("count", cql.Scalar(cql.KindBigint))}, nil
	case cql.SelWritetime, cql.SelTTL:
		c, err := ti.column(sl.Column)
		if err != nil {
			return selector{}, err
		}
		fname, kind, t := "writetime", selWritetime, cql.Scalar(cql.KindBigint)
		if sl.Kind == cql.SelTTL {
			fname, kind, t = "ttl", selTTL, cql.Scalar(cql.KindInt)
		}
		col := ti.cols[c]
		if ti.isKey(c) {
			return selector{}, invalidf("Cannot use selection function %s on PRIMARY KEY part %s", fname, col.Name)
		}
		if col.Type.MultiCell() {
			// Cassandra 5.0: one timestamp or TTL per element.
			t = cql.ListOf(t)
		}
		if col.Type.Kind == cql.KindCounter && kind == selTTL {
			return selector{}, invalidf("Cannot use selection function ttl on counter column %s", col.Name)
		}
		return selector{kind: kind, col: c, spec: ti.specNamed(fname+"("+col.Name+")", t)}, nil
	case cql.SelCall, cql.SelCast, cql.SelOp, cql.SelNeg:
		if !b.aggregateCall(ti, sl) && b.hasAggregate(ti, sl) {
			return b.postAggSelector(ti, sl)
		}
		if sl.Kind == cql.SelCall {
			return b.compileCall(ti, sl)
		}
		return b.exprSelector(ti, sl)
	case cql.SelTerm:
		return b.exprSelector(ti, sl)
	}
	return selector{}, bindings.Unsupported("this selector is not supported by dohyo's wide-column engine")
}

func (b *planner) compileCall(ti *tableInfo, sl *cql.Selector) (selector, error) {
	name := strings.TrimPrefix(strings.ToLower(sl.Func), "system.")
	colArg := func() (int, error) {
		if len(sl.Args) != 1 || sl.Args[0].Kind != cql.SelColumn {
			return 0, bindings.Unsupported("%s() with these arguments is not supported by dohyo's wide-column engine", name)
		}
		return ti.column(sl.Args[0].Column)
	}
	switch name {
	case "token":
		return compileTokenSelector(ti, sl)
	case "count", "min", "max", "sum", "avg":
		if err := b.checkAggregateArgs(ti, sl); err != nil {
			return selector{}, err
		}
		if len(sl.Args) == 1 && sl.Args[0] != nil && sl.Args[0].Kind != cql.SelColumn {
			return b.aggregateOfExpr(ti, sl.Func, name, sl.Args[0])
		}
		c, err := colArg()
		if err != nil {
			return selector{}, err
		}
		col := ti.cols[c]
		spec := ti.specNamed("system."+name+"("+col.Name+")", col.Type)
		switch name {
		case "count":
			spec.Type = cql.Scalar(cql.KindBigint)
			return selector{kind: selCount, col: c, spec: spec}, nil
		case "min", "max":
			spec.Type = timeuuidAsBlob(col.Type, col.Kind == schema.Clustering && col.Desc)
			if name == "min" {
				return selector{kind: selMin, col: c, spec: spec}, nil
			}
			return selector{kind: selMax, col: c, spec: spec}, nil
		}
		if !numericKind(col.Type.Kind) && !bigNumberKind(col.Type.Kind) {
			return selector{}, aggSignatureError(sl.Func, name)
		}
		if col.Type.Kind == cql.KindCounter {
			spec.Type = cql.Scalar(cql.KindBigint)
		}
		if name == "sum" {
			return selector{kind: selSum, col: c, spec: spec}, nil
		}
		return selector{kind: selAvg, col: c, spec: spec}, nil
	case "writetime", "ttl":
		c, err := colArg()
		if err != nil {
			return selector{}, err
		}
		k := cql.SelWritetime
		if name == "ttl" {
			k = cql.SelTTL
		}
		return b.compileSelector(ti, &cql.Selector{Kind: k, Column: ti.cols[c].Name})
	}
	if b.aggregateCall(ti, sl) {
		if err := b.checkAggregateArgs(ti, sl); err != nil {
			return selector{}, err
		}
	}
	if sc, ok, err := b.compileUDA(ti, sl); ok {
		return sc, err
	}
	return b.exprSelector(ti, sl)
}

// knownFunction reports Cassandra 5.0's native functions, so that an
// unimplemented one is "unsupported" and a misspelt one "unknown".
func knownFunction(name string) bool {
	switch name {
	case "token", "count", "min", "max", "sum", "avg", "writetime", "maxwritetime", "ttl",
		"now", "currenttimeuuid", "current_timeuuid", "currenttimestamp", "current_timestamp",
		"currentdate", "current_date", "currenttime", "current_time", "uuid",
		"totimestamp", "to_timestamp", "tounixtimestamp", "to_unix_timestamp", "todate", "to_date",
		"mintimeuuid", "min_timeuuid", "maxtimeuuid", "max_timeuuid",
		"tojson", "fromjson", "abs", "exp", "log", "log10", "round",
		"collection_count", "collection_min", "collection_max", "collection_sum", "collection_avg",
		"map_keys", "map_values", "mask_null", "mask_default", "mask_replace", "mask_inner",
		"mask_outer", "mask_hash",
		"similarity_cosine", "similarity_euclidean", "similarity_dot_product", "cast":
		return true
	}
	return strings.HasPrefix(name, "blobas") || strings.HasSuffix(name, "asblob")
}

func numericKind(k cql.Kind) bool {
	switch k {
	case cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint, cql.KindCounter, cql.KindFloat, cql.KindDouble:
		return true
	}
	return false
}

func (s *selection) specs() []bindings.ColumnSpec {
	out := make([]bindings.ColumnSpec, len(s.sels))
	for i, sc := range s.sels {
		out[i] = sc.spec
	}
	return out
}

// project renders one row for a non-aggregate selection.
func (s *selection) project(ti *tableInfo, r *cqlRow, statics *cqlRow, env *rowEnv) [][]byte {
	var out [][]byte
	if env != nil {
		out = env.x.rowValues(len(s.sels))
	} else {
		out = make([][]byte, len(s.sels))
	}
	for i, sc := range s.sels {
		out[i] = s.value(ti, sc, r, statics, env)
	}
	return out
}

func (s *selection) value(ti *tableInfo, sc selector, r *cqlRow, statics *cqlRow, env *rowEnv) []byte {
	if sc.field > 0 {
		return udtField(s.columnValue(ti, sc, r, statics, env), sc.field-1)
	}
	return s.columnValue(ti, sc, r, statics, env)
}

func (s *selection) columnValue(ti *tableInfo, sc selector, r *cqlRow, statics *cqlRow, env *rowEnv) []byte {
	now := env.nowS
	switch sc.kind {
	case selExpr:
		return s.evalExpr(ti, sc, r, statics, env)
	case selToken:
		if sc.args != nil {
			return tokenOfColumns(ti, sc.args, r, statics)
		}
		return be64(murmur3.Token(SerializePartitionKey(r.pk)))
	case selColumn, selWritetime, selTTL:
	default:
		return nil
	}
	col := ti.cols[sc.col]
	switch col.Kind {
	case schema.PartitionKey:
		return r.pk[col.Position]
	case schema.Clustering:
		if r.ck == nil || col.Position >= len(r.ck) {
			return nil
		}
		return r.ck[col.Position]
	}
	src := r
	if col.Kind == schema.Static {
		src = statics
	}
	if src == nil || sc.col >= len(src.cols) || !src.cols[sc.col].live {
		return nil
	}
	cv := src.cols[sc.col]
	if cv.et != nil && sc.kind != selColumn {
		items := make([][]byte, len(cv.et.ts))
		for i := range items {
			if sc.kind == selWritetime {
				items[i] = be64(cv.et.ts[i])
			} else if cv.et.exp[i] > 0 {
				items[i] = binary.BigEndian.AppendUint32(nil, uint32(int32(cv.et.exp[i]-now)))
			}
		}
		return buildCollection(len(items), items)
	}
	switch sc.kind {
	case selWritetime:
		return be64(cv.ts)
	case selTTL:
		if cv.ttl <= 0 {
			return nil
		}
		return binary.BigEndian.AppendUint32(nil, uint32(int32(cv.exp-now)))
	}
	return cv.val
}

// aggState accumulates an aggregate selection.
type aggState struct {
	first [][]byte // non-aggregate columns: values of the first row
	seen  bool
	count []int64
	best  [][]byte // min/max
	isum  []int64
	fk    []kahan    // sums of floats and doubles (agg_float.go)
	bsum  []*big.Int // avg of bigint/counter: exact, as Cassandra's overflows to BigInteger
	// big: sums and averages of decimals and varints (fn_decimal.go),
	// allocated on the first such value.
	big []bigSum
	// uda: user-defined aggregates' states (udaSet: initialised).
	uda    [][]byte
	udaSet []bool
	env    *rowEnv
	// sub: selPostAgg selectors' inner aggregations (fn_postagg.go).
	sub []*aggState
}

func newAggState(s *selection) *aggState {
	n := len(s.sels)
	return &aggState{count: make([]int64, n), best: make([][]byte, n), isum: make([]int64, n)}
}

func (a *aggState) add(s *selection, ti *tableInfo, r *cqlRow, statics *cqlRow, env *rowEnv) {
	if !a.seen {
		a.seen = true
		a.first = s.project(ti, r, statics, env)
	}
	a.env = env
	for i, sc := range s.sels {
		switch sc.kind {
		case selUDA:
			a.udaAdd(i, sc, &rowCtx{s: s, ti: ti, r: r, statics: statics, env: env})
		case selPostAgg:
			a.postAggAdd(i, sc, ti, r, statics, env)
		case selCountStar:
			a.count[i]++
		case selCount, selMin, selMax, selSum, selAvg:
			arg := selector{kind: selColumn, col: sc.col}
			if sc.expr != nil {
				arg = selector{kind: selExpr, expr: sc.expr}
			}
			v := s.value(ti, arg, r, statics, env)
			if v == nil {
				continue
			}
			a.count[i]++
			t := sc.aggType(ti)
			switch sc.kind {
			case selMin:
				if a.best[i] == nil || cql.Compare(t, v, a.best[i]) < 0 {
					a.best[i] = v
				}
			case selMax:
				if a.best[i] == nil || cql.Compare(t, v, a.best[i]) > 0 {
					a.best[i] = v
				}
			case selSum, selAvg:
				if bigNumberKind(t.Kind) {
					a.addBig(i, len(s.sels), t.Kind, sc.kind == selAvg, v)
					continue
				}
				iv, fv := decodeNumber(t.Kind, v)
				a.isum[i] += iv
				if t.Kind == cql.KindFloat || t.Kind == cql.KindDouble {
					a.kahanAdd(i, len(s.sels), fv)
				}
				if sc.kind == selAvg && (t.Kind == cql.KindBigint || t.Kind == cql.KindCounter) {
					if a.bsum == nil {
						a.bsum = make([]*big.Int, len(s.sels))
					}
					if a.bsum[i] == nil {
						a.bsum[i] = new(big.Int)
					}
					a.bsum[i].Add(a.bsum[i], big.NewInt(iv))
				}
			}
		}
	}
}

// result is the aggregated row; env evaluates expressions over
// aggregates (and keeps their errors).
func (a *aggState) result(s *selection, ti *tableInfo, env *rowEnv) [][]byte {
	out := make([][]byte, len(s.sels))
	for i, sc := range s.sels {
		switch sc.kind {
		case selUDA:
			out[i] = a.udaResult(i, sc)
		case selPostAgg:
			out[i] = a.postAggResult(i, s, sc, ti, env)
		case selCountStar, selCount:
			out[i] = be64(a.count[i])
		case selMin, selMax:
			out[i] = a.best[i]
		case selSum, selAvg:
			k := sc.aggType(ti).Kind
			if bigNumberKind(k) {
				out[i] = a.bigResult(i, k, sc.kind == selAvg)
				continue
			}
			is, fs := a.isum[i], a.kahanSum(i)
			if sc.kind == selAvg && a.count[i] > 0 {
				is /= a.count[i]
				fs /= float64(a.count[i])
				if a.bsum != nil && a.bsum[i] != nil {
					is = new(big.Int).Quo(a.bsum[i], big.NewInt(a.count[i])).Int64()
				}
			}
			out[i] = encodeNumber(k, is, fs)
		default:
			if a.seen {
				out[i] = a.first[i]
			}
		}
	}
	return out
}

func decodeNumber(k cql.Kind, v []byte) (int64, float64) {
	switch k {
	case cql.KindTinyint:
		if len(v) == 1 {
			return int64(int8(v[0])), 0
		}
	case cql.KindSmallint:
		if len(v) == 2 {
			return int64(int16(binary.BigEndian.Uint16(v))), 0
		}
	case cql.KindInt:
		if len(v) == 4 {
			return int64(int32(binary.BigEndian.Uint32(v))), 0
		}
	case cql.KindBigint, cql.KindCounter:
		if len(v) == 8 {
			return int64(binary.BigEndian.Uint64(v)), 0
		}
	case cql.KindFloat:
		if len(v) == 4 {
			return 0, float64(math.Float32frombits(binary.BigEndian.Uint32(v)))
		}
	case cql.KindDouble:
		if len(v) == 8 {
			return 0, math.Float64frombits(binary.BigEndian.Uint64(v))
		}
	}
	return 0, 0
}

// encodeNumber serializes a sum or average in the column's type; integer
// sums wrap around as in Cassandra's Java arithmetic.
func encodeNumber(k cql.Kind, i int64, f float64) []byte {
	switch k {
	case cql.KindTinyint:
		return []byte{byte(int8(i))}
	case cql.KindSmallint:
		return binary.BigEndian.AppendUint16(nil, uint16(int16(i)))
	case cql.KindInt:
		return binary.BigEndian.AppendUint32(nil, uint32(int32(i)))
	case cql.KindBigint, cql.KindCounter:
		return be64(i)
	case cql.KindFloat:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f)))
	case cql.KindDouble:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
	}
	return nil
}

// onlyStatic reports a selection of static (and partition key) columns
// only, with at least one static column.
// reads lists the columns a selector reads, as Cassandra's
// Selection.getColumns sees them: the column itself, the arguments of a
// function or aggregate, the partition key for token(); none for count(*).
func (sc selector) reads(ti *tableInfo) []int {
	switch {
	case sc.kind == selCountStar:
		return nil
	case sc.kind == selToken:
		if sc.args == nil {
			return ti.pk
		}
		return sc.args
	case sc.expr != nil || sc.kind == selUDA:
		return sc.refs
	}
	return []int{sc.col}
}

func (s *selection) onlyStatic(ti *tableInfo) bool {
	static := false
	for _, sc := range s.sels {
		if sc.kind == selCountStar || (sc.kind == selToken && sc.args == nil) {
			continue
		}
		if sc.kind == selToken {
			return false
		}
		if sc.expr != nil {
			for _, c := range sc.refs {
				if k := ti.cols[c].Kind; k != schema.Static && k != schema.PartitionKey {
					return false
				}
			}
			continue
		}
		switch ti.cols[sc.col].Kind {
		case schema.Static:
			static = true
		case schema.PartitionKey:
		default:
			return false
		}
	}
	return static
}
