package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// execCtx is one execution of a plan: bound values, write time, paging.
// It is the cql.Resolver for bind markers and functions.
type execCtx struct {
	e     *Engine
	vals  []bindings.Value // by marker index
	ts    int64            // client-supplied or batch timestamp
	hasTS bool
	now   time.Time
	nowS  int64 // now in unix seconds: TTL expiry and liveness

	pageSize    int32
	pagingState []byte
	jsonDone    bool // INSERT JSON values decoded into vals
	// scanHint is the number of rows a scan is expected to need (0: all),
	// passed to the store as ScanRange.Limit.
	scanHint int
	// serial: a SERIAL or LOCAL_SERIAL read (linearizable with LWT).
	serial bool
	// fnKs is the statement's keyspace, where unqualified user-defined
	// functions are looked up.
	fnKs string
	// keys is partitionKey's arena (backed by keyBuf): keys handed out,
	// never rewritten.
	keys   []byte
	keyBuf [64]byte
	// first is memory for what every point statement needs once (its
	// partition key list, the first partition it opens and its key list,
	// its row environment), so that they come with the context's
	// allocation; rm is its result's (see resultMem).
	first firstUse
	rm    *resultMem
	// spent: a plain write the store is done with (applied or failed): its
	// result holds nothing of the context, which Engine.execute recycles as
	// far as the store allows (recycle.go).
	spent bool
}

// firstUse is execCtx's memory for the first of each kind of object a
// statement asks for; later ones are allocated as before. Handing each
// out once keeps them unshared however long their users keep them.
type firstUse struct {
	getKeys  [1][]byte // openPartition's key list
	pkList   [1][][]byte
	pkKey    [1][]byte // onePartitionKey's result
	part     partition
	env      rowEnv
	fn       fnEnv
	usedKeys bool
	usedPK   bool
	usedPart bool
	usedEnv  bool
}

// firstRowCols is how many values of a result's first row resultMem holds.
const firstRowCols = 4

// resultMem is the memory of a point read's result (its first row and that
// row's values), allocated apart from the execution context because the
// result outlives the statement while the context is recycled.
type resultMem struct {
	res      bindings.Result
	rows     [1][][]byte
	cols     [firstRowCols][]byte
	usedRes  bool
	usedRows bool
	usedCols bool
}

func (x *execCtx) resultMem() *resultMem {
	if x.rm == nil {
		x.rm = new(resultMem)
	}
	return x.rm
}

// newResult returns an empty result, the context's the first time.
func (x *execCtx) newResult() *bindings.Result {
	if x == nil || x.rm != nil && x.rm.usedRes {
		return new(bindings.Result)
	}
	rm := x.resultMem()
	rm.usedRes = true
	return &rm.res
}

// resultRows returns room for a result's rows: the context's one-row
// array the first time (a point read's), nil otherwise (append allocates).
func (x *execCtx) resultRows() [][][]byte {
	if x == nil || x.rm != nil && x.rm.usedRows {
		return nil
	}
	rm := x.resultMem()
	rm.usedRows = true
	return rm.rows[:0:1]
}

// rowValues returns n value slots for a projected row: the context's the
// first time when n is small.
func (x *execCtx) rowValues(n int) [][]byte {
	if x == nil || n > firstRowCols || x.rm != nil && x.rm.usedCols {
		return make([][]byte, n)
	}
	rm := x.resultMem()
	rm.usedCols = true
	return rm.cols[:n:n]
}

// partitionKey is ti.codec.PartitionKey(pk), in the context's arena when
// it fits (a point statement's key costs no allocation of its own).
func (x *execCtx) partitionKey(ti *tableInfo, pk [][]byte) ([]byte, error) {
	if x.keys == nil {
		x.keys = x.keyBuf[:0]
	}
	start := len(x.keys)
	k, err := ti.codec.appendPartitionPrefix(x.keys[start:], pk)
	if err != nil {
		return nil, err
	}
	k = append(k, keyTerm)
	if start+len(k) <= cap(x.keys) { // append stayed in the arena
		x.keys = x.keys[:start+len(k)]
	}
	return k[:len(k):len(k)], nil
}

func newExecCtx(e *Engine, cp *cachedPlan, values []bindings.Value, names []string) (*execCtx, error) {
	x := e.getExecCtx()
	x.now = e.clock()
	x.nowS = x.now.Unix()
	if cp.prepared != nil {
		x.fnKs = cp.prepared.Keyspace
	}
	n := len(cp.markers)
	if names == nil {
		if len(values) != n {
			return nil, invalidf("there were %d markers(?) in CQL but %d bound variables", n, len(values))
		}
		x.vals = values
		return x, nil
	}
	if len(values) != len(names) {
		return nil, invalidf("there were %d markers(?) in CQL but %d bound variables", n, len(values))
	}
	x.vals = make([]bindings.Value, n)
	for i := range cp.markers {
		want := cp.bind[i].Name
		found := false
		for j, nm := range names {
			if nm == want {
				x.vals[i], found = values[j], true
				break
			}
		}
		if !found {
			for j, nm := range names {
				if strings.EqualFold(nm, want) {
					x.vals[i], found = values[j], true
					break
				}
			}
		}
		if !found {
			return nil, invalidf("No value has been provided for bind variable %s", want)
		}
	}
	return x, nil
}

