package graphql

import (
	"math"
	"testing"
)

// TestAppendJavaFloat: doubles and floats are written as Stargate writes
// them (Jackson, that is Java's Double.toString and Float.toString).
func TestAppendJavaFloat(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{100, 64, "100.0"},
		{-1, 64, "-1.0"},
		{-90, 64, "-90.0"},
		{2.5, 64, "2.5"},
		{0, 64, "0.0"},
		{math.Copysign(0, -1), 64, "-0.0"},
		{0.001, 64, "0.001"},
		{0.0001, 64, "1.0E-4"},
		{1.5e-4, 64, "1.5E-4"},
		{9999999, 64, "9999999.0"},
		{1e7, 64, "1.0E7"},
		{12345678, 64, "1.2345678E7"},
		{-1e21, 64, "-1.0E21"},
		{1e300, 64, "1.0E300"},
		{0.1, 64, "0.1"},
		{math.NaN(), 64, "null"},
		{math.Inf(1), 64, "null"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(1e10)), 32, "1.0E10"},
		{float64(float32(16777216)), 32, "1.6777216E7"},
		{float64(float32(-3)), 32, "-3.0"},
		{math.MaxFloat32, 32, "3.4028235E38"},
	}
	for _, c := range cases {
		if got := string(appendJavaFloat(nil, c.f, c.bits)); got != c.want {
			t.Errorf("appendJavaFloat(%v, %d) = %s, want %s", c.f, c.bits, got, c.want)
		}
	}
}

// TestWholeFloatingPointValues: whole doubles and floats keep their ".0"
// in responses (Stargate answers 100.0, -1.0, -90.0, not 100, -1, -90),
// also inside tuples, UDTs and collections, read and echoed by a mutation.
func TestWholeFloatingPointValues(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TYPE pt (x double, y float)`,
			`CREATE TABLE fp (k int PRIMARY KEY, d double, f float, t tuple<double, float>, u frozen<pt>,
				l list<double>, m map<int, float>)`,
			`INSERT INTO fp (k, d, f, t, u, l, m) VALUES (1, 100, -1, (-90, 2.5), {x: 10000000, y: 0.0001},
				[0, -2, 1.5], {1: 3, 2: -0.5})`)
		got := e.dml(`{ fp(value: {k: 1}) { values { d f t { item0 item1 } u { x y } l m { key value } } } }`, nil)
		want := `{"fp":{"values":[{"d":100.0,"f":-1.0,"l":[0.0,-2.0,1.5],"m":[{"key":1,"value":3.0},{"key":2,"value":-0.5}],` +
			`"t":{"item0":-90.0,"item1":2.5},"u":{"x":1.0E7,"y":1.0E-4}}]}}`
		if g := jsonText(got); g != want {
			t.Errorf("read:\n got %s\nwant %s", g, want)
		}
		got = e.dml(`mutation { insertfp(value: {k: 2, d: -7, f: 8, t: {item0: 1, item1: -1}}) { value { d f t { item0 item1 } } } }`, nil)
		want = `{"insertfp":{"value":{"d":-7.0,"f":8.0,"t":{"item0":1.0,"item1":-1.0}}}}`
		if g := jsonText(got); g != want {
			t.Errorf("echoed:\n got %s\nwant %s", g, want)
		}
	})
}
