package cql

import (
	"errors"
	"reflect"
	"testing"
)

// seedStatements gathers every statement used by the table tests.
func seedStatements() []string {
	var out []string
	for _, group := range [][]parseCase{ddlCases, unsupportedCases, authCases, insertCases, updateCases, deleteCases, batchCases, selectCases} {
		for _, c := range group {
			out = append(out, c.in)
		}
	}
	for _, c := range literalCases {
		out = append(out, "INSERT INTO t (c) VALUES ("+c.in+")")
	}
	for _, c := range errorCases {
		out = append(out, c.in)
	}
	for _, c := range fingerprintCases {
		out = append(out, c.in)
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, s := range seedStatements() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fp := Fingerprint(text)
		if fp != Fingerprint(text) {
			t.Fatalf("Fingerprint(%q) is not deterministic", text)
		}
		p, err := Parse(text)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", text, err)
			}
			if se.Line < 1 || se.Col < 0 || se.Msg == "" {
				t.Fatalf("Parse(%q) bad error position: %+v", text, *se)
			}
			return
		}
		if p.Stmt == nil {
			t.Fatalf("Parse(%q) returned a nil statement", text)
		}
		for i, m := range p.Markers {
			if m.Index != i {
				t.Fatalf("Parse(%q) marker %d has Index %d", text, i, m.Index)
			}
		}
		// The statement's Text parses to the same statement.
		again, err := Parse(p.Text)
		if err != nil {
			t.Fatalf("Parse(%q).Text = %q does not parse: %v", text, p.Text, err)
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("Parse(%q) and Parse(Text) differ:\n%s\n%s", text, dump(p), dump(again))
		}
		// A parsed statement's fingerprint is a fixed point.
		if fp2 := Fingerprint(fp); fp2 != fp {
			t.Fatalf("Fingerprint not idempotent for %q: %q then %q", text, fp, fp2)
		}
	})
}

func FuzzParseType(f *testing.F) {
	for _, s := range []string{"int", "varchar", "list<int>", "map<text, frozen<list<int>>>", "frozen<tuple<int, text>>",
		"set<frozen<address>>", `ks."My Type"`, "frozen<map<uuid, frozen<set<inet>>>>", "tuple<int>", "map<int>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseType(%q) error %T, want *SyntaxError", s, err)
			}
			return
		}
		if typ == nil {
			t.Fatalf("ParseType(%q) returned nil without error", s)
		}
		if !plainUDTs(typ) {
			return // String drops UDT keyspaces and cannot quote type-named UDTs
		}
		back, err := ParseType(typ.String())
		if err != nil || !back.Equal(typ) {
			t.Fatalf("ParseType(%q) = %s does not round-trip: %v", s, typ, err)
		}
	})
}

// plainUDTs reports whether every UDT in t is unqualified and not named
// like a keyword, so t.String() parses back to t.
func plainUDTs(t *Type) bool {
	if t.Kind == KindUDT && (t.Keyspace != "" || isKeyword(t.Name) || IsReserved(t.Name)) {
		return false
	}
	for _, e := range t.Elems {
		if !plainUDTs(e) {
			return false
		}
	}
	return true
}
