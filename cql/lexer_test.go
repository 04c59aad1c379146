package cql

import (
	"reflect"
	"testing"
)

func TestLexer(t *testing.T) {
	cases := []struct {
		in    string
		kinds []tokKind
		texts []string
	}{
		{"SELECT a,b FROM t", []tokKind{tIdent, tIdent, tComma, tIdent, tIdent, tIdent}, []string{"SELECT", "a", ",", "b", "FROM", "t"}},
		{`"Quo""ted" 'str''ing' $$dollar$$`, []tokKind{tQIdent, tString, tString}, []string{`"Quo""ted"`, `'str''ing'`, "$$dollar$$"}},
		{"1 -2 3.5 -4.5e-3 1e10 1. 0xAB 0x", []tokKind{tInt, tInt, tFloat, tFloat, tFloat, tFloat, tBlob, tBlob}, nil},
		{"123e4567-e89b-12d3-a456-426614174000 abcdef01-2345-6789-abcd-ef0123456789", []tokKind{tUUID, tUUID}, nil},
		{"1h30m 2d 12mo3w P1Y2M PT1S P2W -1d -PT1H P0001-02-03T04:05:06", []tokKind{tDuration, tDuration, tDuration, tDuration, tDuration, tDuration, tDuration, tDuration, tDuration}, nil},
		// Words that merely look like durations are identifiers.
		{"p pt p1 pa1d", []tokKind{tIdent, tIdent, tIdent, tIdent}, nil},
		// A near-UUID is something else.
		{"123e4567-e89b-12d3-a456-42661417400g", []tokKind{tFloat, tMinus, tIdent, tInt, tIdent, tMinus, tIdent, tInt, tIdent},
			[]string{"123e4567", "-", "e89b", "-12", "d3", "-", "a456", "-42661417400", "g"}},
		{"a=b!=c<d<=e>f>=g+h-i+=j-=k*l", []tokKind{tIdent, tEq, tIdent, tNeq, tIdent, tLt, tIdent, tLte, tIdent, tGt, tIdent, tGte, tIdent, tPlus, tIdent, tMinus, tIdent, tPlusEq, tIdent, tMinusEq, tIdent, tStar, tIdent}, nil},
		{"c-1", []tokKind{tIdent, tInt}, []string{"c", "-1"}},
		{"( ) [ ] { } ; . : ?", []tokKind{tLParen, tRParen, tLBracket, tRBracket, tLBrace, tRBrace, tSemi, tDot, tColon, tQMark}, nil},
		{"a -- comment\n b // other\n c /* block\n */ d", []tokKind{tIdent, tIdent, tIdent, tIdent}, []string{"a", "b", "c", "d"}},
		{"ks.t", []tokKind{tIdent, tDot, tIdent}, nil},
	}
	for _, tc := range cases {
		toks, err := lexAll(tc.in)
		if err != nil {
			t.Errorf("lexAll(%q): %v", tc.in, err)
			continue
		}
		toks = toks[:len(toks)-1] // drop EOF
		var kinds []tokKind
		var texts []string
		for _, tk := range toks {
			kinds = append(kinds, tk.kind)
			texts = append(texts, tk.text(tc.in))
		}
		if !reflect.DeepEqual(kinds, tc.kinds) {
			t.Errorf("lexAll(%q) kinds = %v (%q), want %v", tc.in, kinds, texts, tc.kinds)
		}
		if tc.texts != nil && !reflect.DeepEqual(texts, tc.texts) {
			t.Errorf("lexAll(%q) texts = %q, want %q", tc.in, texts, tc.texts)
		}
	}
}

func TestUnquote(t *testing.T) {
	cases := map[string]string{`'it''s'`: "it's", `"a""b"`: `a"b`, "$$x''y$$": "x''y", "''": "", `"plain"`: "plain"}
	for in, want := range cases {
		if got := unquote(in); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsReserved(t *testing.T) {
	for _, w := range []string{"select", "from", "where", "token", "set", "in", "null", "nan", "infinity", "true", "primary", "unset"} {
		if !IsReserved(w) {
			t.Errorf("IsReserved(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"key", "ttl", "writetime", "count", "type", "static", "json", "values", "value", "text", "map", "list", "exists", "distinct", "users"} {
		if IsReserved(w) {
			t.Errorf("IsReserved(%q) = true, want false", w)
		}
	}
	if got := QuoteIdent("select"); got != `"select"` {
		t.Errorf("QuoteIdent(select) = %s", got)
	}
	if got := QuoteIdent("key"); got != "key" {
		t.Errorf("QuoteIdent(key) = %s", got)
	}
}
