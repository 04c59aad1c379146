package engine

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func TestMaskPartial(t *testing.T) {
	for _, c := range []struct {
		s          string
		begin, end int
		outer      bool
		want       string
	}{
		{"hello", 1, 1, false, "h***o"},
		{"hello", 1, 1, true, "*ell*"},
		{"héllo", 1, 1, false, "h***o"},
		{"ab", 5, 5, false, "ab"},
		{"ab", 0, 10, true, "**"},
		{"", 1, 1, false, ""},
	} {
		if got := maskPartial(c.s, c.begin, c.end, "*", c.outer); got != c.want {
			t.Errorf("maskPartial(%q, %d, %d, outer=%v) = %q, want %q", c.s, c.begin, c.end, c.outer, got, c.want)
		}
	}
}

func TestJavaNarrowing(t *testing.T) {
	if javaLong(math.NaN()) != 0 || javaLong(1e300) != math.MaxInt64 || javaLong(-1e300) != math.MinInt64 || javaLong(-2.7) != -2 {
		t.Error("javaLong does not follow Java's (long) of a double")
	}
	if javaInt(1e10) != math.MaxInt32 || javaInt(-1e10) != math.MinInt32 {
		t.Error("javaInt does not saturate")
	}
	// BigInteger.longValue(): the low 64 bits.
	b, _ := new(big.Int).SetString("18446744073709551617", 10) // 2^64 + 1
	if truncBig(b) != 1 {
		t.Errorf("truncBig(2^64+1) = %d, want 1", truncBig(b))
	}
}

func TestRoundHalfUp(t *testing.T) {
	for in, want := range map[string]string{"-2.5": "-3", "2.5": "3", "2.49": "2", "-0.4": "0", "7": "7"} {
		d, err := cql.ParseDecimal(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := roundHalfUp(d).String(); got != want {
			t.Errorf("roundHalfUp(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestResolveFunctionErrors(t *testing.T) {
	text := cql.Scalar(cql.KindText)
	for _, c := range []struct {
		name string
		args []*cql.Type
		want string
	}{
		{"abs", []*cql.Type{text}, "none of its type signatures match"},
		{"abs", []*cql.Type{nil}, "Ambiguous call to function abs"},
		{"dateof", []*cql.Type{cql.Scalar(cql.KindTimeuuid)}, "Unknown function 'dateof'"},
		{"nosuch", nil, "Unknown function 'nosuch'"},
		{"now", []*cql.Type{text}, "0 required but 1 provided"},
		{"intasblob", []*cql.Type{cql.Scalar(cql.KindBigint)}, "cannot be passed to function system.intasblob of type int"},
		{"map_keys", []*cql.Type{cql.ListOf(text)}, "requires an argument of type map"},
	} {
		_, err := resolveFunction(c.name, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resolveFunction(%s, %v) = %v, want an error containing %q", c.name, c.args, err, c.want)
		}
	}
}

func TestCastResolution(t *testing.T) {
	if _, err := resolveCast(cql.Scalar(cql.KindBlob), cql.Scalar(cql.KindText), "b", false); err == nil ||
		!strings.Contains(err.Error(), "system.cast_as_text") {
		t.Errorf("cast(blob as text): %v", err)
	}
	if _, err := resolveCast(cql.Scalar(cql.KindText), cql.Scalar(cql.KindBlob), "s", false); err == nil ||
		!strings.HasSuffix(err.Error(), "s cannot be cast to blob") {
		t.Errorf("cast(text as blob): %v", err)
	}
	f, err := resolveCast(cql.Scalar(cql.KindDouble), cql.Scalar(cql.KindInt), "d", false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.call(&fnEnv{}, [][]byte{be64(int64(math.Float64bits(-1e300)))})
	if err != nil || int32(uint32(got[0])<<24|uint32(got[1])<<16|uint32(got[2])<<8|uint32(got[3])) != math.MinInt32 {
		t.Errorf("cast(-1e300 as int) = %x, %v; want Java's saturation to MinInt32", got, err)
	}
}
