package cql

import (
	"errors"
	"strings"
	"testing"
)

var errorCases = []struct {
	in        string
	line, col int
	token     string
	msg       string
}{
	{"SELECT * FORM t", 1, 9, "FORM", "mismatched input 'FORM' expecting K_FROM"},
	{"INSERT INTO t (a, b VALUES (1, 2)", 1, 20, "VALUES", "mismatched input 'VALUES' expecting ')'"},
	{"SELECT * FROM t WHERE", 1, 21, "<EOF>", "no viable alternative at input '<EOF>'"},
	{"", 1, 0, "<EOF>", "no viable alternative at input '<EOF>'"},
	{"  ; ", 1, 2, ";", "no viable alternative at input ';'"},
	{"FOO BAR", 1, 0, "FOO", "no viable alternative at input 'FOO'"},
	{"SELECT * FROM t x", 1, 16, "x", "mismatched input 'x' expecting EOF"},
	{"SELECT * FROM t; SELECT * FROM u", 1, 17, "SELECT", "mismatched input 'SELECT' expecting EOF"},
	{"SELECT a FROM t WHERE k = 'abc", 1, 26, "'", "unterminated string literal"},
	{"SELECT a FROM t WHERE k = $$abc", 1, 26, "$$", "unterminated $$ string literal"},
	{`SELECT "abc FROM t`, 1, 7, `"`, "unterminated quoted identifier"},
	{"SELECT * FROM t /* x", 1, 16, "/*", "unterminated comment"},
	{"SELECT *\nFROM t\nWHERE k = #", 3, 10, "#", "no viable alternative at character '#'"},
	{"SELECT * FROM t WHERE k = é", 1, 26, "é", "no viable alternative at character 'é'"},
	{"SELECT 'é' FROM t WHERE k = @", 1, 28, "@", "no viable alternative at character '@'"},
	{"CREATE TABLE select (k int PRIMARY KEY)", 1, 13, "select", "no viable alternative at input 'select'"},
	{"CREATE TABLE t (k int, v map<int>, PRIMARY KEY (k))", 1, 32, ">", "mismatched input '>' expecting ','"},
	{"CREATE KEYSPACE ks WITH durable_writes = 5", 1, 41, "5", "invalid value for durable_writes: expected a boolean"},
	{"CREATE KEYSPACE ks WITH replication = [1]", 1, 38, "[", "invalid value for replication: expected a map"},
	{"INSERT INTO t (a) VALUES (1) USING TTL 'x'", 1, 39, "'x'", "no viable alternative at input ''x''"},
	{"UPDATE t SET a = b + 1 WHERE k = 1", 1, 17, "b", "only expressions of the form X = X + <value> are supported"},
	{"UPDATE t SET a = [1] + b WHERE k = 1", 1, 23, "b", "only expressions of the form X = <value> + X are supported"},
	{"UPDATE t SET a = 1", 1, 18, "<EOF>", "mismatched input '<EOF>' expecting K_WHERE"},
	{"DELETE FROM t USING TTL 5 WHERE k = 1", 1, 20, "TTL", "mismatched input 'TTL' expecting K_TIMESTAMP"},
	{"BEGIN BATCH SELECT * FROM t APPLY BATCH", 1, 12, "SELECT", "no viable alternative at input 'SELECT'"},
	{"BEGIN BATCH INSERT INTO t (k) VALUES (1)", 1, 40, "<EOF>", "no viable alternative at input '<EOF>'"},
	{"SELECT * FROM t WHERE k = 1 LIMIT 'x'", 1, 34, "'x'", "no viable alternative at input ''x''"},
	{"SELECT * FROM t WHERE k IS NULL", 1, 27, "NULL", "mismatched input 'NULL' expecting K_NOT"},
	{"ALTER TABLE t FOO", 1, 14, "FOO", "no viable alternative at input 'FOO'"},
	{"CREATE FOO", 1, 7, "FOO", "no viable alternative at input 'FOO'"},
	{"USE true", 1, 4, "true", "no viable alternative at input 'true'"},
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range errorCases {
		_, err := Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v (%T), want *SyntaxError", tc.in, err, err)
			continue
		}
		want := &SyntaxError{Line: tc.line, Col: tc.col, Token: tc.token, Msg: tc.msg}
		if *se != *want {
			t.Errorf("Parse(%q) error = %+v, want %+v", tc.in, *se, *want)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	deep := []string{
		"INSERT INTO t (a) VALUES (" + strings.Repeat("[", 100000),
		"INSERT INTO t (a) VALUES (" + strings.Repeat("(", 100000),
		"SELECT " + strings.Repeat("f(", 100000) + " FROM t",
		"CREATE TABLE t (a " + strings.Repeat("list<", 100000),
	}
	for _, s := range deep {
		_, err := Parse(s)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != "too deeply nested" {
			t.Errorf("Parse(%.40q...) error = %v, want too deeply nested", s, err)
		}
		_ = Fingerprint(s)
	}
	if _, err := ParseType(strings.Repeat("list<", 100000)); err == nil {
		t.Errorf("ParseType of a deep type succeeded")
	}
	ok := "INSERT INTO t (a) VALUES (" + strings.Repeat("[", 50) + strings.Repeat("]", 50) + ")"
	if _, err := Parse(ok); err != nil {
		t.Errorf("50 nested lists: %v", err)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse("INSERT INTO t (a, b VALUES (1, 2)")
	if got, want := err.Error(), "line 1:20 mismatched input 'VALUES' expecting ')'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = ParseScript("USE ks;\nSELECT * FORM t;")
	if got, want := err.Error(), "line 2:9 mismatched input 'FORM' expecting K_FROM"; got != want {
		t.Errorf("script Error() = %q, want %q", got, want)
	}
}
