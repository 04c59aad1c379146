package cql

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestVectorTypeParseAndString(t *testing.T) {
	typ, err := ParseType("vector<float, 3>")
	if err != nil {
		t.Fatal(err)
	}
	if !typ.Equal(VectorOf(Scalar(KindFloat), 3)) || typ.String() != "vector<float, 3>" {
		t.Fatalf("got %#v %s", typ, typ)
	}
	if got := VectorClassName(typ); got != "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)" {
		t.Fatalf("class %s", got)
	}
	back, msg := customClassType(VectorClassName(VectorOf(Scalar(KindText), 2)))
	if back == nil || !back.Equal(VectorOf(Scalar(KindText), 2)) {
		t.Fatalf("class round trip: %v %s", back, msg)
	}
}

func TestVectorEncodeLiteral(t *testing.T) {
	vf := VectorOf(Scalar(KindFloat), 3)
	enc := func(typ *Type, lit string) ([]byte, error) {
		term, err := parseTermForTest(lit)
		if err != nil {
			t.Fatal(err)
		}
		return EncodeTerm(typ, term, "v", nil)
	}
	b, err := enc(vf, "[1.5, 2, -1]")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x3f, 0xc0, 0, 0, 0x40, 0, 0, 0, 0xbf, 0x80, 0, 0}
	if !bytes.Equal(b, want) {
		t.Fatalf("got %x want %x", b, want)
	}
	if s := FormatValue(vf, b); s != "[1.5, 2, -1]" {
		t.Fatalf("format %s", s)
	}
	vt := VectorOf(Scalar(KindText), 2)
	b, err = enc(vt, "['a', 'bcd']")
	if err != nil || !bytes.Equal(b, []byte{1, 'a', 3, 'b', 'c', 'd'}) {
		t.Fatalf("text vector %x %v", b, err)
	}
	for lit, msg := range map[string]string{
		"[1.0, 2.5]":      "Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2",
		"[1, 2, 3, 4]":    "expected 3 elements, but given 4",
		"[1.0, null, 3]":  "null is not supported inside vectors",
		"['a', 2.5, 3]":   "Invalid vector literal for v: value 'a' is not of type float",
		"{1.0, 2.0, 3.0}": "Invalid set literal for v of type vector<float, 3>",
		"(1.0, 2.0, 3.0)": "Invalid tuple type literal for v of type vector<float, 3>",
		"1.0":             "Invalid FLOAT constant (1.0) for \"v\" of type vector<float, 3>",
	} {
		if _, err := enc(vf, lit); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %q", lit, err, msg)
		}
	}
}

func TestVectorValidate(t *testing.T) {
	vf := VectorOf(Scalar(KindFloat), 3)
	vt := VectorOf(Scalar(KindText), 2)
	for _, c := range []struct {
		typ *Type
		b   []byte
		msg string
	}{
		{vf, make([]byte, 8), "Not enough bytes to read a vector<float, 3>"},
		{vf, make([]byte, 16), "Unexpected 4 extraneous bytes after vector<float, 3> value"},
		{vf, []byte{}, "Invalid empty vector value"},
		{vt, []byte{1, 'a'}, "Not enough bytes to read a vector<text, 2>"},
		{vt, []byte{1, 'a', 1, 'b', 1, 'c'}, "Unexpected 2 extraneous bytes after vector<text, 2> value"},
		{vt, []byte{5, 'a', 1, 'b'}, "Not enough bytes to read a vector<text, 2>"},
		{vt, []byte{1, 0xff, 1, 'b'}, "String didn't validate."},
		{vf, make([]byte, 12), ""},
		{vt, []byte{1, 'a', 0}, ""},
	} {
		err := Validate(c.typ, c.b)
		if c.msg == "" && err != nil || c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s %x: got %v, want %q", c.typ, c.b, err, c.msg)
		}
	}
}

