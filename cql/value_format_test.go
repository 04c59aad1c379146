package cql

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestFormatValue(t *testing.T) {
	dec := func(u int64, scale int32) []byte {
		return encodeDecimal(Decimal{Unscaled: big.NewInt(u), Scale: scale})
	}
	mapped := append(append(make([]byte, 10), 0xff, 0xff), 1, 2, 3, 4)
	uid, _ := ParseUUID("123e4567-e89b-12d3-a456-426614174000")
	cases := []struct {
		typ  *Type
		b    []byte
		want string
	}{
		{tyText, nil, "null"},
		{tyText, []byte("it's"), "'it''s'"},
		{tyAscii, []byte{}, "''"},
		{tyInt, be32(-5), "-5"},
		{tyInt, []byte{}, "blobasint(0x)"},
		{tyInt, []byte{1, 2, 3}, "blobasint(0x010203)"},
		{tyBigint, be64(math.MinInt64), "-9223372036854775808"},
		{tyCounter, be64(42), "42"},
		{tySmallint, be16(-300), "-300"},
		{tyTinyint, []byte{0xff}, "-1"},
		{tyBool, []byte{2}, "true"},
		{tyBool, []byte{0}, "false"},
		{tyFloat, f32(1.5), "1.5"},
		{tyFloat, f32(1e6), "1e+06"},
		{tyFloat, f32(float32(math.NaN())), "NaN"},
		{tyFloat, f32(float32(math.Inf(-1))), "-Infinity"},
		{tyDouble, f64(math.Copysign(0, -1)), "-0"},
		{tyDouble, f64(0.1), "0.1"},
		{tyDouble, f64(math.Inf(1)), "Infinity"},
		{tyVarint, []byte{0, 0x80}, "128"},
		{tyVarint, []byte{0xff, 0x7f}, "-129"},
		{tyDecimal, dec(150, 2), "1.50"},
		{tyDecimal, dec(15, -2), "1.5E+3"},
		{tyDecimal, dec(5, 3), "0.005"},
		{tyDecimal, dec(-5, 3), "-0.005"},
		{tyDecimal, dec(1, 10), "1E-10"},
		{tyDecimal, dec(0, 7), "0E-7"},
		{tyDecimal, dec(123, 0), "123"},
		{tyDecimal, dec(123456, 3), "123.456"},
		{tyTimestamp, be64(1577836800123), "'2020-01-01 00:00:00.123Z'"},
		{tyTimestamp, be64(-1), "'1969-12-31 23:59:59.999Z'"},
		{tyTimestamp, be64(-30610224000000), "-30610224000000"}, // year 1000
		{tyDate, be32(math.MinInt32), "'1970-01-01'"},
		{tyDate, be32(0), "0"},
		{tyTime, be64(3723000000001), "'01:02:03.000000001'"},
		{tyTime, be64(-1), "blobastime(0xffffffffffffffff)"},
		{tyUUID, uid[:], "123e4567-e89b-12d3-a456-426614174000"},
		{tyInet, []byte{1, 2, 3, 4}, "'1.2.3.4'"},
		{tyInet, append(make([]byte, 15), 1), "'::1'"},
		{tyInet, mapped, "blobasinet(0x00000000000000000000ffff01020304)"},
		{tyDuration, encodeDuration(Duration{Nanos: 3723 * nanosPerSecond}), "1h2m3s"},
		{tyDuration, encodeDuration(Duration{}), "0s"},
		{tyDuration, encodeDuration(Duration{Months: -14, Days: -3}), "-1y2mo3d"},
		{tyDuration, encodeDuration(Duration{Months: math.MinInt32}), "blobasduration(0xf0ffffffff0000)"},
		{tyBlob, []byte{0xca, 0xfe}, "0xcafe"},
		{tyBlob, []byte{}, "0x"},
		{ListOf(tyInt), buildCollection(2, [][]byte{be32(1), be32(2)}), "[1, 2]"},
		{ListOf(tyInt), buildCollection(1, [][]byte{{}}), "[blobasint(0x)]"},
		{SetOf(tyText), buildCollection(2, [][]byte{[]byte("a"), []byte("b")}), "{'a', 'b'}"},
		{SetOf(tyText), buildCollection(0, nil), "{}"},
		{MapOf(tyText, tyInt), buildCollection(1, [][]byte{[]byte("a"), be32(1)}), "{'a': 1}"},
		{TupleOf(tyInt, tyText), buildTuple([][]byte{be32(1)}), "(1, null)"},
		{tyUDT, buildTuple([][]byte{[]byte("x")}), "{street: 'x', zip: null}"},
		{ListOf(tyInt), []byte{0, 0, 0, 1}, "0x00000001"},
	}
	for _, c := range cases {
		if got := FormatValue(c.typ, c.b); got != c.want {
			t.Errorf("FormatValue(%s, %x) = %s, want %s", c.typ, c.b, got, c.want)
		}
	}
}