// Bind implements cql.Resolver.
func (x *execCtx) Bind(m *cql.BindMarker, t *cql.Type) ([]byte, bool, error) {
	if m.Index < 0 || m.Index >= len(x.vals) {
		return nil, false, invalidf("No value bound for marker %d", m.Index)
	}
	v := x.vals[m.Index]
	return v.Bytes, v.Unset, nil
}

// Call implements cql.Resolver: the time and uuid functions Cassandra
// evaluates at execution.
func (x *execCtx) Call(fn *cql.FuncCall, t *cql.Type) ([]byte, error) {
	name := canonicalFunc(fn.Name)
	if name == "fromjson" {
		return x.fromJSON(fn, t)
	}
	ret, b, err := x.callFunc(name, fn)
	if err != nil {
		return nil, err
	}
	if !returnCompatible(t, ret) {
		return nil, invalidf("Type error: cannot assign result of function system.%s (type %s) to receiver of type %s", name, ret, t)
	}
	return b, nil
}

func (x *execCtx) callFunc(name string, fn *cql.FuncCall) (*cql.Type, []byte, error) {
	argc := func(n int) error {
		if len(fn.Args) != n {
			return invalidf("Invalid number of arguments in call to function system.%s: %d required but %d provided", name, n, len(fn.Args))
		}
		return nil
	}
	if t, v, ok, err := x.callUDF(fn); ok {
		return t, v, err
	}
	switch name {
	case "now", "currenttimeuuid":
		if err := argc(0); err != nil {
			return nil, nil, err
		}
		u := x.e.uuids.Next()
		return cql.Scalar(cql.KindTimeuuid), u[:], nil
	case "uuid":
		if err := argc(0); err != nil {
			return nil, nil, err
		}
		u := cql.RandomUUID()
		return cql.Scalar(cql.KindUUID), u[:], nil
	case "currenttimestamp":
		if err := argc(0); err != nil {
			return nil, nil, err
		}
		return cql.Scalar(cql.KindTimestamp), be64(x.now.UnixMilli()), nil
	case "currentdate":
		if err := argc(0); err != nil {
			return nil, nil, err
		}
		return cql.Scalar(cql.KindDate), dateBytes(x.now), nil
	case "currenttime":
		if err := argc(0); err != nil {
			return nil, nil, err
		}
		y, mo, d := x.now.UTC().Date()
		mid := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
		return cql.Scalar(cql.KindTime), be64(int64(x.now.Sub(mid))), nil
	case "totimestamp", "tounixtimestamp", "todate":
		if err := argc(1); err != nil {
			return nil, nil, err
		}
		tm, err := x.timeArg(name, fn.Args[0])
		if err != nil {
			return nil, nil, err
		}
		switch name {
		case "totimestamp":
			return cql.Scalar(cql.KindTimestamp), be64(tm.UnixMilli()), nil
		case "tounixtimestamp":
			return cql.Scalar(cql.KindBigint), be64(tm.UnixMilli()), nil
		default:
			return cql.Scalar(cql.KindDate), dateBytes(tm), nil
		}
	case "mintimeuuid", "maxtimeuuid":
		if err := argc(1); err != nil {
			return nil, nil, err
		}
		b, err := cql.EncodeTerm(cql.Scalar(cql.KindTimestamp), fn.Args[0], "arg0", x)
		if err != nil {
			return nil, nil, err
		}
		if len(b) != 8 {
			return nil, nil, invalidf("Invalid argument to system.%s", name)
		}
		tm := time.UnixMilli(int64(binary.BigEndian.Uint64(b)))
		u := cql.MinTimeUUID(tm)
		if name == "maxtimeuuid" {
			u = cql.MaxTimeUUID(tm)
		}
		return cql.Scalar(cql.KindTimeuuid), u[:], nil
	case "token":
		return nil, nil, bindings.Unsupported("token() is only supported in token restrictions")
	}
	if !knownFunction(name) || name == "dateof" || name == "unixtimestampof" {
		// Cassandra 5.0's wording in a value (dateOf and unixTimestampOf
		// were removed in 5.0).
		return nil, nil, invalidf("Unknown function %s called", name)
	}
	return x.callNative(name, fn)
}

// canonicalFunc maps Cassandra 5.0's snake_case aliases to the classic
// names.
func canonicalFunc(name string) string {
	n := strings.TrimPrefix(strings.ToLower(name), "system.")
	switch n {
	case "current_timeuuid":
		return "currenttimeuuid"
	case "current_timestamp":
		return "currenttimestamp"
	case "current_date":
		return "currentdate"
	case "current_time":
		return "currenttime"
	case "to_timestamp":
		return "totimestamp"
	case "to_unix_timestamp":
		return "tounixtimestamp"
	case "to_date":
		return "todate"
	case "min_timeuuid":
		return "mintimeuuid"
	case "max_timeuuid":
		return "maxtimeuuid"
	}
	return n
}

