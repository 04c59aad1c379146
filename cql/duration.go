package cql

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Duration is a CQL duration: months, days and nanoseconds kept apart
// because months and days have no fixed length. All non-zero parts share one
// sign.
type Duration struct {
	Months int32
	Days   int32
	Nanos  int64
}

// Nanosecond multiples used by duration units.
const (
	nanosPerMicro  = int64(1000)
	nanosPerMilli  = 1000 * nanosPerMicro
	nanosPerSecond = 1000 * nanosPerMilli
	nanosPerMinute = 60 * nanosPerSecond
	nanosPerHour   = 60 * nanosPerMinute
)

// String renders d the way Cassandra's Duration.toString does
// ("1y2mo3d4h5m6s7ms8us9ns", "-3h"), except that the zero duration is "0s"
// (Cassandra renders it as an empty string, which is not a literal).
func (d Duration) String() string {
	if d.Months == 0 && d.Days == 0 && d.Nanos == 0 {
		return "0s"
	}
	var sb strings.Builder
	if d.Months < 0 || d.Days < 0 || d.Nanos < 0 {
		sb.WriteByte('-')
	}
	rem := durAppend(&sb, absU64(int64(d.Months)), 12, "y")
	durAppend(&sb, rem, 1, "mo")
	durAppend(&sb, absU64(int64(d.Days)), 1, "d")
	if d.Nanos != 0 {
		rem = durAppend(&sb, absU64(d.Nanos), uint64(nanosPerHour), "h")
		rem = durAppend(&sb, rem, uint64(nanosPerMinute), "m")
		rem = durAppend(&sb, rem, uint64(nanosPerSecond), "s")
		rem = durAppend(&sb, rem, uint64(nanosPerMilli), "ms")
		rem = durAppend(&sb, rem, uint64(nanosPerMicro), "us")
		durAppend(&sb, rem, 1, "ns")
	}
	return sb.String()
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1 // no overflow for MinInt64
	}
	return uint64(v)
}

func durAppend(sb *strings.Builder, v, unit uint64, name string) uint64 {
	if v == 0 || v < unit {
		return v
	}
	sb.WriteString(strconv.FormatUint(v/unit, 10))
	sb.WriteString(name)
	return v % unit
}

// textable reports whether String's output parses back to d: Cassandra's
// parser cannot produce the most negative month, day or nanosecond counts.
func (d Duration) textable() bool {
	return d.Months != math.MinInt32 && d.Days != math.MinInt32 && d.Nanos != math.MinInt64
}

// ParseDuration parses the three CQL duration forms, as Cassandra's
// Duration.from does: unit form "1y2mo3w4d5h6m7s8ms9us10ns" (units in
// descending order, each at most once, any case, "µs" too), ISO 8601
// "P1Y2M3DT4H5M6S" and "P2W", and the ISO alternative "P0001-02-03T04:05:06".
// A leading '-' negates. Errors are *ValueError with Cassandra's messages.
func ParseDuration(text string) (Duration, error) {
	neg := strings.HasPrefix(text, "-")
	src := text
	if neg {
		src = text[1:]
	}
	b := durBuilder{neg: neg}
	var err error
	switch {
	case strings.HasPrefix(src, "P") && strings.HasSuffix(src, "W"):
		err = b.isoWeek(src)
	case strings.HasPrefix(src, "P") && strings.Contains(src, "-"):
		err = b.isoAlt(src)
	case strings.HasPrefix(src, "P"):
		err = b.iso(src)
	default:
		err = b.standard(src)
	}
	if err != nil {
		return Duration{}, err
	}
	return b.build(), nil
}

func durConvertErr(src string) error {
	return valueErrf("Unable to convert '%s' to a duration", src)
}

// durBuilder accumulates units in order with Cassandra's overflow checks.
type durBuilder struct {
	neg    bool
	months int64
	days   int64
	nanos  int64
	last   int // index of the last unit added (years=1 ... nanoseconds=10)
}

var durUnitNames = [...]string{"", "years", "months", "weeks", "days", "hours", "minutes",
	"seconds", "milliseconds", "microseconds", "nanoseconds"}

