package cql

// Text-to-bytes conversions for scalar types: the equivalent of Cassandra's
// AbstractType.fromString, used for literals (value_encode.go) and for Go
// strings handed to EncodeGo.

import (
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scalarFromString converts literal text to the serialized value of a scalar
// kind, with Cassandra's messages. r evaluates 'now' for timestamps.
func scalarFromString(k Kind, s string, r Resolver) ([]byte, error) {
	switch k {
	case KindText:
		if !utf8.ValidString(s) {
			return nil, valueErrf("String didn't validate.")
		}
		return []byte(s), nil
	case KindAscii:
		for _, c := range s {
			if c > 127 {
				n := 1
				if c > 0xFFFF {
					n = 2 // a surrogate pair in Java
				}
				return nil, valueErrf("Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = %d", n)
			}
		}
		return []byte(s), nil
	case KindBlob:
		b, ok := parseHex(s)
		if !ok {
			return nil, valueErrf("cannot parse '%s' as hex bytes", s)
		}
		return b, nil
	}
	if s == "" {
		switch k {
		case KindInt, KindBigint, KindCounter, KindVarint, KindDecimal, KindFloat, KindDouble,
			KindTimestamp, KindUUID, KindTimeuuid, KindInet, KindDuration:
			return []byte{}, nil // Cassandra's empty value
		case KindBoolean:
			return []byte{0}, nil
		}
	}
	switch k {
	case KindInt, KindBigint, KindCounter, KindSmallint, KindTinyint, KindVarint, KindDecimal, KindFloat, KindDouble:
		return numberFromString(k, s)
	case KindBoolean:
		switch {
		case strings.EqualFold(s, "false"):
			return []byte{0}, nil
		case strings.EqualFold(s, "true"):
			return []byte{1}, nil
		}
		return nil, valueErrf("Unable to make boolean from '%s'", s)
	case KindTimestamp, KindDate, KindTime, KindUUID, KindTimeuuid, KindInet, KindDuration:
		return otherFromString(k, s, r)
	}
	return nil, valueErrf("Cannot convert '%s' to type %s", s, k)
}

// numberFromString parses a numeric literal of kind k with Cassandra's
// messages.
func numberFromString(k Kind, s string) ([]byte, error) {
	switch k {
	case KindInt:
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, valueErrf("Unable to make int from '%s'", s)
		}
		return be32(int32(v)), nil
	case KindBigint, KindCounter:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, valueErrf("Unable to make long from '%s'", s)
		}
		return be64(v), nil
	case KindSmallint:
		v, err := strconv.ParseInt(s, 10, 16)
		if err != nil {
			return nil, valueErrf("Unable to make short from '%s'", s)
		}
		return be16(int16(v)), nil
	case KindTinyint:
		v, err := strconv.ParseInt(s, 10, 8)
		if err != nil {
			return nil, valueErrf("Unable to make byte from '%s'", s)
		}
		return []byte{byte(v)}, nil
	case KindVarint:
		v, ok := parseJavaBigInt(s)
		if !ok {
			return nil, valueErrf("unable to make int from '%s'", s)
		}
		return varintBytes(v), nil
	case KindDecimal:
		d, ok := parseDecimal(s)
		if !ok {
			return nil, valueErrf("unable to make BigDecimal from '%s'", s)
		}
		return encodeDecimal(d), nil
	case KindFloat:
		f, ok := parseJavaFloat(s, 32)
		if !ok {
			return nil, valueErrf("Unable to make float from '%s'", s)
		}
		return be32(int32(math.Float32bits(float32(f)))), nil
	case KindDouble:
		f, ok := parseJavaFloat(s, 64)
		if !ok {
			return nil, valueErrf("Unable to make double from '%s'", s)
		}
		return be64(int64(math.Float64bits(f))), nil
	}
	return nil, valueErrf("Cannot convert '%s' to type %s", s, k)
}

