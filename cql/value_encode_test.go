package cql

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

// Test helpers are prefixed tv ("test value") to stay clear of the parser
// tests' helpers in the same package.

func tvLit(k LitKind, s string) *Literal { return &Literal{Kind: k, Text: s} }
func tvStr(s string) *Literal            { return tvLit(LitString, s) }
func tvInt(s string) *Literal            { return tvLit(LitInteger, s) }
func tvFloat(s string) *Literal          { return tvLit(LitFloat, s) }
func tvNull() *Literal                   { return tvLit(LitNull, "null") }
func tvList(v ...Term) *CollectionLit    { return &CollectionLit{Kind: CollList, Values: v} }
func tvSet(v ...Term) *CollectionLit     { return &CollectionLit{Kind: CollSet, Values: v} }
func tvMap(kv ...Term) *CollectionLit {
	c := &CollectionLit{Kind: CollMap}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Keys = append(c.Keys, kv[i])
		c.Values = append(c.Values, kv[i+1])
	}
	return c
}

func tvHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

var (
	tyInt       = Scalar(KindInt)
	tyBigint    = Scalar(KindBigint)
	tyText      = Scalar(KindText)
	tyAscii     = Scalar(KindAscii)
	tyBlob      = Scalar(KindBlob)
	tyDouble    = Scalar(KindDouble)
	tyFloat     = Scalar(KindFloat)
	tyDecimal   = Scalar(KindDecimal)
	tyVarint    = Scalar(KindVarint)
	tyDate      = Scalar(KindDate)
	tyTime      = Scalar(KindTime)
	tyTimestamp = Scalar(KindTimestamp)
	tyUUID      = Scalar(KindUUID)
	tyTimeuuid  = Scalar(KindTimeuuid)
	tyInet      = Scalar(KindInet)
	tyDuration  = Scalar(KindDuration)
	tyBool      = Scalar(KindBoolean)
	tySmallint  = Scalar(KindSmallint)
	tyTinyint   = Scalar(KindTinyint)
	tyCounter   = Scalar(KindCounter)
	tyUDT       = &Type{Kind: KindUDT, Keyspace: "ks", Name: "addr", Fields: []string{"street", "zip"},
		Elems: []*Type{tyText, tyInt}}
)

// fakeResolver serves bind markers by index and function calls by name.
type fakeResolver struct {
	binds map[int][]byte
	unset map[int]bool
	calls map[string][]byte
}

func (f *fakeResolver) Bind(m *BindMarker, t *Type) ([]byte, bool, error) {
	if f.unset[m.Index] {
		return nil, true, nil
	}
	b, ok := f.binds[m.Index]
	if !ok {
		return nil, false, errors.New("unbound")
	}
	return b, false, nil
}

func (f *fakeResolver) Call(fn *FuncCall, t *Type) ([]byte, error) {
	if b, ok := f.calls[fn.Name]; ok {
		return b, nil
	}
	return nil, errors.New("unknown function " + fn.Name)
}

func mustEncode(t *testing.T, typ *Type, term Term, r Resolver) []byte {
	t.Helper()
	b, err := EncodeTerm(typ, term, "v", r)
	if err != nil {
		t.Fatalf("EncodeTerm(%s, %s): %v", typ, termText(term), err)
	}
	return b
}

