package workload

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Operation kinds of YCSB's CoreWorkload.
const (
	OpRead   = "READ"
	OpUpdate = "UPDATE"
	OpInsert = "INSERT"
	OpScan   = "SCAN"
	OpRMW    = "READ-MODIFY-WRITE"
)

// Spec is a core workload's definition (YCSB's workloads/workloada..f).
type Spec struct {
	Read, Update, Insert, Scan, RMW float64
	Distribution                    string // zipfian, uniform or latest
	MaxScanLength                   int
}

// Specs are YCSB's core workloads A-F.
var Specs = map[string]Spec{
	"a": {Read: 0.5, Update: 0.5, Distribution: "zipfian", MaxScanLength: 1000},
	"b": {Read: 0.95, Update: 0.05, Distribution: "zipfian", MaxScanLength: 1000},
	"c": {Read: 1, Distribution: "zipfian", MaxScanLength: 1000},
	"d": {Read: 0.95, Insert: 0.05, Distribution: "latest", MaxScanLength: 1000},
	"e": {Scan: 0.95, Insert: 0.05, Distribution: "zipfian", MaxScanLength: 100},
	"f": {Read: 0.5, RMW: 0.5, Distribution: "zipfian", MaxScanLength: 1000},
}

// YCSB configures a generated YCSB capture.
type YCSB struct {
	Workload     string // a..f
	Records      int64  // recordcount: rows loaded
	Operations   int64  // operationcount: run-phase operations
	FieldCount   int    // default 10
	FieldLength  int    // default 100
	Distribution string // "" : the workload's
	Threads      int    // sessions (YCSB client threads), default 16
	Keyspace     string // default ycsb (the binding's default)
	Seed         uint64
	// Interval is the captured time between operations (replay --speed
	// keeps it; --max ignores it). Default 100µs.
	Interval time.Duration
	Start    time.Time
}

// Keyspace and table of YCSB's CQL binding.
const (
	YCSBKeyspace = "ycsb"
	YCSBTable    = "usertable"
	ycsbKey      = "y_id"
)

func (y *YCSB) defaults() error {
	if _, ok := Specs[y.Workload]; !ok {
		return fmt.Errorf("workload: unknown YCSB workload %q (want a-f)", y.Workload)
	}
	if y.Records <= 0 || y.Operations < 0 {
		return fmt.Errorf("workload: records %d, operations %d: want records > 0, operations >= 0", y.Records, y.Operations)
	}
	if y.FieldCount <= 0 {
		y.FieldCount = 10
	}
	if y.Keyspace == "" {
		y.Keyspace = YCSBKeyspace
	}
	if y.FieldLength <= 0 {
		y.FieldLength = 100
	}
	if y.Threads <= 0 {
		y.Threads = 16
	}
	if y.Interval <= 0 {
		y.Interval = 100 * time.Microsecond
	}
	if y.Start.IsZero() {
		y.Start = time.Unix(1_700_000_000, 0)
	}
	switch y.Distribution {
	case "", "zipfian", "uniform", "latest":
	default:
		return fmt.Errorf("workload: distribution %q: want zipfian, uniform or latest", y.Distribution)
	}
	return nil
}

// Spec is the workload's definition with the distribution override.
func (y *YCSB) Spec() Spec {
	s := Specs[y.Workload]
	if y.Distribution != "" {
		s.Distribution = y.Distribution
	}
	return s
}

// Node is the capture node name of the generated capture.
func (y *YCSB) Node() string { return "workload-ycsb-" + y.Workload }

// SchemaDDL is the schema YCSB's binding setup creates.
func (y *YCSB) SchemaDDL() string {
	if y.FieldCount <= 0 {
		y.FieldCount = 10
	}
	ks := y.Keyspace
	if ks == "" {
		ks = YCSBKeyspace
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n", ks)
	fmt.Fprintf(&b, "CREATE TABLE %s.%s (%s varchar PRIMARY KEY", ks, YCSBTable, ycsbKey)
	for i := 0; i < y.FieldCount; i++ {
		fmt.Fprintf(&b, ", field%d varchar", i)
	}
	b.WriteString(");\n")
	return b.String()
}

// KeyName is CoreWorkload.buildKeyName with insertorder=hashed.
func KeyName(keynum int64) string { return "user" + strconv.FormatInt(fnvhash64(keynum), 10) }

// value is a field's value: printable, fieldlength bytes, a function of
// the key and the field only.
func value(keynum int64, field, n int) []byte {
	b := make([]byte, n)
	x := uint64(keynum)*0x9E3779B97F4A7C15 ^ uint64(field+1)*0xBF58476D1CE4E5B9
	for i := range b {
		x ^= x >> 31
		x *= 0x94D049BB133111EB
		x ^= x >> 29
		b[i] = ' ' + byte(x%95)
	}
	return b
}

// Op is one generated YCSB operation (the tests check the mix and keys).
type Op struct {
	Kind   string
	Keynum int64
	Latest int64 // the insert sequence's last key when drawn
}

// generator is the state of one run phase.
type generator struct {
	y       *YCSB
	spec    Spec
	r       *rand.Rand
	kinds   []string
	weights []float64
	last    int64 // transactioninsertkeysequence.lastValue()
	zipf    *scrambledZipfian
	latest  *zipfian
	owner   map[int64]int // keys inserted in the run -> their session
}

func newGenerator(y *YCSB) *generator {
	s := y.Spec()
	g := &generator{y: y, spec: s, r: rand.New(rand.NewPCG(y.Seed, 0x79c5b)), last: y.Records - 1, owner: map[int64]int{}}
	for _, kw := range []struct {
		k string
		w float64
	}{{OpRead, s.Read}, {OpUpdate, s.Update}, {OpInsert, s.Insert}, {OpScan, s.Scan}, {OpRMW, s.RMW}} {
		if kw.w > 0 {
			g.kinds, g.weights = append(g.kinds, kw.k), append(g.weights, kw.w)
		}
	}
	switch s.Distribution {
	case "zipfian":
		expectedNew := int64(float64(y.Operations) * s.Insert * 2)
		g.zipf = newScrambledZipfian(0, y.Records+expectedNew)
	case "latest":
		g.latest = newZipfian(0, y.Records-1, 0)
	}
	return g
}

// kind is DiscreteGenerator.nextString.
func (g *generator) kind() string {
	total := 0.0
	for _, w := range g.weights {
		total += w
	}
	v := g.r.Float64()
	for i, w := range g.weights {
		if v < w/total {
			return g.kinds[i]
		}
		v -= w / total
	}
	return g.kinds[len(g.kinds)-1]
}

// keynum is CoreWorkload.nextKeynum: a key that exists.
func (g *generator) keynum() int64 {
	switch g.spec.Distribution {
	case "uniform":
		return g.r.Int64N(g.y.Records)
	case "latest":
		max := g.last + 1
		return g.last - g.latest.nextN(g.r, max)
	}
	for {
		if k := g.zipf.next(g.r); k <= g.last {
			return k
		}
	}
}

// next draws one run-phase operation.
func (g *generator) next() Op {
	op := Op{Kind: g.kind(), Latest: g.last}
	if op.Kind == OpInsert {
		g.last++
		op.Keynum = g.last
		return op
	}
	op.Keynum = g.keynum()
	return op
}

func u32(v int) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(v))
	return b
}

