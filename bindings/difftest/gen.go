package difftest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// This file generates schemas and values. Everything is drawn from one
// seeded source, so a seed always gives the same statements.

// Generator produces a reproducible workload for one keyspace.
type Generator struct {
	r        *rand.Rand
	ks       string
	tables   []*table
	ts       int64 // latest write timestamp (µs)
	startTS  int64
	usedTS   map[int64]bool
	n        int // steps produced
	nextCol  int // suffix of added columns
	maxTable int
	pending  []Step      // steps that must come next (CREATE after DROP)
	udtTypes []*cql.Type // the keyspace's user-defined types (gen_udt.go)
}

// NewGenerator returns a generator for keyspace ks. Write timestamps (µs)
// start after startTS; no two writes share one (see nextTS).
func NewGenerator(seed int64, ks string, startTS int64) *Generator {
	startTS -= startTS % 10
	return &Generator{r: newRand(seed), ks: ks, ts: startTS, startTS: startTS, usedTS: map[int64]bool{}}
}

// column is one generated column.
type column struct {
	name string
	typ  *cql.Type
	desc bool     // clustering order DESC
	pool [][]byte // key columns: the values writes and reads draw from
	// index is the column's secondary index: "" (none), "sai" or
	// "legacy"; target is its target function ("", keys, entries).
	index, target string
}

// table is one generated table and what the workload knows about it.
type table struct {
	name     string
	pk, ck   []*column
	statics  []*column
	regulars []*column
	udts     []*column // UDT columns: only gen_udt.go's statements use them
	version  int       // bumped when the table is recreated
}

func (t *table) all() []*column {
	out := append(append([]*column{}, t.pk...), t.ck...)
	out = append(out, t.statics...)
	return append(out, t.regulars...)
}