// add adds n of the unit with index idx (see durUnitNames).
func (b *durBuilder) add(idx int, n int64) error {
	if idx == b.last {
		return valueErrf("Invalid duration. The %s are specified multiple times", durUnitNames[idx])
	}
	if idx < b.last {
		return valueErrf("Invalid duration. The %s should be after %s", durUnitNames[b.last], durUnitNames[idx])
	}
	b.last = idx
	var per int64
	var total *int64
	var limit int64
	var what string
	switch idx {
	case 1, 2:
		per, total, limit, what = 1, &b.months, math.MaxInt32, "months"
		if idx == 1 {
			per = 12
		}
	case 3, 4:
		per, total, limit, what = 1, &b.days, math.MaxInt32, "days"
		if idx == 3 {
			per = 7
		}
	default:
		total, limit, what = &b.nanos, math.MaxInt64, "nanoseconds"
		per = [...]int64{nanosPerHour, nanosPerMinute, nanosPerSecond, nanosPerMilli, nanosPerMicro, 1}[idx-5]
	}
	if n > (limit-*total)/per {
		// Cassandra prints Integer.MAX_VALUE whatever the unit.
		return valueErrf("Invalid duration. The total number of %s must be less or equal to %d", what, math.MaxInt32)
	}
	*total += n * per
	return nil
}

func (b *durBuilder) build() Duration {
	if b.neg {
		return Duration{Months: int32(-b.months), Days: int32(-b.days), Nanos: -b.nanos}
	}
	return Duration{Months: int32(b.months), Days: int32(b.days), Nanos: b.nanos}
}

// durNumber parses a run of ASCII digits at s[i:], returning the value and
// the end index; ok is false when there is no digit or it overflows.
func durNumber(s string, i int) (v int64, end int, ok bool) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, i, false
	}
	v, err := strconv.ParseInt(s[i:j], 10, 64)
	return v, j, err == nil
}

// durUnits maps lower-cased unit symbols to unit indexes.
var durUnits = map[string]int{"y": 1, "mo": 2, "w": 3, "d": 4, "h": 5, "m": 6, "s": 7,
	"ms": 8, "us": 9, "µs": 9, "μs": 9, "ns": 10}

func (b *durBuilder) standard(src string) error {
	if src == "" {
		return durConvertErr(src)
	}
	for i := 0; i < len(src); {
		n, j, ok := durNumber(src, i)
		if !ok {
			return durConvertErr(src)
		}
		unit := durUnitAt(src, j)
		if unit == "" {
			return durConvertErr(src)
		}
		if err := b.add(durUnits[strings.ToLower(unit)], n); err != nil {
			return err
		}
		i = j + len(unit)
	}
	return nil
}

// durUnitAt returns the unit symbol at s[i:], trying alternatives in the
// order of Cassandra's regular expression (mo and ms before m).
func durUnitAt(s string, i int) string {
	rest := s[i:]
	for _, u := range []string{"mo", "ms", "us", "µs", "μs", "ns", "y", "w", "d", "h", "s", "m"} {
		if len(rest) >= len(u) && strings.EqualFold(rest[:len(u)], u) {
			return rest[:len(u)]
		}
	}
	return ""
}

// iso parses P[nY][nM][nD][T[nH][nM][nS]].
func (b *durBuilder) iso(src string) error {
	s := src[1:]
	units := []struct {
		c   byte
		idx int
	}{{'Y', 1}, {'M', 2}, {'D', 4}}
	i, k := 0, 0
	for i < len(s) && s[i] != 'T' {
		n, j, ok := durNumber(s, i)
		if !ok || j >= len(s) {
			return durConvertErr(src)
		}
		for k < len(units) && units[k].c != s[j] {
			k++
		}
		if k == len(units) {
			return durConvertErr(src)
		}
		if err := b.add(units[k].idx, n); err != nil {
			return err
		}
		k++
		i = j + 1
	}
	if i == len(s) {
		return nil
	}
	s = s[i+1:]
	units = []struct {
		c   byte
		idx int
	}{{'H', 5}, {'M', 6}, {'S', 7}}
	i, k = 0, 0
	for i < len(s) {
		n, j, ok := durNumber(s, i)
		if !ok || j >= len(s) {
			return durConvertErr(src)
		}
		for k < len(units) && units[k].c != s[j] {
			k++
		}
		if k == len(units) {
			return durConvertErr(src)
		}
		if err := b.add(units[k].idx, n); err != nil {
			return err
		}
		k++
		i = j + 1
	}
	return nil
}