func TestEncodeLiterals(t *testing.T) {
	ms2020 := int64(1577836800000)
	cases := []struct {
		typ  *Type
		term Term
		want string // hex
	}{
		{tyInt, tvInt("1"), "00000001"},
		{tyInt, tvInt("-2147483648"), "80000000"},
		{tyBigint, tvInt("-1"), "ffffffffffffffff"},
		{tyCounter, tvInt("5"), "0000000000000005"},
		{tySmallint, tvInt("-2"), "fffe"},
		{tyTinyint, tvInt("-128"), "80"},
		{tyTinyint, tvLit(LitBlob, "0x05"), "05"},
		{tyVarint, tvInt("0"), "00"},
		{tyVarint, tvInt("127"), "7f"},
		{tyVarint, tvInt("128"), "0080"},
		{tyVarint, tvInt("-1"), "ff"},
		{tyVarint, tvInt("-128"), "80"},
		{tyVarint, tvInt("-129"), "ff7f"},
		{tyVarint, tvInt("18446744073709551616"), "010000000000000000"},
		{tyDecimal, tvFloat("1.50"), "00000002 0096"},
		{tyDecimal, tvFloat("1.5e3"), "fffffffe 0f"},
		{tyDecimal, tvInt("12"), "00000000 0c"},
		{tyDecimal, tvFloat("-0.001"), "00000003 ff"},
		{tyFloat, tvFloat("1.5"), "3fc00000"},
		{tyFloat, tvInt("1"), "3f800000"},
		{tyFloat, tvFloat("NaN"), "7fc00000"},
		{tyFloat, tvFloat("-Infinity"), "ff800000"},
		{tyFloat, tvFloat("1e50"), "7f800000"},
		{tyDouble, tvFloat("1.5"), "3ff8000000000000"},
		{tyDouble, tvInt("-0"), "8000000000000000"},
		{tyDouble, tvFloat("Infinity"), "7ff0000000000000"},
		{tyBool, tvLit(LitBool, "true"), "01"},
		{tyBool, tvLit(LitBool, "FALSE"), "00"},
		{tyText, tvStr("héllo"), hex.EncodeToString([]byte("héllo"))},
		{tyText, tvStr(""), ""},
		{tyAscii, tvStr("abc"), "616263"},
		{tyInet, tvStr("1.2.3.4"), "01020304"},
		{tyInet, tvStr("::1"), "00000000000000000000000000000001"},
		{tyInet, tvStr("[::1]"), "00000000000000000000000000000001"},
		{tyInet, tvStr("::ffff:1.2.3.4"), "01020304"},
		{tyInet, tvStr(""), ""},
		{tyDate, tvStr("1970-01-01"), "80000000"},
		{tyDate, tvStr("2020-02-29"), "80004791"},
		{tyDate, tvStr("1969-12-31"), "7fffffff"},
		{tyDate, tvInt("0"), "00000000"},
		{tyDate, tvInt("4294967295"), "ffffffff"},
		{tyDate, tvStr("2147483648"), "80000000"},
		{tyDate, tvStr("-5877641-06-23"), "00000000"},
		{tyDate, tvStr("+5881580-07-11"), "ffffffff"},
		{tyTime, tvStr("10:00:00"), hex.EncodeToString(be64(10 * nanosPerHour))},
		{tyTime, tvStr("23:59:59.999999999"), hex.EncodeToString(be64(nanosPerDay - 1))},
		{tyTime, tvStr("01:02:03.5"), hex.EncodeToString(be64(nanosPerHour + 2*nanosPerMinute + 3*nanosPerSecond + 500_000_000))},
		{tyTime, tvInt("1"), "0000000000000001"},
		{tyTimestamp, tvInt("1000"), "00000000000003e8"},
		{tyTimestamp, tvInt("-1"), "ffffffffffffffff"},
		{tyTimestamp, tvStr("2020-01-01"), hex.EncodeToString(be64(ms2020))},
		{tyTimestamp, tvStr("2020-01-01 00:00:00Z"), hex.EncodeToString(be64(ms2020))},
		{tyTimestamp, tvStr("2020-01-01T10:00"), hex.EncodeToString(be64(ms2020 + 36e5*10))},
		{tyTimestamp, tvStr("2020-01-01 10:00:00.123+0100"), hex.EncodeToString(be64(ms2020 + 36e5*9 + 123))},
		{tyTimestamp, tvStr("2020-01-01T10:00:00.5-01:30"), hex.EncodeToString(be64(ms2020 + 36e5*11 + 30*60000 + 500))},
		{tyTimestamp, tvStr("2020-01-01 10:00 UTC"), hex.EncodeToString(be64(ms2020 + 36e5*10))},
		{tyTimestamp, tvStr("2020-01-01 GMT+01:00"), hex.EncodeToString(be64(ms2020 - 36e5))},
		{tyTimestamp, tvStr("1969-12-31 23:59:59.999Z"), "ffffffffffffffff"},
		{tyTimestamp, tvStr("2020-01-01T10:00:00.123999999"), hex.EncodeToString(be64(ms2020 + 36e5*10 + 123))},
		{tyTimestamp, tvStr("1969-12-31T23:59:59.9995Z"), "ffffffffffffffff"},
		{tyTimestamp, tvStr("2020-01-01 10:00:00.Z"), hex.EncodeToString(be64(ms2020 + 36e5*10))},
		{tyTimestamp, tvStr(""), ""},
		{tyUUID, tvLit(LitUUID, "123E4567-e89b-12d3-a456-426614174000"), "123e4567e89b12d3a456426614174000"},
		{tyTimeuuid, tvLit(LitUUID, "50554d6e-29bb-11e5-b345-feff819cdc9f"), "50554d6e29bb11e5b345feff819cdc9f"},
		{tyBlob, tvLit(LitBlob, "0xCAFE"), "cafe"},
		{tyBlob, tvLit(LitBlob, "0xabc"), "0abc"},
		{tyBlob, tvLit(LitBlob, "0x"), ""},
		{tyDuration, tvLit(LitDuration, "1h30m"), "00 00 " + hex.EncodeToString(appendVint(nil, 90*nanosPerMinute))},
		{tyDuration, tvLit(LitDuration, "-2d"), "00 03 00"},
		{tyDuration, tvLit(LitDuration, "P1Y2M"), "1c 00 00"},
	}
	for _, c := range cases {
		got := mustEncode(t, c.typ, c.term, nil)
		want := tvHex(t, c.want)
		if !bytes.Equal(got, want) || got == nil {
			t.Errorf("EncodeTerm(%s, %s) = %x, want %x", c.typ, termText(c.term), got, want)
		}
	}
}

