package cql

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func f64(f float64) []byte { return be64(int64(math.Float64bits(f))) }
func f32(f float32) []byte { return be32(int32(math.Float32bits(f))) }

// ascending asserts that vals are strictly increasing under Compare.
func ascending(t *testing.T, name string, typ *Type, vals ...[]byte) {
	t.Helper()
	for i := 0; i+1 < len(vals); i++ {
		if c := Compare(typ, vals[i], vals[i+1]); c >= 0 {
			t.Errorf("%s: Compare(%s, %x, %x) = %d, want < 0", name, typ, vals[i], vals[i+1], c)
		}
		if c := Compare(typ, vals[i+1], vals[i]); c <= 0 {
			t.Errorf("%s: Compare(%s, %x, %x) = %d, want > 0", name, typ, vals[i+1], vals[i], c)
		}
	}
}

func equalUnder(t *testing.T, name string, typ *Type, a, b []byte) {
	t.Helper()
	if c := Compare(typ, a, b); c != 0 {
		t.Errorf("%s: Compare(%s, %x, %x) = %d, want 0", name, typ, a, b, c)
	}
}

func TestCompareScalars(t *testing.T) {
	ascending(t, "null and empty first", tyInt, nil, []byte{}, be32(math.MinInt32), be32(-1), be32(0), be32(1))
	ascending(t, "bigint signed", tyBigint, be64(math.MinInt64), be64(-1), be64(0), be64(math.MaxInt64))
	ascending(t, "timestamp signed", tyTimestamp, be64(-1000), be64(0), be64(1000))
	ascending(t, "smallint", tySmallint, be16(-2), be16(1))
	ascending(t, "tinyint", tyTinyint, []byte{0x80}, []byte{0xff}, []byte{0}, []byte{0x7f})
	ascending(t, "date unsigned", tyDate, be32(0), be32(math.MaxInt32), be32(-1))
	ascending(t, "time", tyTime, be64(0), be64(nanosPerDay-1))
	ascending(t, "boolean", tyBool, []byte{0}, []byte{1})
	equalUnder(t, "boolean non-1 true", tyBool, []byte{1}, []byte{2})
	ascending(t, "double", tyDouble, f64(math.Inf(-1)), f64(-1), f64(math.Copysign(0, -1)), f64(0), f64(1e-300), f64(math.Inf(1)), f64(math.NaN()))
	equalUnder(t, "double NaNs", tyDouble, f64(math.NaN()), be64(0x7ff8000000000001))
	ascending(t, "float", tyFloat, f32(float32(math.Inf(-1))), f32(-1), f32(float32(math.Copysign(0, -1))), f32(0), f32(float32(math.NaN())))
	ascending(t, "varint", tyVarint, []byte{0x80}, []byte{0xff}, []byte{0}, []byte{0x7f}, []byte{0, 0x80}, []byte{1, 0, 0})
	equalUnder(t, "varint non-minimal", tyVarint, []byte{0, 0, 1}, []byte{1})
	dec := func(s string) []byte {
		d, ok := parseDecimal(s)
		if !ok {
			t.Fatalf("bad decimal %s", s)
		}
		return encodeDecimal(d)
	}
	ascending(t, "decimal", tyDecimal, dec("-1E+1000"), dec("-1"), dec("-0.5"), dec("0"), dec("1E-2147483647"),
		dec("0.5"), dec("0.99999"), dec("1"), dec("999"), dec("1E+3"), dec("1000.001"), dec("1E+2147483647"))
	equalUnder(t, "decimal scale", tyDecimal, dec("1.0"), dec("1.00"))
	equalUnder(t, "decimal exponent", tyDecimal, dec("1E+3"), dec("1000"))
	equalUnder(t, "decimal zeros", tyDecimal, dec("0E+5"), dec("0.000"))
	ascending(t, "text bytewise", tyText, []byte(""), []byte("B"), []byte("a"), []byte("ab"), []byte("b"), []byte("é"))
	ascending(t, "inet bytewise", tyInet, []byte{}, []byte{1, 2, 3, 4}, append([]byte{1, 2, 3, 4}, make([]byte, 12)...), []byte{2, 0, 0, 0})
}

func TestCompareUUIDs(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	node := [6]byte{1, 2, 3, 4, 5, 6}
	// late is later but has smaller leading (time_low) bytes: the time
	// fields must be reordered before comparing.
	early := timeUUIDFrom(0x1_FFFFFFFF, 0xFFFF_FFFFFFFFFFFF)
	late := timeUUIDFrom(0x2_00000000, 0x8000_000000000000)
	muchLater := NewTimeUUID(t0, 0, node)
	v4a := UUID{0x00, 0, 0, 0, 0, 0, 0x40}
	v4b := UUID{0xff, 0, 0, 0, 0, 0, 0x40}
	v4a[8], v4b[8] = 0x80, 0x80
	for _, typ := range []*Type{tyUUID, tyTimeuuid} {
		ascending(t, "time order "+typ.String(), typ, early[:], late[:], muchLater[:])
	}
	ascending(t, "uuid version first", tyUUID, muchLater[:], v4a[:], v4b[:])

	// Same timestamp: uuid compares the low bytes unsigned, timeuuid signed.
	lo := NewTimeUUID(t0, 0, [6]byte{0x01})
	hi := NewTimeUUID(t0, 0, [6]byte{0x81})
	ascending(t, "uuid low bytes unsigned", tyUUID, lo[:], hi[:])
	ascending(t, "timeuuid low bytes signed", tyTimeuuid, hi[:], lo[:])

	min, max := MinTimeUUID(t0), MaxTimeUUID(t0)
	mid := NewTimeUUID(t0.Add(500*time.Microsecond), 0x1234, node)
	prevMax, nextMin := MaxTimeUUID(t0.Add(-time.Millisecond)), MinTimeUUID(t0.Add(time.Millisecond))
	ascending(t, "min/max timeuuid", tyTimeuuid, prevMax[:], min[:], mid[:], max[:], nextMin[:])
}