// otherFromString parses a time, identifier or duration literal of kind k
// ("now" for a timestamp calls currenttimestamp through r).
func otherFromString(k Kind, s string, r Resolver) ([]byte, error) {
	switch k {
	case KindTimestamp:
		if strings.EqualFold(s, "now") {
			if r == nil {
				r = NoResolver{}
			}
			return r.Call(&FuncCall{Name: "currenttimestamp"}, Scalar(KindTimestamp))
		}
		ms, err := parseTimestamp(s)
		if err != nil {
			return nil, err
		}
		return be64(ms), nil
	case KindDate:
		d, err := parseDate(s)
		if err != nil {
			return nil, err
		}
		return be32(int32(d)), nil
	case KindTime:
		ns, err := parseTime(s)
		if err != nil {
			return nil, err
		}
		return be64(ns), nil
	case KindUUID:
		u, err := ParseUUID(s)
		if err != nil {
			return nil, err
		}
		return u[:], nil
	case KindTimeuuid:
		u, err := ParseUUID(s)
		if err != nil {
			return nil, valueErrf("Unknown timeuuid representation: %s", s)
		}
		if u.Version() != 1 {
			return nil, valueErrf("TimeUUID supports only version 1 UUIDs")
		}
		return u[:], nil
	case KindInet:
		ip, ok := parseInet(s)
		if !ok {
			return nil, valueErrf("Unable to make inet address from '%s'", s)
		}
		return ip, nil
	case KindDuration:
		d, err := ParseDuration(s)
		if err != nil {
			return nil, err
		}
		return encodeDuration(d), nil
	}
	return nil, valueErrf("Cannot convert '%s' to type %s", s, k)
}

// parseHex decodes hex digits as Cassandra's Hex.hexToBytes does: an odd
// count gets a leading zero.
func parseHex(s string) ([]byte, bool) {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		hi, ok1 := hexVal(s[2*i])
		lo, ok2 := hexVal(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		out[i] = hi<<4 | lo
	}
	return out, true
}

// parseInet accepts IPv4 and IPv6 literals (IPv6 optionally in brackets).
// IPv4-mapped IPv6 addresses become 4 bytes, as Java's InetAddress does.
// Host names are not resolved.
func parseInet(s string) ([]byte, bool) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	ip := net.ParseIP(s)
	if ip == nil {
		return nil, false
	}
	if v4 := ip.To4(); v4 != nil {
		return []byte(v4), true
	}
	return []byte(ip.To16()), true
}

// parseJavaBigInt parses [sign]digits like java.math.BigInteger.
func parseJavaBigInt(s string) (*big.Int, bool) {
	d := strings.TrimLeft(s, "+-")
	if len(s)-len(d) > 1 || d == "" || strings.Trim(d, "0123456789") != "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok
}

// parseJavaFloat parses the decimal forms Java's Float/Double.parseFloat
// accepts (sign, digits, point, exponent, NaN, Infinity; surrounding spaces
// trimmed). Out-of-range values round to ±Inf or zero, as in Java.
func parseJavaFloat(s string, bitSize int) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	switch {
	case strings.EqualFold(body, "NaN"):
		// Java's canonical NaN (0x7ff8000000000000): Go's math.NaN() has
		// another payload, and serialized values must match Cassandra's.
		return math.Float64frombits(0x7ff8000000000000), true
	case strings.EqualFold(body, "Infinity"):
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 && strings.ContainsRune("fFdD", rune(body[n-1])) {
		body = body[:n-1]
		s = s[:len(s)-1]
	}
	if !isDecimalSyntax(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, bitSize)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// isDecimalSyntax reports whether s (unsigned) is digits[.digits][e[sign]digits]
// with at least one significand digit.
func isDecimalSyntax(s string) bool {
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// parseDecimal parses text like java.math.BigDecimal(String): the scale is
// the number of fraction digits minus the exponent.
func parseDecimal(s string) (Decimal, bool) {
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || !isDecimalSyntax(body) {
		return Decimal{}, false
	}
	mant, exp := body, int64(0)
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant = body[:i]
		// Like Java, accept any exponent that leaves the scale in range.
		e, err := strconv.ParseInt(body[i+1:], 10, 64)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return Decimal{}, false
		}
		exp = e
	}
	frac := int64(0)
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		frac = int64(len(mant) - i - 1)
		mant = mant[:i] + mant[i+1:]
	}
	scale := frac - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return Decimal{}, false
	}
	u, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return Decimal{}, false
	}
	if strings.HasPrefix(s, "-") {
		u.Neg(u)
	}
	return Decimal{Unscaled: u, Scale: int32(scale)}, true
}