func TestEncodeNull(t *testing.T) {
	for _, typ := range []*Type{tyInt, tyText, ListOf(tyInt), tyUDT} {
		if b, err := EncodeTerm(typ, tvNull(), "v", nil); b != nil || err != nil {
			t.Errorf("null for %s = %x, %v; want nil, nil", typ, b, err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		typ  *Type
		term Term
		want string
	}{
		{tyInt, tvStr("abc"), `Invalid STRING constant (abc) for "v" of type int`},
		{tyText, tvInt("1"), `Invalid INTEGER constant (1) for "v" of type text`},
		{tyInt, tvFloat("1.5"), `Invalid FLOAT constant (1.5) for "v" of type int`},
		{tyBlob, tvStr("cafe"), `Invalid STRING constant (cafe) for "v" of type blob`},
		{tyUUID, tvStr("123e4567-e89b-12d3-a456-426614174000"), `Invalid STRING constant (123e4567-e89b-12d3-a456-426614174000) for "v" of type uuid`},
		{tyBool, tvInt("1"), `Invalid INTEGER constant (1) for "v" of type boolean`},
		{ListOf(tyInt), tvInt("1"), `Invalid INTEGER constant (1) for "v" of type list<int>`},
		{tyInt, tvInt("2147483648"), `Unable to make int from '2147483648'`},
		{tyBigint, tvInt("9223372036854775808"), `Unable to make long from '9223372036854775808'`},
		{tySmallint, tvInt("32768"), `Unable to make short from '32768'`},
		{tyTinyint, tvInt("128"), `Unable to make byte from '128'`},
		{tyTinyint, tvLit(LitBlob, "0x0102"), `Expected 1 byte for a tinyint (2)`},
		{tyDecimal, tvFloat("NaN"), `unable to make BigDecimal from 'NaN'`},
		{tyAscii, tvStr("é"), `Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = 1`},
		{tyInet, tvStr("example.com"), `Unable to make inet address from 'example.com'`},
		{tyDate, tvStr("2021-02-29"), `Unable to coerce '2021-02-29' to a formatted date (long)`},
		{tyDate, tvStr("2021-2-3"), `Unable to coerce '2021-2-3' to a formatted date (long)`},
		{tyDate, tvInt("-1"), `Unable to make unsigned int (for date) from: '-1'`},
		{tyDate, tvInt("4294967296"), `Unable to make unsigned int (for date) from: '4294967296'`},
		{tyDate, tvStr("-5877641-06-22"), `Input date -5877641-06-22 is less than min supported date -5877641-06-23T00:00Z`},
		{tyDate, tvStr("+5881580-07-12"), `Input date +5881580-07-12 is greater than max supported date +5881580-07-11T00:00Z`},
		{tyTime, tvInt("86400000000000"), `Unable to make long (for time) from: '86400000000000'`},
		{tyTime, tvStr("24:00:00"), `(TimeType) Unable to coerce '24:00:00' to a formatted time (long)`},
		{tyTime, tvStr("10:00:00."), `(TimeType) Unable to coerce '10:00:00.' to a formatted time (long)`},
		{tyTime, tvStr("10:00"), `(TimeType) Unable to coerce '10:00' to a formatted time (long)`},
		{tyTimestamp, tvStr("2020-13-01"), `Unable to parse a date/time from '2020-13-01'`},
		{tyTimestamp, tvStr("2020-01-01 10:00:00.1234567891"), `Unable to parse a date/time from '2020-01-01 10:00:00.1234567891'`},
		{tyTimestamp, tvStr("2020-1-1"), `Unable to parse a date/time from '2020-1-1'`},
		{tyTimestamp, tvStr("12020-01-01"), `Unable to parse a date/time from '12020-01-01'`},
		{tyTimestamp, tvInt("9223372036854775808"), `Unable to make long (for date) from: '9223372036854775808'`},
		{tyTimeuuid, tvLit(LitUUID, "123e4567-e89b-42d3-a456-426614174000"), `TimeUUID supports only version 1 UUIDs`},
		{tyDuration, tvInt("5"), `Unable to convert '5' to a duration`},
		{tyCounter, tvNull(), `Invalid null value for counter increment/decrement`},
		{ListOf(tyInt), tvSet(tvInt("1")), `Invalid set literal for v of type list<int>`},
		{tyInt, tvList(tvInt("1")), `Unexpected receiver type 'int'; only list and vector are expected`},
		{ListOf(tyInt), tvList(tvStr("a")), `Invalid list literal for v: value 'a' is not of type int`},
		{ListOf(tyInt), tvList(tvInt("99999999999")), `Unable to make int from '99999999999'`},
		{ListOf(tyInt), tvList(tvNull()), `null is not supported inside collections`},
		{ListOf(tyInt), &CollectionLit{Kind: CollMap}, `Invalid set literal for v of type list<int>`},
		{ListOf(FrozenOf(ListOf(tyInt))), tvList(tvList(tvStr("a"))), `Invalid list literal for v: value ['a'] is not of type frozen<list<int>>`},
		{SetOf(tyInt), tvSet(tvStr("a")), `Invalid set literal for v: value 'a' is not of type int`},
		{MapOf(tyText, tyInt), tvMap(tvInt("1"), tvInt("1")), `Invalid map literal for v: key 1 is not of type text`},
		{MapOf(tyText, tyInt), tvMap(tvStr("a"), tvStr("b")), `Invalid map literal for v: value 'b' is not of type int`},
		{MapOf(tyText, tyInt), tvSet(tvStr("a")), `Invalid set literal for v of type map<text, int>`},
		{SetOf(tyInt), tvMap(tvInt("1"), tvInt("2")), `Invalid map literal for v of type set<int>`},
		{TupleOf(tyInt, tyText), &TupleLit{Elems: []Term{tvInt("1"), tvStr("a"), tvInt("2")}},
			`Invalid tuple literal for v: too many elements. Type tuple<int, text> expects 2 but got 3`},
		{TupleOf(tyInt, tyText), &TupleLit{Elems: []Term{tvInt("1"), tvInt("2")}}, `Invalid tuple literal for v: component 1 is not of type text`},
		{tyUDT, &UDTLit{Fields: []string{"city"}, Values: []Term{tvStr("x")}}, `Unknown field 'city' in value of user defined type addr`},
		{tyUDT, &UDTLit{Fields: []string{"zip"}, Values: []Term{tvStr("x")}}, `Invalid user type literal for v: field zip is not of type int`},
		{tyInt, &UDTLit{Fields: []string{"zip"}, Values: []Term{tvInt("1")}}, `Invalid user type literal for v of type int`},
		{tyInt, &Cast{Type: tyText, Term: tvInt("1")}, `Cannot cast value 1 to type text`},
		{tyInt, &Cast{Type: tyText, Term: tvStr("a")}, `Cannot assign value (text)'a' to v of type int`},
		{tyInt, &FuncCall{Name: "blobasint", Args: []Term{tvLit(LitBlob, "0x01")}},
			`In call to function system.blobasint, value 0x01 is not a valid binary representation for type int`},
		{tyText, &FuncCall{Name: "blobasint", Args: []Term{tvLit(LitBlob, "0x00000001")}},
			`Type error: cannot assign result of function system.blobasint (type int) to v (type text)`},
		{tyBlob, &FuncCall{Name: "intasblob", Args: []Term{tvStr("x")}},
			`Type error: 'x' cannot be passed as argument 0 of function system.intasblob of type int`},
		{tyInt, &BindMarker{Index: 0}, `No value bound for bind marker ?`},
		{&Type{Kind: KindList}, tvList(), `Invalid type list for v`},
		{nil, tvInt("1"), `Invalid type <nil> for v`},
		{tyInt, &Cast{Type: &Type{Kind: KindMap}, Term: tvInt("1")}, `Cannot cast value 1 to type map`},
		{tyInt, &BindMarker{Index: 0, Name: "x"}, `No value bound for bind marker :x`},
	}
	for _, c := range cases {
		_, err := EncodeTerm(c.typ, c.term, "v", nil)
		var ve *ValueError
		if !errors.As(err, &ve) {
			t.Errorf("EncodeTerm(%s, %s) error = %v, want *ValueError %q", c.typ, termText(c.term), err, c.want)
			continue
		}
		if ve.Msg != c.want {
			t.Errorf("EncodeTerm(%s, %s) error:\n got %q\nwant %q", c.typ, termText(c.term), ve.Msg, c.want)
		}
	}
}

func TestEncodeCollections(t *testing.T) {
	i := func(v int32) []byte { return be32(v) }
	s := func(v string) []byte { return []byte(v) }
	cases := []struct {
		name string
		typ  *Type
		term Term
		want []byte
	}{
		{"list keeps order and duplicates", ListOf(tyInt), tvList(tvInt("3"), tvInt("1"), tvInt("3")),
			buildCollection(3, [][]byte{i(3), i(1), i(3)})},
		{"set sorted and deduplicated", SetOf(tyInt), tvSet(tvInt("3"), tvInt("-1"), tvInt("2"), tvInt("3")),
			buildCollection(3, [][]byte{i(-1), i(2), i(3)})},
		{"set of text bytewise", SetOf(tyText), tvSet(tvStr("b"), tvStr("B"), tvStr("a")),
			buildCollection(3, [][]byte{s("B"), s("a"), s("b")})},
		{"map sorted, last value wins", MapOf(tyText, tyInt), tvMap(tvStr("b"), tvInt("1"), tvStr("a"), tvInt("2"), tvStr("b"), tvInt("3")),
			buildCollection(2, [][]byte{s("a"), i(2), s("b"), i(3)})},
		{"empty braces as set", SetOf(tyInt), &CollectionLit{Kind: CollMap}, buildCollection(0, nil)},
		{"empty braces as map", MapOf(tyInt, tyInt), &CollectionLit{Kind: CollMap}, buildCollection(0, nil)},
		{"empty list", ListOf(tyInt), tvList(), buildCollection(0, nil)},
		{"nested frozen sets sorted", ListOf(FrozenOf(SetOf(tyInt))), tvList(tvSet(tvInt("2"), tvInt("1"))),
			buildCollection(1, [][]byte{buildCollection(2, [][]byte{i(1), i(2)})})},
		{"set of frozen lists ordered", SetOf(FrozenOf(ListOf(tyInt))),
			tvSet(tvList(tvInt("1"), tvInt("2")), tvList(tvInt("1")), tvList()),
			buildCollection(3, [][]byte{buildCollection(0, nil), buildCollection(1, [][]byte{i(1)}),
				buildCollection(2, [][]byte{i(1), i(2)})})},
		{"decimal set dedups numerically", SetOf(tyDecimal), tvSet(tvFloat("1.0"), tvFloat("1.00")),
			buildCollection(1, [][]byte{tvHex(t, "00000001 0a")})},
		{"tuple padded with nulls", TupleOf(tyInt, tyText, tyInt), &TupleLit{Elems: []Term{tvInt("1"), tvNull()}},
			buildTuple([][]byte{i(1), nil, nil})},
		{"udt fields in type order", tyUDT, &UDTLit{Fields: []string{"zip", "street"}, Values: []Term{tvInt("7"), tvStr("x")}},
			buildTuple([][]byte{s("x"), i(7)})},
		{"udt missing field is null", tyUDT, &UDTLit{Fields: []string{"zip"}, Values: []Term{tvInt("7")}},
			buildTuple([][]byte{nil, i(7)})},
		{"udt literal as text-keyed map", MapOf(tyText, tyInt), &UDTLit{Fields: []string{"b", "a"}, Values: []Term{tvInt("1"), tvInt("2")}},
			buildCollection(2, [][]byte{s("a"), i(2), s("b"), i(1)})},
		{"cast", tyBigint, &Cast{Type: tyBigint, Term: tvInt("5")}, be64(5)},
		{"cast to compatible type", tyVarint, &Cast{Type: tyInt, Term: tvInt("5")}, []byte{5}},
		{"blobasint", tyInt, &FuncCall{Name: "blobAsInt", Args: []Term{tvLit(LitBlob, "0x00000001")}}, i(1)},
		{"intasblob", tyBlob, &FuncCall{Name: "intasblob", Args: []Term{tvInt("1")}}, i(1)},
		{"blobasint empty", tyInt, &FuncCall{Name: "blobasint", Args: []Term{tvLit(LitBlob, "0x")}}, []byte{}},
	}
	for _, c := range cases {
		got := mustEncode(t, c.typ, c.term, nil)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: EncodeTerm(%s, %s) = %x, want %x", c.name, c.typ, termText(c.term), got, c.want)
		}
		if err := Validate(c.typ, got); err != nil {
			t.Errorf("%s: encoded value does not validate: %v", c.name, err)
		}
	}
}

func TestEncodeWithResolver(t *testing.T) {
	now := be64(1234)
	unsortedSet := buildCollection(3, [][]byte{be32(3), be32(1), be32(3)})
	r := &fakeResolver{
		binds: map[int][]byte{0: be32(7), 1: nil, 2: unsortedSet, 3: {1, 2, 3}},
		unset: map[int]bool{9: true},
		calls: map[string][]byte{"currenttimestamp": now, "now": tvHex(t, "50554d6e29bb11e5b345feff819cdc9f")},
	}
	m := func(i int) *BindMarker { return &BindMarker{Index: i} }

	if got := mustEncode(t, tyInt, m(0), r); !bytes.Equal(got, be32(7)) {
		t.Errorf("marker = %x, want 00000007", got)
	}
	if got := mustEncode(t, tyInt, m(1), r); got != nil {
		t.Errorf("null marker = %x, want nil", got)
	}
	if got := mustEncode(t, SetOf(tyInt), m(2), r); !bytes.Equal(got, buildCollection(2, [][]byte{be32(1), be32(3)})) {
		t.Errorf("bound set not canonicalized: %x", got)
	}
	if _, err := EncodeTerm(tyInt, m(3), "v", r); err == nil || err.Error() != "Expected 4 or 0 byte int (3)" {
		t.Errorf("bad bound int: err = %v", err)
	}
	if _, err := EncodeTerm(tyInt, m(9), "v", r); !errors.Is(err, ErrUnset) {
		t.Errorf("unset marker: err = %v, want ErrUnset", err)
	}
	if _, err := EncodeTerm(ListOf(tyInt), tvList(tvInt("1"), m(9)), "v", r); !errors.Is(err, ErrUnset) {
		t.Errorf("unset element: err = %v, want ErrUnset", err)
	}
	if _, err := EncodeTerm(ListOf(tyInt), tvList(m(1)), "v", r); err == nil || err.Error() != "null is not supported inside collections" {
		t.Errorf("null element: err = %v", err)
	}
	if _, err := EncodeTerm(TupleOf(tyInt), &TupleLit{Elems: []Term{m(9)}}, "v", r); err == nil ||
		err.Error() != "Invalid unset value for tuple field number 0" {
		t.Errorf("unset tuple component: err = %v", err)
	}
	if got := mustEncode(t, tyTimestamp, tvStr("now"), r); !bytes.Equal(got, now) {
		t.Errorf("'now' timestamp = %x, want %x", got, now)
	}
	if got := mustEncode(t, tyTimeuuid, &FuncCall{Name: "now"}, r); len(got) != 16 {
		t.Errorf("now() = %x", got)
	}
	if got := mustEncode(t, ListOf(tyInt), tvList(m(0), tvInt("1")), r); !bytes.Equal(got, buildCollection(2, [][]byte{be32(7), be32(1)})) {
		t.Errorf("list with marker = %x", got)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		typ  *Type
		b    []byte
		want string // "" for valid
	}{
		{tyInt, []byte{}, ""},
		{tyInt, []byte{1, 2, 3}, "Expected 4 or 0 byte int (3)"},
		{tyBigint, []byte{1}, "Expected 8 or 0 byte long (1)"},
		{tySmallint, []byte{}, "Expected 2 bytes for a smallint (0)"},
		{tyTinyint, []byte{1, 2}, "Expected 1 byte for a tinyint (2)"},
		{tyFloat, []byte{1}, "Expected 4 or 0 byte value for a float (1)"},
		{tyDouble, []byte{1}, "Expected 8 or 0 byte value for a double (1)"},
		{tyBool, []byte{1, 1}, "Expected 1 or 0 byte value (2)"},
		{tyTimestamp, []byte{1}, "Expected 8 or 0 byte long for date (1)"},
		{tyDate, []byte{}, "Expected 4 byte long for date (0)"},
		{tyTime, []byte{1}, "Expected 8 byte long for time (1)"},
		{tyUUID, make([]byte, 15), "UUID should be 16 or 0 bytes (15)"},
		{tyTimeuuid, make([]byte, 16), "Invalid version for TimeUUID type."},
		{tyInet, make([]byte, 5), "Invalid length for an inet address (5)"},
		{tyDecimal, []byte{0, 0, 1}, "Expected 0 or at least 4 bytes (3)"},
		{tyText, []byte{0xff}, "String didn't validate."},
		{tyAscii, []byte{'a', 0xc3}, "Invalid byte for ascii: -61"},
		{tyDuration, []byte{0, 0}, "Expected at least 3 bytes for a duration (2)"},
		{tyDuration, []byte{2, 1, 0}, "The duration months, days and nanoseconds must be all of the same sign (1, -1, 0)"},
		{tyDuration, []byte{0xf1, 0, 0, 0, 0, 0, 0}, "The duration months must be a 32 bits integer but was: 2147483648"},
		{tyDuration, []byte{0, 0, 0, 0}, "Invalid duration format"},
		{tyDuration, []byte{0xc0, 0, 0}, "Invalid duration format"},
		{ListOf(tyInt), []byte{0, 0, 0}, "Not enough bytes to read a list"},
		{ListOf(tyInt), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0}, "Not enough bytes to read a list"},
		{ListOf(tyInt), []byte{0, 0, 0, 0, 1}, "Unexpected extraneous bytes after list value"},
		{SetOf(tyInt), []byte{0x7f, 0xff, 0xff, 0xff}, "Not enough bytes to read a set"},
		{MapOf(tyInt, tyInt), buildCollection(1, [][]byte{be32(1), nil}), "null is not supported inside collections"},
		{ListOf(tyInt), buildCollection(1, [][]byte{{1}}), "Expected 4 or 0 byte int (1)"},
		{TupleOf(tyInt, tyInt), buildTuple([][]byte{be32(1)}), ""},
		{TupleOf(tyInt), buildTuple([][]byte{be32(1), be32(2)}), "Invalid remaining data after end of tuple value"},
		{TupleOf(tyInt, tyInt), []byte{0, 0, 0, 4, 0, 0, 0, 1, 0, 0}, "Not enough bytes to read size of 1th component"},
		{TupleOf(tyInt), []byte{0, 0, 0, 4, 0}, "Not enough bytes to read 0th component"},
		{tyUDT, []byte{0, 0, 0, 9}, "Not enough bytes to read 0th field street"},
		{tyUDT, buildTuple([][]byte{nil, nil, nil}), "Invalid remaining data after end of UDT value"},
		{tyUDT, []byte{}, ""},
	}
	for _, c := range cases {
		err := Validate(c.typ, c.b)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Validate(%s, %x) = %q, want %q", c.typ, c.b, got, c.want)
		}
	}
	if err := Validate(tyInt, nil); err != nil {
		t.Errorf("Validate(nil) = %v", err)
	}
}