func TestCompareComposites(t *testing.T) {
	l := func(v ...int32) []byte {
		items := make([][]byte, len(v))
		for i, x := range v {
			items[i] = be32(x)
		}
		return buildCollection(len(v), items)
	}
	fl := FrozenOf(ListOf(tyInt))
	ascending(t, "frozen list", fl, l(), l(-1), l(1), l(1, 2), l(1, 2, 3), l(1, 3), l(2))
	fm := FrozenOf(MapOf(tyInt, tyText))
	m := func(k int32, v string) []byte { return buildCollection(1, [][]byte{be32(k), []byte(v)}) }
	ascending(t, "frozen map", fm, m(1, "a"), m(1, "b"), m(2, "a"))
	tt := TupleOf(tyInt, tyText)
	ascending(t, "tuple", tt,
		buildTuple([][]byte{nil, []byte("z")}),
		buildTuple([][]byte{be32(1), nil}),
		buildTuple([][]byte{be32(1), []byte("")}),
		buildTuple([][]byte{be32(1), []byte("a")}),
		buildTuple([][]byte{be32(2)}),
	)
	equalUnder(t, "tuple trailing null", tt, buildTuple([][]byte{be32(1)}), buildTuple([][]byte{be32(1), nil}))
	ascending(t, "tuple prefix", tt, buildTuple([][]byte{be32(1)}), buildTuple([][]byte{be32(1), []byte("a")}))
	ascending(t, "udt", tyUDT, buildTuple([][]byte{[]byte("a"), be32(9)}), buildTuple([][]byte{[]byte("b"), be32(1)}))
}

func TestCompareMalformedNoPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range sampleTypes() {
		for i := 0; i < 200; i++ {
			a, b := randBytes(rng, 24), randBytes(rng, 24)
			if sign(Compare(typ, a, b)) != -sign(Compare(typ, b, a)) {
				t.Fatalf("Compare(%s) not antisymmetric on %x, %x", typ, a, b)
			}
		}
	}
}

