package java

import (
	"errors"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func run(t *testing.T, params []Param, ret *cql.Type, body string, args ...any) (any, error) {
	t.Helper()
	f, err := Compile("ks.f", params, ret, body, true)
	if err != nil {
		return nil, err
	}
	enc := make([][]byte, len(args))
	for i, a := range args {
		b, err := cql.EncodeGo(params[i].Type, a)
		if err != nil {
			t.Fatal(err)
		}
		enc[i] = b
	}
	out, err := f.Call(enc)
	if err != nil {
		return nil, err
	}
	return cql.DecodeGo(ret, out)
}

var (
	ctInt    = cql.Scalar(cql.KindInt)
	ctBigint = cql.Scalar(cql.KindBigint)
	ctDouble = cql.Scalar(cql.KindDouble)
	ctText   = cql.Scalar(cql.KindText)
	ctBool   = cql.Scalar(cql.KindBoolean)
)

func TestEval(t *testing.T) {
	x := []Param{{"x", ctInt}}
	s := []Param{{"s", ctText}}
	cases := []struct {
		params []Param
		ret    *cql.Type
		body   string
		args   []any
		want   any
	}{
		{x, ctInt, "return x + 1;", []any{int32(1)}, int32(2)},
		{x, ctInt, "return x == null ? -1 : x;", []any{nil}, int32(-1)},
		{x, ctInt, "while (x > 0) { x = x * 2; } return x;", []any{int32(1)}, int32(-2147483648)},
		{x, ctInt, "return 7 / x;", []any{int32(2)}, int32(3)},
		{x, ctInt, "return -7 % x;", []any{int32(2)}, int32(-1)},
		{x, ctBigint, "long s = 0; for (int i = 0; i < x; i++) s += i; return s;", []any{int32(10)}, int64(45)},
		{x, ctDouble, "return x / 2;", []any{int32(5)}, float64(2)},
		{x, ctDouble, "return x / 2.0;", []any{int32(5)}, 2.5},
		{x, ctText, "return \"v=\" + x + 1.0;", []any{int32(5)}, "v=51.0"},
		{x, ctText, "return \"\" + (x * 1e10);", []any{int32(5)}, "5.0E10"},
		{x, ctInt, "return (int) Math.round(Math.sqrt(x));", []any{int32(17)}, int32(4)},
		{x, ctInt, "return Math.max(x, 3) + Math.abs(-2);", []any{int32(1)}, int32(5)},
		{x, ctInt, "return (int) 3.9 + (int) -3.9;", []any{int32(1)}, int32(0)},
		{x, ctInt, "int r = 0; for (int i = 0; i < 10; i++) { if (i % 2 == 0) continue; if (i > 7) break; r += i; } return r;", []any{int32(0)}, int32(16)},
		{x, ctInt, "return Integer.MAX_VALUE + x;", []any{int32(1)}, int32(-2147483648)},
		{x, ctBool, "return x > 1 && !(x > 5) || false;", []any{int32(3)}, true},
		{x, ctInt, "int a = x; a <<= 3; a >>= 1; return a ^ 1;", []any{int32(1)}, int32(5)},
		{s, ctInt, "return s.length();", []any{"héllo"}, int32(5)},
		{s, ctText, "return s.substring(1, 3).toUpperCase() + s.charAt(0) + s.indexOf(\"l\");", []any{"hello"}, "ELh2"},
		{s, ctText, "return s.trim().replace('l', 'L').concat(\"!\");", []any{" hello "}, "heLLo!"},
		{s, ctInt, "return Integer.parseInt(s) * 2;", []any{"21"}, int32(42)},
		{s, ctInt, "return s.hashCode();", []any{"hello"}, int32(99162322)},
		{s, ctBool, "return s.startsWith(\"he\") && s.endsWith(\"lo\") && s.contains(\"ll\") && !s.isEmpty();", []any{"hello"}, true},
		{[]Param{{"l", cql.ListOf(ctInt)}}, ctInt, "int sum = 0; for (Integer i : l) sum += i; return sum + l.size() + l.get(0);", []any{[]any{int32(1), int32(2), int32(3)}}, int32(10)},
		{[]Param{{"l", cql.ListOf(ctInt)}}, cql.ListOf(ctInt), "List<Integer> r = new ArrayList<>(); for (int i : l) r.add(i * 2); return r;", []any{[]any{int32(1), int32(2)}}, []any{int32(2), int32(4)}},
		{[]Param{{"m", cql.MapOf(ctText, ctInt)}}, ctInt, "int s = 0; for (String k : m.keySet()) s += m.get(k) * k.length(); return s;", []any{map[string]int32{"a": 1, "bb": 2}}, int32(5)},
		{[]Param{{"m", cql.MapOf(ctText, ctInt)}}, cql.MapOf(ctText, ctInt), "Map<String, Integer> r = new HashMap<>(); for (Map.Entry<String, Integer> e : m.entrySet()) r.put(e.getKey() + \"!\", e.getValue() + 1); return r;", []any{map[string]int32{"a": 1}}, []cql.MapEntry{{Key: "a!", Value: int32(2)}}},
		{[]Param{{"s", cql.SetOf(ctText)}}, ctBool, "return s.contains(\"a\") && !s.contains(\"z\");", []any{[]any{"a", "b"}}, true},
		{[]Param{{"st", cql.TupleOf(ctInt, ctBigint)}, {"v", ctInt}}, cql.TupleOf(ctInt, ctBigint),
			"if (st == null) { st = udfContext.newArgTupleValue(\"st\"); } st.setInt(0, st.getInt(0) + 1); st.setLong(1, st.getLong(1) + v); return st;",
			[]any{[]any{int32(1), int64(10)}, int32(5)}, []any{int32(2), int64(15)}},
		{x, ctInt, "var y = x * 2; y++; ++y; y--; return y;", []any{int32(3)}, int32(7)},
		{x, ctInt, "int i = 0; do { i++; } while (i < x); return i;", []any{int32(0)}, int32(1)},
		{x, ctBigint, "return Long.MAX_VALUE + x;", []any{int32(1)}, int64(-9223372036854775808)},
		{x, ctText, "return String.valueOf(x) + Double.valueOf(1.5) + 'c' + true + null;", []any{int32(1)}, "11.5ctruenull"},
		{x, ctInt, "char c = 'a'; c += x; return (int) c;", []any{int32(1)}, int32(98)},
		{x, ctDouble, "return Math.pow(2, x) + Math.floor(1.5) + Math.ceil(1.2);", []any{int32(3)}, float64(11)},
		{x, ctBool, "Integer a = x; return a.equals(3) && a.compareTo(2) > 0 && a.intValue() == 3;", []any{int32(3)}, true},
	}
	for _, c := range cases {
		got, err := run(t, c.params, c.ret, c.body, c.args...)
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if g, w := cql.FormatValue(c.ret, mustEnc(t, c.ret, got)), cql.FormatValue(c.ret, mustEnc(t, c.ret, c.want)); g != w {
			t.Errorf("%s: got %s, want %s", c.body, g, w)
		}
	}
}

func mustEnc(t *testing.T, ty *cql.Type, v any) []byte {
	b, err := cql.EncodeGo(ty, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExecErrors(t *testing.T) {
	x := []Param{{"x", ctInt}}
	cases := []struct{ body, want string }{
		{"return 10 / x;", "java.lang.ArithmeticException: / by zero"},
		{"while (true) {}", "ran longer than"},
		{"for (;;) { x++; }", "ran longer than"},
		{"String s = \"ab\"; while (true) s = s + s;", "bound"},
		{"List<Integer> l = new ArrayList<>(); while (true) l.add(1);", "ran longer than"},
		{"Integer y = null; return y + 1;", "NullPointerException"},
		{"return \"abc\".charAt(5);", "StringIndexOutOfBoundsException"},
		{"String s = \"aaaaaaaaaaaaaaaa\"; s = s.repeat(60000); return s.replace(\"\", s).length();", "OutOfMemoryError"},
		{"return Integer.parseInt(\"zz\");", "NumberFormatException"},
	}
	for _, c := range cases {
		_, err := run(t, x, ctInt, c.body, int32(0))
		var ee *ExecError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ExecError with %q", c.body, err, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	x := []Param{{"x", ctInt}}
	cases := []struct {
		body, want  string
		unsupported bool
	}{
		{"return y;", "y cannot be resolved to a variable", false},
		{"try { return 1; } catch (Exception e) { return 2; }", "uses try/catch", true},
		{"throw new RuntimeException();", "uses throw", true},
		{"int[] a = new int[3]; return a[0];", "uses an array", true},
		{"switch (x) { case 1: return 1; } return 0;", "uses switch", true},
		{"java.math.BigDecimal d = null; return 1;", "uses the type java.math.BigDecimal", true},
		{"return new java.util.TreeMap<String,Integer>().size();", "uses new java.util.TreeMap", true},
		{"return String.format(\"%d\", x).length();", "uses the method String.format()", true},
		{"return x.frobnicate();", "uses the method frobnicate()", true},
		{"Runnable r = () -> {}; return 1;", "uses the type Runnable", true},
		{"return Runtime.getRuntime().availableProcessors();", "uses the class Runtime", true},
		{"int x = 1; return x;", "Duplicate local variable x", false},
		{"return (1;", "Syntax error", false},
		{"return \"a", "String literal is not properly closed", false},
		{"break;", "break cannot be used outside of a loop", false},
		{"x + 1;", "Syntax error", false},
		{"if (x == 1) return 1;", "This method must return a result of type Integer", false},
		{"while (x > 0) { return 1; }", "This method must return a result of type Integer", false},
	}
	for _, c := range cases {
		_, err := Compile("ks.f", x, ctInt, c.body, true)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) || ce.Unsupported != c.unsupported {
			t.Errorf("%s: got %v, want a CompileError with %q (unsupported %v)", c.body, err, c.want, c.unsupported)
		}
	}
	if _, err := Compile("ks.f", []Param{{"d", cql.Scalar(cql.KindDecimal)}}, ctInt, "return 1;", true); err == nil || !strings.Contains(err.Error(), "BigDecimal") {
		t.Errorf("decimal argument: %v", err)
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{"return x + 1;", "while (true) {}", "for (int i : l) { x += i; } return x;",
		"return s == null ? null : s.substring(1);", "if (x > 0) { return -x; } else return (int) 2.5;",
		"List<Map<String, List<Integer>>> a = new ArrayList<>(); return a.size();", "/* c */ // d\n return 'a';"} {
		f.Add(s)
	}
	params := []Param{{"x", ctInt}, {"l", cql.ListOf(ctInt)}, {"s", ctText}}
	f.Fuzz(func(t *testing.T, body string) {
		fn, err := Compile("ks.f", params, ctInt, body, true)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("not a CompileError: %v", err)
			}
			return
		}
		fn.Steps = 10000
		_, _ = fn.Call([][]byte{{0, 0, 0, 1}, nil, []byte("ab")})
	})
}