// parseValueTerm parses a literal with the package's parser, as a client
// would send it.
func parseValueTerm(t *testing.T, s string) Term {
	t.Helper()
	p, err := Parse("INSERT INTO t (v) VALUES (" + s + ")")
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return p.Stmt.(*Insert).Values[0]
}

// TestFormatEncodeRoundTripExact: for canonical values, FormatValue's text
// encodes back to the very same bytes.
func TestFormatEncodeRoundTripExact(t *testing.T) {
	uid, _ := ParseUUID("50554d6e-29bb-11e5-b345-feff819cdc9f")
	cases := []struct {
		typ *Type
		b   []byte
	}{
		{tyInt, be32(-7)}, {tyInt, []byte{}}, {tyBigint, be64(math.MaxInt64)}, {tySmallint, be16(3)},
		{tyTinyint, []byte{0x80}}, {tyBool, []byte{1}}, {tyFloat, f32(3.25)}, {tyFloat, f32(float32(math.Inf(1)))},
		{tyDouble, f64(math.Pi)}, {tyDouble, f64(5e-324)}, {tyDouble, f64(-1e300)}, {tyDouble, f64(math.Copysign(0, -1))},
		{tyVarint, varintBytes(new(big.Int).Lsh(big.NewInt(-3), 100))},
		{tyDecimal, encodeDecimal(Decimal{Unscaled: big.NewInt(-12345), Scale: 9})},
		{tyDecimal, encodeDecimal(Decimal{Unscaled: big.NewInt(12), Scale: math.MinInt32})},
		{tyDecimal, encodeDecimal(Decimal{Unscaled: big.NewInt(7), Scale: math.MaxInt32})},
		{tyText, []byte("a'b''c")}, {tyAscii, []byte("")},
		{tyTimestamp, be64(1577836800123)}, {tyTimestamp, be64(math.MinInt64)}, {tyTimestamp, []byte{}},
		{tyDate, be32(math.MinInt32 + 18321)}, {tyDate, be32(-1)},
		{tyTime, be64(0)}, {tyTime, be64(nanosPerDay - 1)},
		{tyUUID, uid[:]}, {tyTimeuuid, uid[:]},
		{tyInet, []byte{10, 0, 0, 1}}, {tyInet, append(append(make([]byte, 10), 0xff, 0xff), 1, 2, 3, 4)},
		{tyInet, []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{tyDuration, encodeDuration(Duration{Months: 14, Days: 3, Nanos: 1})},
		{tyDuration, encodeDuration(Duration{Months: math.MaxInt32, Days: math.MaxInt32, Nanos: math.MaxInt64})},
		{tyDuration, encodeDuration(Duration{Months: -math.MaxInt32, Nanos: -math.MaxInt64})},
		{tyBlob, []byte{0, 1, 2}},
		{ListOf(tyText), buildCollection(2, [][]byte{[]byte("b"), []byte("a")})},
		{SetOf(tyInt), buildCollection(2, [][]byte{be32(-1), be32(5)})},
		{MapOf(tyTimeuuid, FrozenOf(ListOf(tyInt))), buildCollection(1, [][]byte{uid[:], buildCollection(0, nil)})},
		{TupleOf(tyInt, tyText), buildTuple([][]byte{nil, []byte("x")})},
		{tyUDT, buildTuple([][]byte{[]byte("x"), be32(1)})},
	}
	for _, c := range cases {
		s := FormatValue(c.typ, c.b)
		got, err := EncodeTerm(c.typ, parseValueTerm(t, s), "v", nil)
		if err != nil {
			t.Errorf("%s: EncodeTerm(%s): %v", c.typ, s, err)
			continue
		}
		if !bytes.Equal(got, c.b) {
			t.Errorf("%s: %x -> %s -> %x", c.typ, c.b, s, got)
		}
	}
}

// TestFormatEncodeRoundTripRandom: for random valid values of every sample
// type, FormatValue's text encodes back to a value that formats the same
// (bytes may differ only in representation: non-minimal varints, true as
// 0x02, NaN payloads).
func TestFormatEncodeRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	types := append(sampleTypes(), SetOf(tyDecimal), MapOf(tyText, tyUUID), ListOf(FrozenOf(tyUDT)))
	for _, typ := range types {
		for i := 0; i < 60; i++ {
			b, err := Canonicalize(typ, randValue(rng, typ, 0))
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			s := FormatValue(typ, b)
			got, err := EncodeTerm(typ, parseValueTerm(t, s), "v", nil)
			if err != nil {
				t.Errorf("%s: EncodeTerm(%s) for %x: %v", typ, s, b, err)
				continue
			}
			if s2 := FormatValue(typ, got); s2 != s {
				t.Errorf("%s: %x -> %s -> %x -> %s", typ, b, s, got, s2)
			}
			if typ.Kind != KindDuration && Compare(typ, got, b) != 0 {
				t.Errorf("%s: %x -> %s -> %x compares unequal", typ, b, s, got)
			}
		}
	}
}