// timeArg evaluates the argument of a time conversion: a timeuuid (now()
// included), a timestamp or a date.
func (x *execCtx) timeArg(name string, arg cql.Term) (time.Time, error) {
	if c, ok := arg.(*cql.FuncCall); ok {
		inner := canonicalFunc(c.Name)
		ret, b, err := x.callFunc(inner, c)
		if err != nil {
			return time.Time{}, err
		}
		return timeOf(ret, b, name)
	}
	for _, k := range []cql.Kind{cql.KindTimeuuid, cql.KindTimestamp, cql.KindDate} {
		b, err := cql.EncodeTerm(cql.Scalar(k), arg, "arg0", x)
		if err == nil && b != nil {
			return timeOf(cql.Scalar(k), b, name)
		}
		if err != nil && errors.Is(err, cql.ErrUnset) {
			return time.Time{}, err
		}
	}
	return time.Time{}, invalidf("Type error: invalid argument passed to function system.%s", name)
}

func timeOf(t *cql.Type, b []byte, fname string) (time.Time, error) {
	switch t.Kind {
	case cql.KindTimeuuid:
		if len(b) == 16 {
			var u cql.UUID
			copy(u[:], b)
			return cql.TimeUUIDTime(u), nil
		}
	case cql.KindTimestamp:
		if len(b) == 8 {
			return time.UnixMilli(int64(binary.BigEndian.Uint64(b))), nil
		}
	case cql.KindDate:
		if len(b) == 4 {
			days := int64(binary.BigEndian.Uint32(b)) - (1 << 31)
			return time.Unix(days*86400, 0), nil
		}
	}
	return time.Time{}, invalidf("Type error: invalid argument passed to function system.%s", fname)
}

func dateBytes(t time.Time) []byte {
	// Cassandra converts milliseconds to days truncating toward zero
	// (TimeUnit.MILLISECONDS.toDays): toDate of 1969-12-31 12:00 is
	// 1970-01-01, checked on Cassandra 5.0.
	days := t.UnixMilli() / 86_400_000
	return binary.BigEndian.AppendUint32(nil, uint32(days+(1<<31)))
}

// returnCompatible reports whether a function result of type ret may be
// assigned to a receiver of type t.
func returnCompatible(t, ret *cql.Type) bool {
	if t == nil || t.Kind == ret.Kind {
		return true
	}
	switch t.Kind {
	case cql.KindUUID:
		return ret.Kind == cql.KindTimeuuid
	case cql.KindBlob:
		return false
	}
	return false
}

func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// eval encodes a term for a receiver of type t. unset reports a marker
// bound to "unset".
func (x *execCtx) eval(t *cql.Type, term cql.Term, receiver string) (b []byte, unset bool, err error) {
	b, err = cql.EncodeTerm(t, term, receiver, x)
	if err != nil {
		if errors.Is(err, cql.ErrUnset) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return b, false, nil
}

// ---- CQL collection and tuple serialization (protocol v3+ layout) ----

var errBadValue = errors.New("widecolumn: malformed collection value")

// splitCollection returns the items of a serialized collection: elements
// for lists and sets, alternating keys and values for maps (per = 2).
func splitCollection(b []byte, per int) ([][]byte, error) {
	if len(b) < 4 {
		return nil, errBadValue
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > len(b) {
		return nil, errBadValue
	}
	return readItems(b, 4, n*per, make([][]byte, 0, n*per))
}

// readItems appends max length-prefixed items of b from off to out (a
// negative length is a null item); max < 0 reads to the end of b.
func readItems(b []byte, off, max int, out [][]byte) ([][]byte, error) {
	for i := 0; max < 0 && off < len(b) || i < max; i++ {
		if off+4 > len(b) {
			return nil, errBadValue
		}
		l := int(int32(binary.BigEndian.Uint32(b[off:])))
		off += 4
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if off+l > len(b) {
			return nil, errBadValue
		}
		out = append(out, b[off:off+l:off+l])
		off += l
	}
	return out, nil
}

// buildCollection serializes n entries given as items (per items each).
func buildCollection(n int, items [][]byte) []byte {
	size := 4
	for _, it := range items {
		size += 4 + len(it)
	}
	b := make([]byte, 0, size)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for _, it := range items {
		if it == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return b
}

// splitTuple returns the components of a serialized tuple (nil for null).
func splitTuple(b []byte) ([][]byte, error) {
	return readItems(b, 0, -1, nil)
}

var (
	boolTrue  = []byte{1}
	boolFalse = []byte{0}
)

func boolBytes(v bool) []byte {
	if v {
		return boolTrue
	}
	return boolFalse
}
