package bigdec

import (
	"errors"
	"testing"
)

func mustParse(t *testing.T, s string) Dec {
	t.Helper()
	d, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return d
}

func TestParseString(t *testing.T) {
	for _, s := range []string{"0", "1.50", "-3", "1E+3", "0.001", "1.0E-7", "123456.789", "2.6881171418161354484126255515800E+43"} {
		if got := mustParse(t, s).String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
	}
	if d := mustParse(t, "1.0E10"); d.Scale != -9 || d.Unscaled.Int64() != 10 {
		t.Errorf("Parse(1.0E10) = %v scale %d, want 10 scale -9", d.Unscaled, d.Scale)
	}
	for _, s := range []string{"", "-", "1.2.3", "e5", "1e", "--1", "1e+-2"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded", s)
		}
	}
}

// The expectations below are Cassandra 5.0.9's answers (BigDecimal).
func TestArithmetic(t *testing.T) {
	for _, c := range []struct {
		x, op, y, want string
	}{
		{"5.0", "+", "1.50", "6.50"},
		{"5.0", "*", "1.50", "7.500"},
		{"1.50", "-", "1.50", "0.00"},
		{"9007199254740992", "+", "1.50", "9007199254740993.50"},
		{"1E+3", "*", "3.0", "3.0E+3"},
		{"1.50", "%", "5.0", "1.50"},
		{"1E+3", "%", "3.0", "1.0"},
		{"0.333", "%", "0.7", "0.333"},
		{"-2.5", "%", "3.0", "-2.5"},
		{"123456.789", "%", "3.0", "0.789"},
		{"100.0", "%", "0.7", "0.6"},
		{"1000", "%", "0.7", "0.4"},
		{"7", "%", "0.5", "0.0"},
		{"0", "%", "3.0", "0"},
	} {
		x, y := mustParse(t, c.x), mustParse(t, c.y)
		var got Dec
		var err error
		switch c.op {
		case "+":
			got = Add(x, y)
		case "-":
			got = Sub(x, y)
		case "*":
			got, err = Mul(x, y)
		case "%":
			got, err = Rem(x, y)
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s %s %s = %v, %v; want %s", c.x, c.op, c.y, got, err, c.want)
		}
	}
}

func TestDivScaleAndStrip(t *testing.T) {
	for _, c := range []struct {
		x, y  string
		scale int32
		mode  RoundingMode
		want  string
	}{
		{"1.50", "5.0", 32, HalfUp, "0.3"},
		{"1.50", "7.0", 32, HalfUp, "0.21428571428571428571428571428571"},
		{"1000000.0", "1.50", 32, HalfUp, "666666.66666666666666666666666666666667"},
		{"1.15", "2", 2, HalfEven, "0.58"},
		{"1.25", "2", 2, HalfEven, "0.62"},
		{"-1.347", "3", 3, HalfEven, "-0.449"},
		{"-1.15", "2", 2, HalfUp, "-0.58"},
		{"0", "3.0", 32, HalfUp, "0"},
	} {
		got, err := DivScale(mustParse(t, c.x), mustParse(t, c.y), c.scale, c.mode)
		if err == nil && c.mode == HalfUp {
			got = StripTrailingZeros(got)
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s / %s (scale %d) = %v, %v; want %s", c.x, c.y, c.scale, got, err, c.want)
		}
	}
	zero := mustParse(t, "0.0")
	if _, err := DivScale(mustParse(t, "1.50"), zero, 32, HalfUp); !errors.Is(err, ErrBigDivByZero) {
		t.Errorf("1.50 / 0.0: %v, want %v", err, ErrBigDivByZero)
	}
	if _, err := DivScale(mustParse(t, "1.5"), mustParse(t, "0"), 2, HalfUp); !errors.Is(err, ErrDivByZero) {
		t.Errorf("1.5 / 0 at scale 2: %v, want %v", err, ErrDivByZero)
	}
	if _, err := Rem(mustParse(t, "1.50"), zero); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("1.50 %% 0: %v", err)
	}
	if _, err := Rem(zero, zero); !errors.Is(err, ErrDivisionUndefined) {
		t.Errorf("0 %% 0: %v", err)
	}
}

func TestRound(t *testing.T) {
	for _, c := range []struct {
		x    string
		prec int
		mode RoundingMode
		want string
	}{
		{"123.456", 4, HalfUp, "123.5"},
		{"999.5", 3, HalfUp, "1.00E+3"},
		{"2.5", 1, HalfEven, "2"},
		{"3.5", 1, HalfEven, "4"},
		{"-2.5", 1, HalfUp, "-3"},
		{"1.23", 5, HalfUp, "1.23"},
	} {
		got, err := Round(mustParse(t, c.x), c.prec, c.mode)
		if err != nil || got.String() != c.want {
			t.Errorf("Round(%s, %d) = %v, %v; want %s", c.x, c.prec, got, err, c.want)
		}
	}
	if got := StripTrailingZeros(mustParse(t, "0.000")); got.String() != "0" {
		t.Errorf("strip(0.000) = %v", got)
	}
	if got := StripTrailingZeros(mustParse(t, "1200")); got.String() != "1.2E+3" {
		t.Errorf("strip(1200) = %v", got)
	}
}

// Cassandra 5.0.9: exp/log/log10 of a decimal to max(32, precision)
// digits.
func TestTranscendental(t *testing.T) {
	for _, c := range []struct {
		fn, x, want string
	}{
		{"exp", "2.25", "9.4877358363585257205503690445117"},
		{"exp", "1.1", "3.0041660239464331120584079535887"},
		{"exp", "0.001", "1.0010005001667083416680557539931"},
		{"exp", "1", "2.7182818284590452353602874713527"},
		{"exp", "-2.5", "0.082084998623898795169528674467160"},
		{"exp", "10", "22026.465794806716516957900645284"},
		{"exp", "100.0", "2.6881171418161354484126255515800E+43"},
		{"exp", "1.0000000000000000000000000000000000000001", "2.7182818284590452353602874713526624977575"},
		{"exp", "0", "1"},
		{"log", "2.25", "0.81093021621632876395602623092870"},
		{"log", "1.1", "0.095310179804324860043952123280765"},
		{"log", "10", "2.3025850929940456840179914546844"},
		{"log", "0.001", "-6.9077552789821370520539743640531"},
		{"log", "123456.789", "11.723646487185880981139958983910"},
		{"log", "1.0000000000000000000000000000000000000001", "9.9999999999999999999999999999999999999995E-41"},
		{"log", "1", "0"},
		{"log10", "2.25", "0.35218251811136248416257801706124"},
		{"log10", "1.1", "0.041392685158225040750199971243024"},
		{"log10", "123456.789", "5.0915149771692704475183336230595"},
		{"log10", "1.0000000000000000000000000000000000000001", "4.3429448190325182765112891891660508229438E-41"},
		{"log10", "10", "1"},
		{"log10", "1", "0"},
	} {
		x := mustParse(t, c.x)
		prec := max(32, x.Precision())
		var got Dec
		var err error
		switch c.fn {
		case "exp":
			got, err = Exp(x, prec)
		case "log":
			got, err = Ln(x, prec)
		default:
			got, err = Log10(x, prec)
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s(%s) = %v, %v; want %s", c.fn, c.x, got, err, c.want)
		}
	}
	if _, err := Ln(mustParse(t, "0"), 32); !errors.Is(err, ErrLogDomain) {
		t.Errorf("ln(0): %v", err)
	}
	if _, err := Log10(mustParse(t, "-1"), 32); !errors.Is(err, ErrLogDomain) {
		t.Errorf("log10(-1): %v", err)
	}
}
