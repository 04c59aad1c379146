package cql

import "testing"

// TestCompositeClasses: CompositeType and DynamicCompositeType custom
// types are reported as Cassandra 5.0.9 reports them (system_schema and
// protocol metadata): classes fully qualified, aliases kept, in Java's
// HashMap order; invalid definitions get its message.
func TestCompositeClasses(t *testing.T) {
	const m = "org.apache.cassandra.db.marshal."
	for in, want := range map[string]string{
		"CompositeType(Int32Type, UTF8Type)":                           m + "CompositeType(" + m + "Int32Type," + m + "UTF8Type)",
		"CompositeType":                                                m + "CompositeType()",
		"DynamicCompositeType":                                         m + "DynamicCompositeType()",
		"DynamicCompositeType(s=>UTF8Type, i=>Int32Type)":              m + "DynamicCompositeType(s=>" + m + "UTF8Type,i=>" + m + "Int32Type)",
		"DynamicCompositeType(s=>UTF8Type,b=>ReversedType(BytesType))": m + "DynamicCompositeType(b=>" + m + "ReversedType(" + m + "BytesType),s=>" + m + "UTF8Type)",
		m + "DynamicCompositeType(a=>" + m + "AsciiType)":              m + "DynamicCompositeType(a=>" + m + "AsciiType)",
		"CompositeType(ReversedType(Int32Type), BytesType)":            m + "CompositeType(" + m + "ReversedType(" + m + "Int32Type)," + m + "BytesType)",
		"CompositeType(CompositeType(Int32Type))":                      m + "CompositeType(" + m + "CompositeType(" + m + "Int32Type))",
		"CompositeType(ListType(Int32Type))":                           m + "CompositeType(" + m + "ListType(" + m + "Int32Type))",
	} {
		typ, msg := customClassType(in)
		if typ == nil || typ.Custom != want || !IsCompositeClass(typ) {
			t.Errorf("%s: got %v %q, want %s", in, typ, msg, want)
		}
	}
	for in, want := range map[string]string{
		"DynamicCompositeType(ss=>UTF8Type)": "Error setting type DynamicCompositeType(ss=>UTF8Type): Invalid definition for comparator " + m + "DynamicCompositeType.",
		"DynamicCompositeType(s=>Nope)":      "Error setting type DynamicCompositeType(s=>Nope): Invalid definition for comparator " + m + "DynamicCompositeType.",
		"CompositeType(Int32Type,Nope)":      "Error setting type CompositeType(Int32Type,Nope): Invalid definition for comparator " + m + "CompositeType.",
		"DynamicCompositeType(UTF8Type)":     "Error setting type DynamicCompositeType(UTF8Type): Invalid definition for comparator " + m + "DynamicCompositeType.",
	} {
		if typ, msg := customClassType(in); typ != nil || msg != want {
			t.Errorf("%s: got %v %q, want %q", in, typ, msg, want)
		}
	}
	// Aliases in the buckets of a 16-entry table: 'a' (97) and 'q' (113)
	// share bucket 1 and keep their order; 'b' (98) comes after both.
	if got := javaByteMapOrder([]byte("bqa"), []string{"b", "q", "a"}); got[0] != "q" || got[1] != "a" || got[2] != "b" {
		t.Errorf("order %v", got)
	}
}

// TestCompositeValues: text and bound values of composite custom types,
// as Cassandra 5.0.9 converts and checks them (the bytes are the
// server's).
func TestCompositeValues(t *testing.T) {
	ct, _ := customClassType("CompositeType(Int32Type, UTF8Type)")
	dct, _ := customClassType("DynamicCompositeType(s=>UTF8Type, i=>Int32Type)")
	for _, c := range []struct {
		t    *Type
		text string
		want string
	}{
		{ct, "1:abc", "00040000000100000361626300"},
		{ct, "1:abc:!", "00040000000100000361626301"},
		{dct, "s@abc", "8073000361626300"},
		{dct, `s@a\:b:i@-2`, "80730003613a620080690004fffffffe00"},
	} {
		b, err := EncodeTerm(c.t, &Literal{Kind: LitString, Text: c.text}, "v", nil)
		if err != nil || hexString(b) != c.want {
			t.Errorf("%s as %s: %x %v, want %s", c.text, c.t.Custom, b, err, c.want)
		}
		if _, err := Canonicalize(c.t, b); err != nil {
			t.Errorf("%s: the encoded value does not validate: %v", c.text, err)
		}
	}
	if _, err := Canonicalize(ct, []byte{0, 1}); err == nil || err.Error() != "Not enough bytes to read value of component 0" {
		t.Errorf("truncated value: %v", err)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