// isoWeek parses P<n>W.
func (b *durBuilder) isoWeek(src string) error {
	n, j, ok := durNumber(src, 1)
	if !ok || j != len(src)-1 {
		return durConvertErr(src)
	}
	return b.add(3, n)
}

// isoAlt parses PYYYY-MM-DDThh:mm:ss (fixed digit counts).
func (b *durBuilder) isoAlt(src string) error {
	const layout = "P0000-00-00T00:00:00"
	if len(src) != len(layout) {
		return durConvertErr(src)
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == '0' {
			if src[i] < '0' || src[i] > '9' {
				return durConvertErr(src)
			}
		} else if src[i] != layout[i] {
			return durConvertErr(src)
		}
	}
	fields := []struct{ from, to, idx int }{{1, 5, 1}, {6, 8, 2}, {9, 11, 4}, {12, 14, 5}, {15, 17, 6}, {18, 20, 7}}
	for _, f := range fields {
		n, _ := strconv.ParseInt(src[f.from:f.to], 10, 64)
		if err := b.add(f.idx, n); err != nil {
			return err
		}
	}
	return nil
}

// ---- serialization: three Cassandra vints ----

// appendUvint appends Cassandra's unsigned vint: the count of extra bytes as
// leading 1 bits of the first byte, then the value big-endian.
func appendUvint(dst []byte, v uint64) []byte {
	n := bits.Len64(v)
	extra := 0
	if n > 7 {
		extra = (n - 7 + 6) / 7
		if extra > 8 {
			extra = 8
		}
	}
	if extra == 8 {
		dst = append(dst, 0xFF)
		for i := 7; i >= 0; i-- {
			dst = append(dst, byte(v>>(8*i)))
		}
		return dst
	}
	first := byte(v>>(8*extra)) | ^byte(0xFF>>extra)
	dst = append(dst, first)
	for i := extra - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// readUvint reads an unsigned vint at b[off:].
func readUvint(b []byte, off int) (uint64, int, bool) {
	if off >= len(b) {
		return 0, off, false
	}
	first := b[off]
	extra := bits.LeadingZeros8(^first)
	if len(b)-off-1 < extra {
		return 0, off, false
	}
	var v uint64
	if extra < 8 {
		v = uint64(first & (0xFF >> extra))
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[off+i])
	}
	return v, off + 1 + extra, true
}

func appendVint(dst []byte, v int64) []byte {
	return appendUvint(dst, uint64(v<<1)^uint64(v>>63))
}

func readVint(b []byte, off int) (int64, int, bool) {
	u, next, ok := readUvint(b, off)
	return int64(u>>1) ^ -int64(u&1), next, ok
}

// encodeDuration serializes d.
func encodeDuration(d Duration) []byte {
	out := make([]byte, 0, 12)
	out = appendVint(out, int64(d.Months))
	out = appendVint(out, int64(d.Days))
	return appendVint(out, d.Nanos)
}

// decodeDuration parses and validates a serialized duration with
// Cassandra's messages; trailing bytes are rejected too.
func decodeDuration(b []byte) (Duration, error) {
	if len(b) < 3 {
		return Duration{}, valueErrf("Expected at least 3 bytes for a duration (%d)", len(b))
	}
	months, off, ok1 := readVint(b, 0)
	days, off, ok2 := readVint(b, off)
	nanos, off, ok3 := readVint(b, off)
	if !ok1 || !ok2 || !ok3 || off != len(b) {
		return Duration{}, valueErrf("Invalid duration format")
	}
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Duration{}, valueErrf("The duration months must be a 32 bits integer but was: %d", months)
	}
	if days < math.MinInt32 || days > math.MaxInt32 {
		return Duration{}, valueErrf("The duration days must be a 32 bits integer but was: %d", days)
	}
	if !((months >= 0 && days >= 0 && nanos >= 0) || (months <= 0 && days <= 0 && nanos <= 0)) {
		return Duration{}, valueErrf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", months, days, nanos)
	}
	return Duration{Months: int32(months), Days: int32(days), Nanos: nanos}, nil
}