// varintBytes is the minimal two's complement big-endian form of v.
func varintBytes(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	y := new(big.Int).Neg(v)
	y.Sub(y, big.NewInt(1)) // -v-1 >= 0
	n := y.BitLen()/8 + 1
	b := y.FillBytes(make([]byte, n))
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// varintValue decodes two's complement big-endian bytes (empty is 0).
func varintValue(b []byte) *big.Int {
	if len(b) == 0 || b[0]&0x80 == 0 {
		return new(big.Int).SetBytes(b)
	}
	inv := make([]byte, len(b))
	for i, c := range b {
		inv[i] = ^c
	}
	v := new(big.Int).SetBytes(inv)
	v.Add(v, big.NewInt(1))
	return v.Neg(v)
}

func encodeDecimal(d Decimal) []byte {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	return append(be32(d.Scale), varintBytes(u)...)
}

// ---- dates and times ----

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian date.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// isRawInteger matches Cassandra's "^-?\d+$".
func isRawInteger(s string) bool {
	d := strings.TrimPrefix(s, "-")
	return d != "" && strings.Trim(d, "0123456789") == ""
}

// scanner walks a date/time string.
type scanner struct {
	s string
	i int
}

func (p *scanner) digits(min, max int) (int64, bool) {
	j := p.i
	for j < len(p.s) && j-p.i < max && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j-p.i < min {
		return 0, false
	}
	v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
	p.i = j
	return v, err == nil
}

func (p *scanner) lit(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) done() bool { return p.i == len(p.s) }

// parseTimestamp implements Cassandra 5.0's timestamp strings: milliseconds
// since the epoch, or yyyy-mm-dd with optional ' '|'T' hh:mm[:ss[.f]] and
// an optional zone (Z, +hh, +hhmm, +hh:mm, UTC, GMT, GMT+hh:mm; optionally
// after a space). Without a zone the time is UTC. The fraction has up to 9
// digits and is floored to milliseconds (Instant.toEpochMilli), as checked
// against Cassandra 5.0.9 by the differential test.
func parseTimestamp(s string) (int64, error) {
	if isRawInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, valueErrf("Unable to make long (for date) from: '%s'", s)
		}
		return v, nil
	}
	bad := valueErrf("Unable to parse a date/time from '%s'", s)
	p := &scanner{s: s}
	y, ok1 := p.digits(4, 4)
	okSep1 := p.lit('-')
	m, ok2 := p.digits(2, 2)
	okSep2 := p.lit('-')
	d, ok3 := p.digits(2, 2)
	if !ok1 || !ok2 || !ok3 || !okSep1 || !okSep2 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, bad
	}
	var hh, mm, ss, ms int64
	save := p.i
	if p.lit(' ') || p.lit('T') {
		var okH, okM bool
		hh, okH = p.digits(1, 2)
		if okH && p.lit(':') {
			mm, okM = p.digits(1, 2)
		}
		if !okH || !okM {
			if p.s[save] == 'T' {
				return 0, bad
			}
			p.i = save // a space before a zone name
		} else if p.lit(':') {
			var ok bool
			if ss, ok = p.digits(1, 2); !ok {
				return 0, bad
			}
			if p.lit('.') {
				// 0-9 digits ("10:00:00.Z" is accepted), as nanoseconds.
				var f int64
				n := 0
				for ; n < 9 && !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9'; n++ {
					f = f*10 + int64(p.s[p.i]-'0')
					p.i++
				}
				for ; n < 9; n++ {
					f *= 10
				}
				ms = f / 1e6
			}
		}
	}
	if hh > 23 || mm > 59 || ss > 59 {
		return 0, bad
	}
	off, ok := parseZone(p)
	if !ok || !p.done() {
		return 0, bad
	}
	days := daysFromCivil(y, m, d)
	const maxDays = math.MaxInt64/86400000 - 1
	if days > maxDays || days < -maxDays {
		return 0, bad
	}
	return days*86400000 + ((hh*60+mm)*60+ss)*1000 + ms - off*60000, nil
}

// parseZone reads an optional zone at p and returns its offset in minutes.
func parseZone(p *scanner) (int64, bool) {
	if p.done() {
		return 0, true
	}
	p.lit(' ')
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "Z"):
		p.i++
		return 0, true
	case strings.HasPrefix(rest, "UTC"), strings.HasPrefix(rest, "GMT"):
		p.i += 3
		if p.done() {
			return 0, true
		}
	}
	sign := int64(1)
	switch {
	case p.lit('+'):
	case p.lit('-'):
		sign = -1
	default:
		return 0, false
	}
	h, ok := p.digits(2, 2)
	if !ok || h > 23 {
		return 0, false
	}
	var mins int64
	if !p.done() {
		p.lit(':')
		if mins, ok = p.digits(2, 2); !ok || mins > 59 {
			return 0, false
		}
	}
	return sign * (h*60 + mins), true
}

// dateBound formats a day count as Java's ZonedDateTime.toString at UTC
// midnight, for range error messages.
func dateBound(days int64) string {
	return formatISODate(days) + "T00:00Z"
}

