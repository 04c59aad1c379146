package java

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestEverydayCalls: boxed constructors, System time, StringBuilder,
// Objects and Integer/Long helpers, as UDF bodies from tutorials and
// driver test suites use them (results checked against Java semantics;
// the scenarios in functions_udf.cql run them on Cassandra 5.0.9).
func TestEverydayCalls(t *testing.T) {
	x := []Param{{"x", ctInt}}
	for _, c := range []struct {
		body string
		ret  any
	}{
		{"return new Integer(x + 1);", int32(8)},
		{"return new Integer(\"-12\") + x;", int32(-5)},
		{"return new Long(x).intValue();", int32(7)},
		{"return new Double(x).intValue();", int32(7)},
		{"return new Boolean(\"TRUE\") ? 1 : 0;", int32(1)},
		{"return new String().length() + new String(\"ab\").length();", int32(2)},
		{"return new StringBuilder(\"ab\").append(x).append('c').reverse().toString().length();", int32(4)},
		{"StringBuilder b = new StringBuilder(16); b.append(x); b.setLength(3); return b.length();", int32(3)},
		{"StringBuilder b = new StringBuilder(\"abcdef\"); b.delete(1, 3).insert(0, x); return b.indexOf(\"d\");", int32(2)},
		{"return Integer.numberOfTrailingZeros(x * 8) + Integer.bitCount(x);", int32(6)},
		{"return java.util.Objects.equals(null, null) && !Objects.equals(x, null) ? 1 : 0;", int32(1)},
		{"return Objects.hash(x) - 31;", int32(7)},
		{"return (int) (System.currentTimeMillis() / 1000 - System.currentTimeMillis() / 1000) + x;", int32(7)},
	} {
		got, err := run(t, x, ctInt, c.body, int32(7))
		if err != nil || got != c.ret {
			t.Errorf("%s: got %v %v, want %v", c.body, got, err, c.ret)
		}
	}
	before := time.Now().UnixMilli()
	got, err := run(t, x, ctBigint, "return System.currentTimeMillis();", int32(0))
	if ms, ok := got.(int64); err != nil || !ok || ms < before || ms > time.Now().UnixMilli() {
		t.Errorf("currentTimeMillis: %v %v", got, err)
	}
	// UTF-16: a surrogate pair stays whole when reversed.
	s, err := run(t, []Param{{"s", ctText}}, ctText, "return new StringBuilder(s).reverse().toString();", "a😀b")
	if err != nil || s != "b😀a" {
		t.Errorf("reverse: %q %v", s, err)
	}
}

// TestEverydayCallErrors: the new calls fail as Java fails, and a
// builder stays within the string and allocation bounds.
func TestEverydayCallErrors(t *testing.T) {
	x := []Param{{"x", ctInt}}
	for _, c := range []struct{ body, want string }{
		{"Integer y = null; return new Integer(y);", "NullPointerException"},
		{"return new Integer(\"x\");", "NumberFormatException"},
		{"return Objects.requireNonNull(null, \"gone\").hashCode();", "NullPointerException: gone"},
		{"return new StringBuilder(\"ab\").charAt(5);", "StringIndexOutOfBoundsException"},
		{"StringBuilder b = new StringBuilder(\"aaaaaaaaaaaaaaaa\"); while (true) b.append(b.toString());", "bound"},
		{"StringBuilder b = new StringBuilder(); while (true) b.append(1);", "ran longer than"},
	} {
		_, err := run(t, x, ctInt, c.body, int32(0))
		var ee *ExecError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ExecError with %q", c.body, err, c.want)
		}
	}
	if _, err := Compile("ks.f", x, ctInt, "return new Integer(1, 2);", true); err == nil {
		t.Error("new Integer(1, 2) compiled")
	}
}