func (t *table) column(name string) *column {
	for _, c := range t.all() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// keyTypes are the types key columns are drawn from; frozen collections
// exercise the collection comparators.
var keyTypes = []*cql.Type{
	cql.Scalar(cql.KindInt), cql.Scalar(cql.KindBigint), cql.Scalar(cql.KindSmallint), cql.Scalar(cql.KindTinyint),
	cql.Scalar(cql.KindText), cql.Scalar(cql.KindAscii), cql.Scalar(cql.KindBlob), cql.Scalar(cql.KindBoolean),
	cql.Scalar(cql.KindUUID), cql.Scalar(cql.KindTimeuuid), cql.Scalar(cql.KindTimestamp), cql.Scalar(cql.KindDate),
	cql.Scalar(cql.KindTime), cql.Scalar(cql.KindVarint), cql.Scalar(cql.KindDecimal), cql.Scalar(cql.KindDouble),
	cql.Scalar(cql.KindFloat), cql.Scalar(cql.KindInet),
	cql.FrozenOf(cql.ListOf(cql.Scalar(cql.KindInt))), cql.FrozenOf(cql.SetOf(cql.Scalar(cql.KindText))),
}

// valueTypes are the types of scalar regular and static columns.
var valueTypes = append(append([]*cql.Type{}, keyTypes...), cql.Scalar(cql.KindDuration))

// collectionTypes are the non-frozen collections regular columns use.
var collectionTypes = []*cql.Type{
	cql.SetOf(cql.Scalar(cql.KindInt)), cql.SetOf(cql.Scalar(cql.KindText)),
	cql.ListOf(cql.Scalar(cql.KindInt)), cql.ListOf(cql.Scalar(cql.KindText)),
	cql.MapOf(cql.Scalar(cql.KindText), cql.Scalar(cql.KindInt)), cql.MapOf(cql.Scalar(cql.KindInt), cql.Scalar(cql.KindText)),
}

// newTable generates a table: 1-2 partition key columns, 0-2 clustering
// columns (ASC or DESC), 0-2 static columns when clustered, and regular
// columns of which one to three are collections.
func (g *Generator) newTable(name string) *table {
	r := g.r
	t := &table{name: name}
	for i := range 1 + r.IntN(2) {
		t.pk = append(t.pk, g.keyColumn(fmt.Sprintf("p%d", i), 3+r.IntN(4)))
	}
	for i := range r.IntN(3) {
		c := g.keyColumn(fmt.Sprintf("c%d", i), 3+r.IntN(5))
		c.desc = r.IntN(3) == 0
		t.ck = append(t.ck, c)
	}
	if len(t.ck) > 0 {
		for i := range r.IntN(3) {
			typ := valueTypes[r.IntN(len(valueTypes))]
			if i == 1 {
				typ = collectionTypes[r.IntN(len(collectionTypes))]
			}
			t.statics = append(t.statics, &column{name: fmt.Sprintf("s%d", i), typ: typ})
		}
	}
	for i := range 1 + r.IntN(3) {
		t.regulars = append(t.regulars, &column{name: fmt.Sprintf("v%d", i), typ: valueTypes[r.IntN(len(valueTypes))]})
	}
	for i := range 1 + r.IntN(3) {
		t.regulars = append(t.regulars, &column{name: fmt.Sprintf("m%d", i), typ: collectionTypes[r.IntN(len(collectionTypes))]})
	}
	t.udts = g.udtColumns()
	return t
}

// keyColumn makes a key column with a pool of n distinct values (distinct
// for the type's comparator too: decimals share one scale, no -0).
func (g *Generator) keyColumn(name string, n int) *column {
	typ := keyTypes[g.r.IntN(len(keyTypes))]
	c := &column{name: name, typ: typ}
	seen := map[string]bool{}
	for tries := 0; len(c.pool) < n && tries < 50*n; tries++ {
		v := g.keyValue(typ)
		k := string(v)
		if typ.Kind == cql.KindBoolean {
			k = fmt.Sprint(v[0] != 0)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		c.pool = append(c.pool, v)
	}
	return c
}

// createStatement renders CREATE TABLE.
func (t *table) createStatement() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for _, c := range append(t.all(), t.udts...) {
		fmt.Fprintf(&b, "%s %s", c.name, c.typ)
		for _, s := range t.statics {
			if s == c {
				b.WriteString(" static")
			}
		}
		b.WriteString(", ")
	}
	pk := names(t.pk)
	if len(t.pk) > 1 {
		pk = "(" + pk + ")"
	}
	if len(t.ck) > 0 {
		pk += ", " + names(t.ck)
	}
	fmt.Fprintf(&b, "PRIMARY KEY (%s))", pk)
	var order []string
	anyDesc := false
	for _, c := range t.ck {
		dir := "ASC"
		if c.desc {
			dir, anyDesc = "DESC", true
		}
		order = append(order, c.name+" "+dir)
	}
	if anyDesc {
		fmt.Fprintf(&b, " WITH CLUSTERING ORDER BY (%s)", strings.Join(order, ", "))
	}
	return b.String()
}

func names(cs []*column) string {
	n := make([]string, len(cs))
	for i, c := range cs {
		n[i] = c.name
	}
	return strings.Join(n, ", ")
}

// keyValue draws a value usable in a key: never empty, NaN or -0.
func (g *Generator) keyValue(t *cql.Type) []byte {
	r := g.r
	switch t.Kind {
	case cql.KindDecimal:
		return mustEncode(t, cql.Decimal{Unscaled: big.NewInt(int64(r.IntN(2000) - 1000)), Scale: 1})
	case cql.KindDouble:
		return be64(math.Float64bits(float64(r.IntN(400)-200) / 8))
	case cql.KindFloat:
		return be32(math.Float32bits(float32(r.IntN(400)-200) / 4))
	case cql.KindText, cql.KindAscii:
		v := g.value(t)
		if len(v) == 0 {
			v = []byte("k")
		}
		return v
	case cql.KindBlob:
		n := 1 + r.IntN(4)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case cql.KindList:
		var elems [][]byte
		for range r.IntN(3) {
			elems = append(elems, be32(uint32(r.IntN(5))))
		}
		return collection(elems)
	case cql.KindSet:
		return g.setValue(cql.Scalar(cql.KindText), r.IntN(3))
	}
	return g.value(t)
}

var words = []string{"", "a", "b", "ab", "abc", "B", "z", "it's", "é", "日本", "a b", "0", "zz", "~"}

// value draws a value of a scalar or collection type, edge cases included.
func (g *Generator) value(t *cql.Type) []byte {
	r := g.r
	switch t.Kind {
	case cql.KindInt:
		return be32(uint32(int32(g.smallOrEdge(math.MinInt32, math.MaxInt32))))
	case cql.KindBigint:
		return be64(uint64(g.smallOrEdge(math.MinInt64, math.MaxInt64)))
	case cql.KindSmallint:
		v := int16(g.smallOrEdge(math.MinInt16, math.MaxInt16))
		return []byte{byte(uint16(v) >> 8), byte(v)}
	case cql.KindTinyint:
		return []byte{byte(int8(g.smallOrEdge(math.MinInt8, math.MaxInt8)))}
	case cql.KindBoolean:
		return []byte{byte(r.IntN(2))}
	case cql.KindText:
		return []byte(words[r.IntN(len(words))])
	case cql.KindAscii:
		w := words[r.IntN(len(words))]
		if strings.ContainsFunc(w, func(c rune) bool { return c > 127 }) {
			w = "ascii"
		}
		return []byte(w)
	case cql.KindBlob:
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case cql.KindUUID, cql.KindTimeuuid:
		return g.uuidValue(t)
	case cql.KindTimestamp:
		return be64(uint64(int64(r.IntN(4_000_000)-1_000_000) * 1_000_000))
	case cql.KindDate:
		return be32(uint32(1<<31 + r.IntN(40_000) - 20_000))
	case cql.KindTime:
		return be64(uint64(r.Int64N(86_400_000_000_000)))
	case cql.KindVarint:
		n := big.NewInt(g.smallOrEdge(math.MinInt64, math.MaxInt64))
		if r.IntN(5) == 0 {
			n.Mul(n, big.NewInt(1<<62))
		}
		return mustEncode(t, n)
	case cql.KindDecimal:
		return mustEncode(t, cql.Decimal{Unscaled: big.NewInt(int64(r.IntN(20000) - 10000)), Scale: int32(r.IntN(4))})
	case cql.KindDouble:
		return g.doubleValue()
	case cql.KindFloat:
		return be32(math.Float32bits(float32(r.NormFloat64() * 100)))
	case cql.KindInet:
		if r.IntN(3) == 0 {
			b := make([]byte, 16)
			b[0], b[1], b[15] = 0x20, 0x01, byte(r.IntN(256))
			return b
		}
		return []byte{10, 0, byte(r.IntN(3)), byte(r.IntN(256))}
	case cql.KindDuration:
		return mustEncode(t, cql.Duration{Months: int32(r.IntN(13)), Days: int32(r.IntN(40)), Nanos: r.Int64N(1e12)})
	case cql.KindUDT:
		return g.udtValue(t)
	case cql.KindSet:
		return g.setValue(t.Elems[0], r.IntN(4))
	case cql.KindList:
		var elems [][]byte
		for range r.IntN(4) {
			elems = append(elems, g.elem(t.Elems[0]))
		}
		return collection(elems)
	case cql.KindMap:
		return g.mapValue(t)
	}
	panic(fmt.Sprintf("difftest: no generator for %s", t))
}

// uuidValue draws a random version 4 uuid, or a version 1 timeuuid.
func (g *Generator) uuidValue(t *cql.Type) []byte {
	r := g.r
	var u [16]byte
	if t.Kind == cql.KindUUID {
		binary.BigEndian.PutUint64(u[:8], r.Uint64())
		binary.BigEndian.PutUint64(u[8:], r.Uint64())
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		return u[:]
	}
	// Version 1: a 60-bit time, a clock sequence and a node.
	ts := uint64(r.Int64N(1<<40)) + 0x01b21dd213814000
	binary.BigEndian.PutUint32(u[0:4], uint32(ts))
	binary.BigEndian.PutUint16(u[4:6], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:8], uint16(ts>>48)&0x0fff|0x1000)
	binary.BigEndian.PutUint16(u[8:10], uint16(r.IntN(4))|0x8000)
	u[10], u[15] = byte(r.IntN(3)), byte(r.IntN(256))
	return u[:]
}

