package cql

import (
	"math"
	"testing"
)

func TestParseDuration(t *testing.T) {
	h, m, s := nanosPerHour, nanosPerMinute, nanosPerSecond
	cases := []struct {
		in   string
		want Duration
	}{
		{"1h30m", Duration{Nanos: h + 30*m}},
		{"1y2mo3w4d5h6m7s8ms9us10ns", Duration{Months: 14, Days: 25, Nanos: 5*h + 6*m + 7*s + 8*nanosPerMilli + 9*nanosPerMicro + 10}},
		{"2MO", Duration{Months: 2}},
		{"5Ms", Duration{Nanos: 5 * nanosPerMilli}},
		{"3µs", Duration{Nanos: 3000}},
		{"-1d2h", Duration{Days: -1, Nanos: -2 * h}},
		{"0s", Duration{}},
		{"P1Y2M3DT4H5M6S", Duration{Months: 14, Days: 3, Nanos: 4*h + 5*m + 6*s}},
		{"PT1M", Duration{Nanos: m}},
		{"P1M", Duration{Months: 1}},
		{"P", Duration{}},
		{"PT", Duration{}},
		{"-P2W", Duration{Days: -14}},
		{"P0001-02-03T04:05:06", Duration{Months: 14, Days: 3, Nanos: 4*h + 5*m + 6*s}},
		{"178956970y7mo", Duration{Months: math.MaxInt32}},
		{"9223372036854775807ns", Duration{Nanos: math.MaxInt64}},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", "Unable to convert '' to a duration"},
		{"5", "Unable to convert '5' to a duration"},
		{"-5", "Unable to convert '5' to a duration"},
		{"1h30", "Unable to convert '1h30' to a duration"},
		{"1x", "Unable to convert '1x' to a duration"},
		{"p1d", "Unable to convert 'p1d' to a duration"},
		{"P1D2Y", "Unable to convert 'P1D2Y' to a duration"},
		{"P1Y2W", "Unable to convert 'P1Y2W' to a duration"},
		{"P0001-02-03", "Unable to convert 'P0001-02-03' to a duration"},
		{"1h1h", "Invalid duration. The hours are specified multiple times"},
		{"1m1h", "Invalid duration. The minutes should be after hours"},
		{"178956971y", "Invalid duration. The total number of months must be less or equal to 2147483647"},
		{"2147483648d", "Invalid duration. The total number of days must be less or equal to 2147483647"},
		{"9223372036854775807ns1ns", "Invalid duration. The nanoseconds are specified multiple times"},
		{"2562048h", "Invalid duration. The total number of nanoseconds must be less or equal to 2147483647"},
	}
	for _, c := range bad {
		_, err := ParseDuration(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseDuration(%q) error = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestDurationString(t *testing.T) {
	cases := []struct {
		d    Duration
		want string
	}{
		{Duration{}, "0s"},
		{Duration{Months: 14, Days: 3, Nanos: nanosPerHour + 1}, "1y2mo3d1h1ns"},
		{Duration{Months: 12}, "1y"},
		{Duration{Nanos: 1500 * nanosPerMicro}, "1ms500us"},
		{Duration{Days: -1, Nanos: -nanosPerSecond}, "-1d1s"},
		{Duration{Nanos: math.MinInt64}, "-2562047h47m16s854ms775us808ns"},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.d, got, c.want)
		}
		if !c.d.textable() {
			continue
		}
		back, err := ParseDuration(c.want)
		if err != nil || back != c.d {
			t.Errorf("ParseDuration(%q) = %+v, %v; want %+v", c.want, back, err, c.d)
		}
	}
}

func TestVintRoundTrip(t *testing.T) {
	vals := []int64{0, 1, -1, 63, -64, 64, 1 << 20, -(1 << 40), math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	for i := 0; i < 64; i++ {
		vals = append(vals, int64(1)<<i, -(int64(1) << i), int64(1)<<i-1)
	}
	for _, v := range vals {
		b := appendVint(nil, v)
		got, n, ok := readVint(b, 0)
		if !ok || got != v || n != len(b) {
			t.Errorf("vint %d -> %x -> %d (%d/%d bytes, ok=%v)", v, b, got, n, len(b), ok)
		}
	}
	// Cassandra's encoding of unsigned 256000 is 3 bytes: 110_00011 11101000 00000000.
	if b := appendUvint(nil, 256000); string(b) != "\xc3\xe8\x00" {
		t.Errorf("uvint(256000) = %x, want c3e800", b)
	}
	if b := appendUvint(nil, math.MaxUint64); len(b) != 9 || b[0] != 0xff {
		t.Errorf("uvint(max) = %x", b)
	}
}
