package cql

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

func TestDecodeGo(t *testing.T) {
	uid := RandomUUID()
	ts := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.UTC)
	cases := []struct {
		typ  *Type
		b    []byte
		want any
	}{
		{tyInt, nil, nil},
		{tyInt, be32(-3), int32(-3)},
		{tyInt, []byte{}, []byte{}},
		{tyBigint, be64(7), int64(7)},
		{tyCounter, be64(7), int64(7)},
		{tySmallint, be16(-2), int16(-2)},
		{tyTinyint, []byte{0xfe}, int8(-2)},
		{tyBool, []byte{3}, true},
		{tyFloat, f32(1.5), float32(1.5)},
		{tyDouble, f64(-2.5), -2.5},
		{tyVarint, []byte{0xff, 0x7f}, big.NewInt(-129)},
		{tyDecimal, []byte{0, 0, 0, 2, 0, 0x96}, Decimal{Unscaled: big.NewInt(150), Scale: 2}},
		{tyText, []byte("hé"), "hé"},
		{tyBlob, []byte{1}, []byte{1}},
		{tyTimestamp, be64(ts.UnixMilli()), ts},
		{tyDate, be32(math.MinInt32 + 1), Date(1)},
		{tyTime, be64(int64(90 * time.Minute)), 90 * time.Minute},
		{tyUUID, uid[:], uid},
		{tyInet, []byte{1, 2, 3, 4}, net.IP{1, 2, 3, 4}},
		{tyDuration, encodeDuration(Duration{Months: 1, Days: 2, Nanos: 3}), Duration{Months: 1, Days: 2, Nanos: 3}},
		{ListOf(tyInt), buildCollection(2, [][]byte{be32(2), be32(1)}), []any{int32(2), int32(1)}},
		{MapOf(tyText, tyBool), buildCollection(2, [][]byte{[]byte("b"), {1}, []byte("a"), {0}}),
			[]MapEntry{{"b", true}, {"a", false}}},
		{TupleOf(tyInt, tyText, tyInt), buildTuple([][]byte{be32(1), nil}), []any{int32(1), nil, nil}},
		{tyUDT, buildTuple([][]byte{[]byte("x")}), map[string]any{"street": "x", "zip": nil}},
	}
	for _, c := range cases {
		got, err := DecodeGo(c.typ, c.b)
		if err != nil {
			t.Errorf("DecodeGo(%s, %x): %v", c.typ, c.b, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("DecodeGo(%s, %x) = %#v, want %#v", c.typ, c.b, got, c.want)
		}
	}
	if _, err := DecodeGo(tyInt, []byte{1}); err == nil {
		t.Errorf("DecodeGo accepted a 1-byte int")
	}
}