func randBytes(rng *rand.Rand, max int) []byte {
	b := make([]byte, rng.IntN(max+1))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// sampleTypes covers every kind plus nested composites.
func sampleTypes() []*Type {
	return []*Type{
		tyAscii, tyBigint, tyBlob, tyBool, tyCounter, tyDate, tyDecimal, tyDouble, tyDuration, tyFloat,
		tyInet, tyInt, tySmallint, tyText, tyTime, tyTimestamp, tyTimeuuid, tyTinyint, tyUUID, tyVarint,
		FrozenOf(ListOf(tyInt)), FrozenOf(SetOf(tyText)), FrozenOf(MapOf(tyTimeuuid, tyDouble)),
		TupleOf(tyInt, tyText, tyDecimal), FrozenOf(tyUDT),
		FrozenOf(ListOf(FrozenOf(MapOf(tyInt, FrozenOf(SetOf(tyVarint)))))),
	}
}

// randValue returns a random valid value of typ, biased towards edge cases
// and small domains so that equal values occur.
func randValue(rng *rand.Rand, typ *Type, depth int) []byte {
	pick := func(opts ...[]byte) []byte { return opts[rng.IntN(len(opts))] }
	small := int64(rng.IntN(7)) - 3
	switch typ.Kind {
	case KindInt:
		return pick(be32(int32(small)), be32(math.MinInt32), be32(math.MaxInt32), be32(int32(rng.Uint32())), []byte{})
	case KindBigint, KindCounter, KindTimestamp:
		return pick(be64(small), be64(math.MinInt64), be64(math.MaxInt64), be64(int64(rng.Uint64())), []byte{})
	case KindSmallint:
		return be16(int16(rng.Uint32()))
	case KindTinyint:
		return []byte{byte(small)}
	case KindBoolean:
		return []byte{byte(rng.IntN(3))}
	case KindDate:
		return pick(be32(int32(small)), be32(int32(rng.Uint32())), be32(math.MinInt32))
	case KindTime:
		return be64(rng.Int64N(nanosPerDay))
	case KindFloat:
		return pick(f32(float32(small)), f32(float32(math.NaN())), f32(float32(math.Inf(-1))), f32(float32(math.Copysign(0, -1))), f32(rng.Float32()), be32(int32(rng.Uint32())))
	case KindDouble:
		return pick(f64(float64(small)), f64(math.NaN()), f64(math.Inf(1)), f64(math.Copysign(0, -1)), f64(rng.NormFloat64()), be64(int64(rng.Uint64())))
	case KindVarint:
		return pick(varintBytes(big.NewInt(small)), []byte{0, 0, byte(small)}, randBytes(rng, 12), []byte{})
	case KindDecimal:
		u := varintBytes(big.NewInt(small * int64(rng.IntN(1000))))
		return pick(append(be32(int32(rng.IntN(5)-2)), u...), append(be32(int32(rng.Uint32())), randBytes(rng, 6)...), append(be32(0), u...))
	case KindText, KindAscii:
		return []byte(pick([]byte(""), []byte("a"), []byte("ab"), []byte("b"), []byte("B")))
	case KindBlob, KindInet:
		if typ.Kind == KindInet {
			return pick([]byte{1, 2, 3, byte(small)}, append(make([]byte, 15), byte(small)))
		}
		return randBytes(rng, 4)
	case KindUUID, KindTimeuuid:
		var u UUID
		for i := range u {
			u[i] = byte(rng.IntN(3)) * 0x7f
		}
		v := byte(1)
		if typ.Kind == KindUUID {
			v = byte(rng.IntN(5))
		}
		u[6] = u[6]&0x0f | v<<4
		return u[:]
	case KindDuration:
		n := int64(rng.IntN(5))
		if rng.IntN(2) == 0 {
			n = -n
		}
		return encodeDuration(Duration{Months: int32(n), Nanos: n * 1000})
	case KindList, KindSet, KindMap:
		per := 1
		if typ.Kind == KindMap {
			per = 2
		}
		n := rng.IntN(3)
		if depth > 2 {
			n = 0
		}
		items := make([][]byte, 0, n*per)
		for i := 0; i < n*per; i++ {
			items = append(items, randValue(rng, typ.Elems[i%per], depth+1))
		}
		return buildCollection(n, items)
	case KindTuple, KindUDT:
		items := make([][]byte, len(typ.Elems))
		for i, e := range typ.Elems {
			if rng.IntN(4) > 0 {
				items[i] = randValue(rng, e, depth+1)
			}
		}
		return buildTuple(items)
	}
	return nil
}

func TestCompareProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	for _, typ := range sampleTypes() {
		vals := make([][]byte, 40)
		for i := range vals {
			vals[i] = randValue(rng, typ, 0)
			if err := Validate(typ, vals[i]); err != nil {
				t.Fatalf("generator made invalid %s value %x: %v", typ, vals[i], err)
			}
		}
		for _, a := range vals {
			if Compare(typ, a, a) != 0 {
				t.Errorf("%s: Compare(x, x) != 0 for %x", typ, a)
			}
			for _, b := range vals {
				ab := sign(Compare(typ, a, b))
				if ab != -sign(Compare(typ, b, a)) {
					t.Errorf("%s: not antisymmetric: %x vs %x", typ, a, b)
				}
				for _, c := range vals {
					bc := sign(Compare(typ, b, c))
					ac := sign(Compare(typ, a, c))
					if ab <= 0 && bc <= 0 && ac > 0 {
						t.Errorf("%s: not transitive: %x <= %x <= %x but a > c", typ, a, b, c)
					}
					if ab == 0 && bc == 0 && ac != 0 {
						t.Errorf("%s: equality not transitive: %x, %x, %x", typ, a, b, c)
					}
				}
			}
		}
		// Sorting must agree with pairwise order.
		sort.Slice(vals, func(i, j int) bool { return Compare(typ, vals[i], vals[j]) < 0 })
		for i := 0; i+1 < len(vals); i++ {
			if Compare(typ, vals[i], vals[i+1]) > 0 {
				t.Errorf("%s: sorted values out of order at %d", typ, i)
			}
		}
	}
}

func TestCompareTimeUUIDsFollowTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for i := 0; i < 500; i++ {
		d1 := time.Duration(rng.Int64N(int64(1000 * time.Hour)))
		d2 := time.Duration(rng.Int64N(int64(1000 * time.Hour)))
		var n1, n2 [6]byte
		binary.BigEndian.PutUint32(n1[:], rng.Uint32())
		binary.BigEndian.PutUint32(n2[:], rng.Uint32())
		a := NewTimeUUID(base.Add(d1), uint16(rng.Uint32()), n1)
		b := NewTimeUUID(base.Add(d2), uint16(rng.Uint32()), n2)
		ta, tb := base.Add(d1).Truncate(100), base.Add(d2).Truncate(100)
		if ta.Equal(tb) {
			continue
		}
		want := -1
		if ta.After(tb) {
			want = 1
		}
		for _, typ := range []*Type{tyUUID, tyTimeuuid} {
			if got := sign(Compare(typ, a[:], b[:])); got != want {
				t.Fatalf("Compare(%s, %s@%v, %s@%v) = %d, want %d", typ, a, ta, b, tb, got, want)
			}
		}
	}
}