func TestVectorGoRoundTrip(t *testing.T) {
	vf := VectorOf(Scalar(KindFloat), 2)
	b, err := EncodeGo(vf, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeGo(vf, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.([]any); len(got) != 2 || got[0].(float32) != 1 || got[1].(float32) != 2 {
		t.Fatalf("got %v", v)
	}
	if _, err := EncodeGo(vf, []float32{1}); err == nil {
		t.Fatal("wrong dimension accepted")
	}
	if f, ok := VectorFloats(vf, b); !ok || f[1] != 2 {
		t.Fatalf("VectorFloats %v %v", f, ok)
	}
}

// parseTermForTest parses one INSERT value term.
func parseTermForTest(lit string) (Term, error) {
	p, err := Parse("INSERT INTO t (c) VALUES (" + lit + ")")
	if err != nil {
		return nil, err
	}
	return p.Stmt.(*Insert).Values[0], nil
}

func TestVectorCastDimension(t *testing.T) {
	term, err := parseTermForTest("(vector<float, 2>)[1, 2]")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EncodeTerm(VectorOf(Scalar(KindFloat), 3), term, "v", nil); err == nil {
		t.Error("a vector<float, 2> cast was assigned to a vector<float, 3>")
	}
	if _, err := EncodeTerm(VectorOf(Scalar(KindFloat), 2), term, "v", nil); err != nil {
		t.Errorf("same dimension: %v", err)
	}
}

// TestVectorOfCompositesClassNames: the protocol class names of vectors
// of tuples, UDTs, vectors and collections are Cassandra 5.0.9's (as its
// result metadata spells them), and parse back into the types.
func TestVectorOfCompositesClassNames(t *testing.T) {
	const m = "org.apache.cassandra.db.marshal."
	u := &Type{Kind: KindUDT, Keyspace: "pw", Name: "u", Fields: []string{"a", "b"},
		Elems: []*Type{Scalar(KindInt), Scalar(KindText)}, Frozen: true}
	tup := TupleOf(Scalar(KindInt), Scalar(KindText))
	tup.Frozen = true
	for _, c := range []struct {
		t    *Type
		want string
	}{
		{VectorOf(tup, 2), m + "VectorType(" + m + "TupleType(" + m + "Int32Type," + m + "UTF8Type) , 2)"},
		{VectorOf(u, 2), m + "VectorType(" + m + "FrozenType(" + m + "UserType(pw,75,61:" + m + "Int32Type,62:" + m + "UTF8Type)) , 2)"},
		{VectorOf(VectorOf(Scalar(KindInt), 2), 2), m + "VectorType(" + m + "VectorType(" + m + "Int32Type , 2) , 2)"},
		{VectorOf(FrozenOf(ListOf(Scalar(KindInt))), 2), m + "VectorType(" + m + "FrozenType(" + m + "ListType(" + m + "Int32Type)) , 2)"},
		{VectorOf(ListOf(Scalar(KindInt)), 2), m + "VectorType(" + m + "ListType(" + m + "Int32Type) , 2)"},
	} {
		if got := VectorClassName(c.t); got != c.want {
			t.Errorf("%s: class\n got %s\nwant %s", c.t, got, c.want)
		}
		back, ok := ParseVectorClass(c.want)
		if !ok || back.String() != c.t.String() {
			t.Errorf("%s: parsed back as %v (%v)", c.want, back, ok)
		}
	}
}

// TestVectorOfVectorsSize: a vector of fixed-size elements is itself of a
// fixed size, so it is not length-prefixed inside another vector (as
// Cassandra serializes vector<vector<int, 2>, 2>: 16 bytes).
func TestVectorOfVectorsSize(t *testing.T) {
	vv := VectorOf(VectorOf(Scalar(KindInt), 2), 2)
	b, err := EncodeTerm(vv, &CollectionLit{Kind: CollList, Values: []Term{
		&CollectionLit{Kind: CollList, Values: []Term{&Literal{Kind: LitInteger, Text: "1"}, &Literal{Kind: LitInteger, Text: "2"}}},
		&CollectionLit{Kind: CollList, Values: []Term{&Literal{Kind: LitInteger, Text: "3"}, &Literal{Kind: LitInteger, Text: "4"}}},
	}}, "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "00000001000000020000000300000004"; fmt.Sprintf("%x", b) != want {
		t.Errorf("encoded %x, want %s", b, want)
	}
}