// Generate emits the load phase (Records inserts, in key order) and the
// run phase (Operations operations) as captured requests.
func (y *YCSB) Generate(emit func(*bindings.Observation)) error {
	if err := y.defaults(); err != nil {
		return err
	}
	e := &emitter{emit: emit, keyspace: y.Keyspace, start: y.Start, interval: y.Interval, seqs: make([]uint64, y.Threads)}
	// The binding's insert names the fields sorted (field0, field1,
	// field10, field2... for more than 10).
	idx := make([]int, y.FieldCount)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(fmt.Sprintf("field%d", a), fmt.Sprintf("field%d", b)) })
	sorted := make([]string, len(idx))
	for i, f := range idx {
		sorted[i] = fmt.Sprintf("field%d", f)
	}
	insertQ := fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (?%s)", YCSBTable, ycsbKey, strings.Join(sorted, ", "), strings.Repeat(", ?", len(sorted)))
	readQ := fmt.Sprintf("SELECT * FROM %s WHERE %s = ?", YCSBTable, ycsbKey)
	scanQ := fmt.Sprintf("SELECT * FROM %s WHERE token(%s) >= token(?) LIMIT ?", YCSBTable, ycsbKey)
	insert := func(sess int, k int64) {
		vals := []bindings.Value{{Bytes: []byte(KeyName(k))}}
		for _, f := range idx {
			vals = append(vals, bindings.Value{Bytes: value(k, f, y.FieldLength)})
		}
		e.op(sess, insertQ, vals)
	}
	for k := int64(0); k < y.Records; k++ {
		insert(int(k%int64(y.Threads)), k)
	}
	g := newGenerator(y)
	spec := y.Spec()
	for i := int64(0); i < y.Operations; i++ {
		op := g.next()
		sess := int(i % int64(y.Threads))
		if s, ok := g.owner[op.Keynum]; ok {
			sess = s // keep order with the insert of a run-phase key
		}
		key := bindings.Value{Bytes: []byte(KeyName(op.Keynum))}
		switch op.Kind {
		case OpInsert:
			g.owner[op.Keynum] = sess
			insert(sess, op.Keynum)
		case OpRead:
			e.op(sess, readQ, []bindings.Value{key})
		case OpScan:
			n := 1 + g.r.IntN(spec.MaxScanLength)
			e.op(sess, scanQ, []bindings.Value{key, {Bytes: u32(n)}})
		case OpUpdate, OpRMW:
			if op.Kind == OpRMW {
				e.op(sess, readQ, []bindings.Value{key})
			}
			f := g.r.IntN(y.FieldCount)
			q := fmt.Sprintf("UPDATE %s SET field%d = ? WHERE %s = ?", YCSBTable, f, ycsbKey)
			e.op(sess, q, []bindings.Value{{Bytes: value(op.Keynum, f, y.FieldLength)}, key})
		}
	}
	return nil
}

// emitter numbers and times generated requests.
type emitter struct {
	emit     func(*bindings.Observation)
	keyspace string
	start    time.Time
	interval time.Duration
	n        int64
	seqs     []uint64
	batch    *batchState
}

type batchState struct{ index, size int }

// op emits one prepared statement of session sess (ids from 1), with no
// captured result (ResultVoid): replay compares generated reads between
// targets, not with the capture.
func (e *emitter) op(sess int, q string, vals []bindings.Value) {
	o := &bindings.Observation{Time: e.start.Add(time.Duration(e.n) * e.interval), Session: uint64(sess + 1), Seq: e.seqs[sess],
		Source: bindings.SourceCQL, Keyspace: e.keyspace, Query: q, Prepared: true, Values: vals, Consistency: bindings.One,
		ResultKind: bindings.ResultVoid}
	if e.batch != nil {
		o.BatchIndex, o.BatchSize = e.batch.index, e.batch.size
		e.batch.index++
	}
	e.seqs[sess]++
	if e.batch == nil || e.batch.index == e.batch.size {
		e.n++
	}
	e.emit(o)
}
