package engine

import (
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

func TestJSON(t *testing.T) {
	h := newHarness(t)
	h.exec(`CREATE TABLE t (k int PRIMARY KEY, "Name" text, ts timestamp, l list<int>, m map<int, text>, s set<text>, b blob, f double)`)
	h.exec(`INSERT INTO t JSON '{"k": 1, "\"Name\"": "x<y", "ts": "2024-05-01 12:00:00Z", "l": [3, 1], "m": {"2": "two"}, "s": ["b", "a"], "b": "0xcafe", "f": 1.5}'`)
	h.expectRows("SELECT JSON * FROM t WHERE k = 1",
		`'{"k": 1, "\"Name\"": "x<y", "b": "0xcafe", "f": 1.5, "l": [3, 1], "m": {"2": "two"}, "s": ["a", "b"], "ts": "2024-05-01 12:00:00.000Z"}'`)
	// Absent columns are null by default, untouched with DEFAULT UNSET.
	h.exec(`INSERT INTO t JSON '{"k": 1, "f": 2}' DEFAULT UNSET`)
	h.expectRows("SELECT JSON k, f, l FROM t WHERE k = 1", `'{"k": 1, "f": 2.0, "l": [3, 1]}'`)
	h.exec(`INSERT INTO t JSON '{"k": 1}'`)
	h.expectRows("SELECT JSON k, f FROM t WHERE k = 1", `'{"k": 1, "f": null}'`)
	h.exec(`INSERT INTO t JSON ?`, `{"k": 2, "l": [7]}`)
	h.expectRows("SELECT l FROM t WHERE k = 2", "[7]")
	h.expectError(`INSERT INTO t JSON '{"k": 3, "nope": 1}'`, bindings.CodeInvalid, "JSON values map contains unrecognized column: nope")
	h.expectError(`INSERT INTO t JSON '{"k": "a"}'`, bindings.CodeInvalid, "Error decoding JSON value for k")
	h.expectError(`INSERT INTO t JSON 'not json'`, bindings.CodeInvalid, "Could not decode JSON string as a map")
	h.expectError(`INSERT INTO t JSON '{"f": 1}'`, bindings.CodeInvalid, "Invalid null value in condition for column k")
}

func TestJavaFloat(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{2, 64, "2.0"}, {1.5, 64, "1.5"}, {1e20, 64, "1.0E20"}, {1.5e-4, 64, "1.5E-4"},
		{1234567.5, 64, "1234567.5"}, {1e7, 64, "1.0E7"}, {0.001, 64, "0.001"}, {-3, 64, "-3.0"},
		{0.1, 32, "0.1"},
		// FloatingDecimal's integral shortcut (Cassandra 5.0.9's answers):
		// not the shortest digits from 2^53 to 2^63.
		{1 << 55, 64, "3.6028797018963968E16"}, {1507930479843341312, 64, "1.50793047984334131E18"},
		{-1152921504606847975, 64, "-1.152921504606848E18"}, {999999999999999999, 64, "1.0E18"},
		{123456789012345678, 64, "1.2345678901234568E17"}, {1 << 63, 64, "9.223372036854776E18"},
	}
	for _, c := range cases {
		if got := cql.JavaFloatString(c.f, c.bits); got != c.want {
			t.Errorf("cql.JavaFloatString(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
}