func TestEncodeGo(t *testing.T) {
	ts := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.UTC)
	cases := []struct {
		typ  *Type
		v    any
		want []byte
	}{
		{tyInt, nil, nil},
		{tyInt, int32(-3), be32(-3)},
		{tyInt, 5, be32(5)},
		{tyInt, float64(5), be32(5)},
		{tyInt, "12", be32(12)},
		{tyInt, []byte{}, []byte{}},
		{tyBigint, uint16(9), be64(9)},
		{tyTinyint, int64(-128), []byte{0x80}},
		{tyVarint, big.NewInt(128), []byte{0, 0x80}},
		{tyVarint, "-129", []byte{0xff, 0x7f}},
		{tyDecimal, Decimal{Unscaled: big.NewInt(15), Scale: 1}, []byte{0, 0, 0, 1, 15}},
		{tyDecimal, 0.5, []byte{0, 0, 0, 1, 5}},
		{tyDecimal, "1.50", []byte{0, 0, 0, 2, 0, 0x96}},
		{tyDouble, 3, f64(3)},
		{tyFloat, float64(0.5), f32(0.5)},
		{tyBool, true, []byte{1}},
		{tyText, "x", []byte("x")},
		{tyBlob, "0xcafe", []byte{0xca, 0xfe}},
		{tyTimestamp, ts, be64(ts.UnixMilli())},
		{tyTimestamp, "2020-01-02 03:04:05.006Z", be64(ts.UnixMilli())},
		{tyDate, Date(-1), be32(math.MaxInt32)},
		{tyDate, ts, be32(math.MinInt32 + 18263)},
		{tyDate, "2020-01-03", be32(math.MinInt32 + 18264)},
		{tyTime, time.Second, be64(1e9)},
		{tyUUID, "123e4567-e89b-12d3-a456-426614174000", []byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00}},
		{tyInet, netip.MustParseAddr("10.0.0.1"), []byte{10, 0, 0, 1}},
		{tyInet, net.ParseIP("10.0.0.1"), net.ParseIP("10.0.0.1")},
		{tyDuration, 2 * time.Second, encodeDuration(Duration{Nanos: 2e9})},
		{tyDuration, "1d", encodeDuration(Duration{Days: 1})},
		{ListOf(tyInt), []int{3, 1}, buildCollection(2, [][]byte{be32(3), be32(1)})},
		{SetOf(tyText), []any{"b", "a"}, buildCollection(2, [][]byte{[]byte("b"), []byte("a")})},
		{MapOf(tyText, tyInt), map[string]int{"b": 1, "a": 2}, buildCollection(2, [][]byte{[]byte("a"), be32(2), []byte("b"), be32(1)})},
		{MapOf(tyText, tyInt), []MapEntry{{"b", 1}, {"a", 2}}, buildCollection(2, [][]byte{[]byte("b"), be32(1), []byte("a"), be32(2)})},
		{TupleOf(tyInt, tyText), []any{1}, buildTuple([][]byte{be32(1), nil})},
		{tyUDT, map[string]any{"zip": 9}, buildTuple([][]byte{nil, be32(9)})},
	}
	for _, c := range cases {
		got, err := EncodeGo(c.typ, c.v)
		if err != nil {
			t.Errorf("EncodeGo(%s, %#v): %v", c.typ, c.v, err)
			continue
		}
		if !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("EncodeGo(%s, %#v) = %x, want %x", c.typ, c.v, got, c.want)
		}
	}
	bad := []struct {
		typ *Type
		v   any
	}{
		{tyInt, int64(math.MaxInt32 + 1)},
		{tyTinyint, 200},
		{tyInt, 1.5},
		{tyInt, true},
		{tyTime, "24:00:00"},
		{tyTimeuuid, RandomUUID()},
		{tyDuration, Duration{Months: 1, Days: -1}},
		{ListOf(tyInt), []any{nil}},
		{tyUDT, map[string]any{"nope": 1}},
		{TupleOf(tyInt), []any{1, 2}},
		{tyBlob, "cafe"},
		{tyInt, []byte{1}},
	}
	for _, c := range bad {
		if b, err := EncodeGo(c.typ, c.v); err == nil {
			t.Errorf("EncodeGo(%s, %#v) = %x, want error", c.typ, c.v, b)
		}
	}
}

// TestGoRoundTrip: DecodeGo then EncodeGo gives back the same bytes for
// canonical random values.
func TestGoRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range sampleTypes() {
		for i := 0; i < 100; i++ {
			b := randValue(rng, typ, 0)
			v, err := DecodeGo(typ, b)
			if err != nil {
				t.Fatalf("DecodeGo(%s, %x): %v", typ, b, err)
			}
			got, err := EncodeGo(typ, v)
			if err != nil {
				t.Fatalf("EncodeGo(%s, %#v): %v", typ, v, err)
			}
			if FormatValue(typ, got) != FormatValue(typ, b) {
				t.Errorf("%s: %x -> %#v -> %x", typ, b, v, got)
			}
		}
	}
}

func TestDecimalString(t *testing.T) {
	for _, s := range []string{"0", "1.50", "-0.005", "1E-10", "1.5E+3", "0E-7", "123456789.123456789", "-9E+2147483647"} {
		d, err := ParseDecimal(s)
		if err != nil {
			t.Fatalf("ParseDecimal(%s): %v", s, err)
		}
		if got := d.String(); got != s {
			t.Errorf("ParseDecimal(%s).String() = %s", s, got)
		}
	}
	for _, s := range []string{"", "-", "1.2.3", "e5", "1e", "--1", "1E+2147483649", "1.5E-2147483647", "NaN"} {
		if _, err := ParseDecimal(s); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", s)
		}
	}
}

func TestDate(t *testing.T) {
	d := DateOf(time.Date(2020, 2, 29, 23, 0, 0, 0, time.UTC))
	if d != 18321 || d.String() != "2020-02-29" || !d.Time().Equal(time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DateOf = %d %s %v", d, d, d.Time())
	}
	if s := Date(math.MinInt32).String(); s != "-5877641-06-23" {
		t.Errorf("min date = %s", s)
	}
	// Every day maps back to itself through the civil calendar.
	for _, days := range []int64{math.MinInt32, -719468, -1, 0, 1, 59, 60, 11016, 2932896, math.MaxInt32} {
		y, m, dd := civilFromDays(days)
		if got := daysFromCivil(y, m, dd); got != days {
			t.Errorf("civil round trip %d -> %d-%d-%d -> %d", days, y, m, dd, got)
		}
	}
}