func TestCanonicalize(t *testing.T) {
	typ := MapOf(tyInt, FrozenOf(SetOf(tyText)))
	in := buildCollection(2, [][]byte{
		be32(2), buildCollection(2, [][]byte{[]byte("b"), []byte("a")}),
		be32(1), buildCollection(1, [][]byte{[]byte("z")}),
	})
	want := buildCollection(2, [][]byte{
		be32(1), buildCollection(1, [][]byte{[]byte("z")}),
		be32(2), buildCollection(2, [][]byte{[]byte("a"), []byte("b")}),
	})
	got, err := Canonicalize(typ, in)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Canonicalize = %x, %v; want %x", got, err, want)
	}
	again, _ := Canonicalize(typ, got)
	if !bytes.Equal(again, got) {
		t.Errorf("Canonicalize is not idempotent")
	}
	if _, err := Canonicalize(typ, []byte{1}); err == nil {
		t.Errorf("Canonicalize accepted malformed bytes")
	}
}

func TestEncodeFloatLiteralsExact(t *testing.T) {
	// Java's parseFloat rounds decimal text directly to float32.
	got := mustEncode(t, tyFloat, tvFloat("0.1"), nil)
	if f := math.Float32frombits(uint32(be32Value(got))); f != float32(0.1) {
		t.Errorf("0.1 as float = %v", f)
	}
}

func be32Value(b []byte) int32 {
	return int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
}