// parseDate implements Cassandra's date strings: a raw unsigned day count
// (2^31 is the epoch) or an ISO local date yyyy-mm-dd (years beyond 9999
// with '+', negative years with '-'). It returns the serialized uint32.
func parseDate(s string) (uint32, error) {
	if isRawInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxUint32 {
			return 0, valueErrf("Unable to make unsigned int (for date) from: '%s'", s)
		}
		return uint32(v), nil
	}
	bad := valueErrf("Unable to coerce '%s' to a formatted date (long)", s)
	p := &scanner{s: s}
	sign := int64(0)
	switch {
	case p.lit('+'):
		sign = 1
	case p.lit('-'):
		sign = -1
	}
	start := p.i
	y, ok := p.digits(4, 10)
	n := p.i - start
	if !ok || (sign == 0 && n > 4) || (sign == 1 && n == 4) || y > 999999999 {
		return 0, bad
	}
	if sign < 0 {
		y = -y
	}
	if !p.lit('-') {
		return 0, bad
	}
	m, ok1 := p.digits(2, 2)
	okSep := p.lit('-')
	d, ok2 := p.digits(2, 2)
	if !ok1 || !ok2 || !okSep || !p.done() || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, bad
	}
	days := daysFromCivil(y, m, d)
	if days < math.MinInt32 {
		return 0, valueErrf("Input date %s is less than min supported date %s", s, dateBound(math.MinInt32))
	}
	if days > math.MaxInt32 {
		return 0, valueErrf("Input date %s is greater than max supported date %s", s, dateBound(math.MaxInt32))
	}
	return uint32(days - math.MinInt32), nil
}

const nanosPerDay = 86400 * nanosPerSecond

// parseTime implements Cassandra's time strings: raw nanoseconds since
// midnight or hh:mm:ss[.fffffffff].
func parseTime(s string) (int64, error) {
	if isRawInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v >= nanosPerDay {
			return 0, valueErrf("Unable to make long (for time) from: '%s'", s)
		}
		return v, nil
	}
	v, ok := parseClock(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
	if !ok {
		return 0, valueErrf("(TimeType) Unable to coerce '%s' to a formatted time (long)", s)
	}
	return v, nil
}

// parseClock follows Cassandra's TimeSerializer.parseTimeStrictly.
func parseClock(s string) (int64, bool) {
	c1 := strings.IndexByte(s, ':')
	if c1 <= 0 {
		return 0, false
	}
	c2 := strings.IndexByte(s[c1+1:], ':')
	if c2 < 0 {
		return 0, false
	}
	c2 += c1 + 1
	if c2 >= len(s)-1 {
		return 0, false
	}
	h, ok1 := javaInt(s[:c1])
	m, ok2 := javaInt(s[c1+1 : c2])
	if !ok1 || !ok2 || h < 0 || h >= 24 || m < 0 || m >= 60 {
		return 0, false
	}
	var sec, nanos int64
	period := strings.IndexByte(s[c2+1:], '.')
	if period >= 0 {
		period += c2 + 1
	}
	switch {
	case period > 0 && period < len(s)-1:
		var ok bool
		if sec, ok = javaInt(s[c2+1 : period]); !ok {
			return 0, false
		}
		frac := s[period+1:]
		if len(frac) > 9 || frac[0] < '0' || frac[0] > '9' {
			return 0, false
		}
		frac += strings.Repeat("0", 9-len(frac))
		if nanos, ok = javaInt(frac); !ok {
			return 0, false
		}
	case period > 0:
		return 0, false
	default:
		var ok bool
		if sec, ok = javaInt(s[c2+1:]); !ok {
			return 0, false
		}
	}
	if sec < 0 || sec >= 60 {
		return 0, false
	}
	return h*nanosPerHour + m*nanosPerMinute + sec*nanosPerSecond + nanos, true
}

// javaInt parses like Integer.parseInt: optional sign, decimal digits.
func javaInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	return v, err == nil
}

// formatISODate renders days since the epoch as Java's ISO_LOCAL_DATE.
func formatISODate(days int64) string {
	y, m, d := civilFromDays(days)
	var sb strings.Builder
	switch {
	case y > 9999:
		sb.WriteByte('+')
		sb.WriteString(strconv.FormatInt(y, 10))
	case y < 0:
		sb.WriteByte('-')
		sb.WriteString(pad(-y, 4))
	default:
		sb.WriteString(pad(y, 4))
	}
	sb.WriteByte('-')
	sb.WriteString(pad(m, 2))
	sb.WriteByte('-')
	sb.WriteString(pad(d, 2))
	return sb.String()
}

func pad(v int64, n int) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	return s
}
