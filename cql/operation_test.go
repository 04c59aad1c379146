package cql

import (
	"strings"
	"testing"
)

// valueTerm parses the first VALUES term of an INSERT.
func valueTerm(t *testing.T, v string) Term {
	t.Helper()
	p, err := Parse("INSERT INTO t (v) VALUES (" + v + ")")
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	return p.Stmt.(*Insert).Values[0]
}

// TestParseOperations: precedence, associativity, negation, casts of
// simple terms, and an identifier after + ending the term (v = 1 + v is
// a prepend), as Cassandra 5.0's term grammar.
func TestParseOperations(t *testing.T) {
	for in, want := range map[string]string{
		"1 + 2 * 3":       `system."_add"(1, system."_multiply"(2, 3))`,
		"7 % 3 * 2 - 1":   `system."_substract"(system."_multiply"(system."_modulo"(7, 3), 2), 1)`,
		"(1 + 2) * 3":     `system."_multiply"((system."_add"(1, 2)), 3)`,
		"-(1 + 2)":        `system."_negate"((system."_add"(1, 2)))`,
		"3 - -2":          `system."_substract"(3, -2)`,
		"- 4":             `system."_negate"(4)`,
		"(int) ? / 2 - 5": `system."_substract"(system."_divide"((int)?, 2), 5)`,
		"abs(-3) + 1":     `system."_add"(abs(-3), 1)`,
		"'a' + 'b'":       `system."_add"('a', 'b')`,
		"-NaN":            `NaN`, // as the parser keeps it (the sign is dropped)
		"[1 + 1, 2]":      `[system."_add"(1, 1), 2]`,
	} {
		if got := termText(valueTerm(t, in)); got != want {
			t.Errorf("%s: parsed as %s, want %s", in, got, want)
		}
	}
	p, err := Parse("UPDATE t SET v = 1 + v WHERE k = 1")
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Stmt.(*Update).Set[0]; a.Op != AssignPrepend {
		t.Errorf("v = 1 + v: op %v, want a prepend", a.Op)
	}
	for _, bad := range []string{"SELECT * FROM t LIMIT 1 + 1", "INSERT INTO t (k) VALUES (1) USING TTL 1 + 1", "UPDATE t SET v = 3 -1 WHERE k = 1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: parsed, want a syntax error", bad)
		}
	}
}

// TestResolveOperation: the overload Cassandra 5.0.9 picks for a receiver
// (checked against the server by the operators_values scenarios).
func TestResolveOperation(t *testing.T) {
	sig := func(s OpSig) string {
		if s.R == nil {
			return s.L.String() + " -> " + s.Ret.String()
		}
		return s.L.String() + ", " + s.R.String() + " -> " + s.Ret.String()
	}
	for _, c := range []struct{ recv, term, want string }{
		{"int", "2147483647 + 1", "int, int -> int"},
		{"bigint", "2147483647 + 1", "bigint, bigint -> bigint"},
		{"int", "100000000000 - 99999999999", "int, int -> int"},
		{"double", "1 + 0.5", "int, double -> double"},
		{"decimal", "1.5 + 1", "decimal, decimal -> decimal"},
		{"decimal", "10 / 4", "decimal, decimal -> decimal"},
		{"double", "5 % 0", "double, double -> double"},
		{"text", "'a' + 'b'", "ascii, ascii -> ascii"},
		{"text", "'a' + 'é'", "ascii, text -> text"},
		{"timestamp", "'2020-01-01' + 1h", "timestamp, duration -> timestamp"},
		{"timestamp", "1000 + 1h", "timestamp, duration -> timestamp"},
		{"timestamp", "? - 5m", "timestamp, duration -> timestamp"},
		{"date", "'2020-01-31' + 1mo", "date, duration -> date"},
		{"int", "(int) ? + 1", "int, int -> int"},
		{"int", "(1 + 2) * 3", "int, int -> int"},
		{"int", "-(3)", "int -> int"},
		{"double", "-?", "double -> double"},
		{"int", "1 + null", "int, int -> int"},
	} {
		got, err := ResolveOperation(Scalar(mustKind(t, c.recv)), valueTerm(t, c.term))
		if err != nil {
			t.Errorf("%s for %s: %v", c.term, c.recv, err)
			continue
		}
		if sig(got) != c.want {
			t.Errorf("%s for %s: %s, want %s", c.term, c.recv, sig(got), c.want)
		}
	}
	for _, c := range []struct{ recv, term, want string }{
		{"int", "1 + 0.5", "the '+' operation is not supported between 1 and 0.5"},
		{"text", "'a' + 1", "the '+' operation is not supported between 'a' and 1"},
		{"int", "? + 1", "Ambiguous '+' operation with args ? and 1"},
		{"bigint", "(int) ? + 1", "Ambiguous '+' operation with args (int)? and 1"},
		{"timestamp", "1 + 2", "Ambiguous '+' operation with args 1 and 2"},
		{"int", "1 + 0.5 + 'a'", `the '+' operation is not supported between system."_add"(1, 0.5) and 'a'`},
		{"int", "- 'a'", "Invalid call to function system._negate, none of its type signatures match"},
		{"varint", "-?", "Ambiguous negation: use type casts to disambiguate"},
	} {
		_, err := ResolveOperation(Scalar(mustKind(t, c.recv)), valueTerm(t, c.term))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s for %s: %v, want %q", c.term, c.recv, err, c.want)
		}
	}
}

func mustKind(t *testing.T, name string) Kind {
	t.Helper()
	ty, err := ParseType(name)
	if err != nil {
		t.Fatal(err)
	}
	return ty.Kind
}

// TestEncodeOperationNeedsOperator: without an Operator (DDL defaults,
// tools) an operation is refused, not computed wrong.
func TestEncodeOperationNeedsOperator(t *testing.T) {
	_, err := EncodeTerm(Scalar(KindInt), valueTerm(t, "1 + 2"), "v", nil)
	if err == nil || !strings.Contains(err.Error(), "Operations are not supported") {
		t.Fatalf("err = %v", err)
	}
}

// TestResolveDeepOperation: nested operations resolve in time linear in
// their depth (each nested one once per receiver type).
func TestResolveDeepOperation(t *testing.T) {
	expr := "1"
	for i := 2; i <= 40; i++ {
		expr = "(" + expr + " + " + string(rune('0'+i%10)) + ") * 1"
	}
	sig, err := ResolveOperation(Scalar(KindInt), valueTerm(t, expr))
	if err != nil || sig.Ret.Kind != KindInt {
		t.Fatalf("%v %v", sig, err)
	}
}