// doubleValue draws a double: NaN and infinities now and then.
func (g *Generator) doubleValue() []byte {
	r := g.r
	switch r.IntN(10) {
	case 0:
		return be64(math.Float64bits(math.NaN()))
	case 1:
		return be64(math.Float64bits(math.Inf(1 - 2*r.IntN(2))))
	}
	return be64(math.Float64bits(r.NormFloat64() * 1000))
}

// mapValue draws a map of up to three distinct keys, sorted as Cassandra
// serializes maps.
func (g *Generator) mapValue(t *cql.Type) []byte {
	seen := map[string]bool{}
	var keys [][]byte
	for range g.r.IntN(4) {
		k := g.elem(t.Elems[0])
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	sortValues(t.Elems[0], keys)
	var elems [][]byte
	for _, k := range keys {
		elems = append(elems, k, g.elem(t.Elems[1]))
	}
	return collectionN(len(keys), elems)
}

// elem draws a collection element from a small domain, so that adds,
// removals and overwrites meet.
func (g *Generator) elem(t *cql.Type) []byte {
	if t.Kind == cql.KindInt {
		return be32(uint32(g.r.IntN(8)))
	}
	return []byte(words[1+g.r.IntN(6)])
}

// setValue returns a set of up to n distinct elements, sorted as
// Cassandra serializes sets.
func (g *Generator) setValue(et *cql.Type, n int) []byte {
	seen := map[string]bool{}
	var elems [][]byte
	for range n {
		e := g.elem(et)
		if !seen[string(e)] {
			seen[string(e)] = true
			elems = append(elems, e)
		}
	}
	sortValues(et, elems)
	return collection(elems)
}

// smallOrEdge returns a small number most of the time, sometimes an
// extreme of [lo, hi].
func (g *Generator) smallOrEdge(lo, hi int64) int64 {
	switch g.r.IntN(12) {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		return g.r.Int64N(hi/2+1) - g.r.Int64N(-(lo/2)+1)
	}
	return int64(g.r.IntN(40) - 10)
}

func sortValues(t *cql.Type, vs [][]byte) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && cql.Compare(t, vs[j-1], vs[j]) > 0; j-- {
			vs[j-1], vs[j] = vs[j], vs[j-1]
		}
	}
}

// collection serializes list or set elements (protocol v3+ layout).
func collection(elems [][]byte) []byte { return collectionN(len(elems), elems) }

func collectionN(n int, elems [][]byte) []byte {
	out := be32(uint32(n))
	for _, e := range elems {
		out = append(out, be32(uint32(len(e)))...)
		out = append(out, e...)
	}
	return out
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func mustEncode(t *cql.Type, v any) []byte {
	b, err := cql.EncodeGo(t, v)
	if err != nil {
		panic(fmt.Sprintf("difftest: encode %v as %s: %v", v, t, err))
	}
	return b
}

// newRand returns the generator's source for seed.
func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
}
