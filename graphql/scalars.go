package graphql

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"

	"strconv"
	"time"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/language/ast"

	"github.com/dohyo/dohyo/cql"
)

// Custom scalars mirror Stargate's CqlScalar: one GraphQL scalar per CQL
// type that GraphQL's built-ins cannot represent exactly (int, double,
// text and boolean use Int, Float, String and Boolean).
//
// Parsing happens in two steps so that clients get precise messages:
// ParseValue/ParseLiteral turn the input into the CQL-serialized value
// (scalarValue) or, when it is invalid, into an *inputError that the
// resolvers report with the column it belongs to. Returning nil would make
// graphql-go answer a generic "Expected type X" instead.

// scalarValue is a parsed input: the CQL-serialized bytes of the value.
type scalarValue struct{ b []byte }

// inputError is an input value that could not be parsed.
type inputError struct {
	scalar string
	msg    string
}

func (e *inputError) Error() string { return e.scalar + ": " + e.msg }

// scalarSet holds one instance of every custom scalar. graphql-go wants one
// instance per name within a schema; sharing the set across schemas is fine
// because scalars are immutable.
type scalarSet struct {
	byKind map[cql.Kind]graphql.Type
}

// newScalarSet builds the scalars. uuids makes the values of "now()" for
// TimeUuid inputs.
func newScalarSet(uuids *cql.TimeUUIDGenerator) *scalarSet {
	s := &scalarSet{byKind: map[cql.Kind]graphql.Type{
		cql.KindBoolean: graphql.Boolean,
		cql.KindDouble:  graphql.Float,
		cql.KindInt:     graphql.Int,
		cql.KindText:    graphql.String,
	}}
	add := func(k cql.Kind, name, desc string, ser graphql.SerializeFn, parse func(any) ([]byte, error)) {
		sc := newCQLScalar(name, desc, ser, parse)
		s.byKind[k] = sc
	}
	stringOnly := func(k cql.Kind, pre func(string) (any, error)) func(any) ([]byte, error) {
		return func(v any) ([]byte, error) {
			str, ok := v.(string)
			if !ok {
				return nil, errorString("Expected a string literal")
			}
			var x any = str
			if pre != nil {
				var err error
				if x, err = pre(str); err != nil {
					return nil, err
				}
			}
			return encodeScalar(k, x)
		}
	}
	add(cql.KindUUID, "Uuid", "Represents a CQL `uuid` as a string.\nExample: \"fe86cad0-1965-11eb-84e6-ab660d2e8c9e\"",
		serializeStringer, stringOnly(cql.KindUUID, func(v string) (any, error) {
			if v == "uuid()" {
				return cql.RandomUUID(), nil
			}
			return v, nil
		}))
	add(cql.KindTimeuuid, "TimeUuid", "Represents a CQL `timeuuid` as a string.\nExample: \"fe86cad0-1965-11eb-84e6-ab660d2e8c9e\"",
		serializeStringer, stringOnly(cql.KindTimeuuid, func(v string) (any, error) {
			if v == "now()" {
				return uuids.Next(), nil
			}
			u, err := cql.ParseUUID(v)
			if err != nil {
				return nil, err
			}
			if u.Version() != 1 {
				return nil, errorString("Not a Type 1 (time-based) UUID")
			}
			return u, nil
		}))
	add(cql.KindInet, "Inet", "Represents a CQL `inet` as a string.\nThis is an IP address in IPv4 or IPv6 format.\n"+
		"Examples: \"127.0.0.1\", \"::1\"\nHost names are not resolved.",
		serializeStringer, stringOnly(cql.KindInet, nil))
	add(cql.KindDate, "Date", "Represents a CQL `date` as a string.\nThis is a date without a time-zone in the ISO-8601 calendar system.\n"+
		"Example: \"2020-10-21\".\nA date can also be input as a 32-bit, positive numeric literal, which will be "+
		"interpreted as a number of days, where the epoch is in the middle of the range (1970-01-01 = 2147483648).",
		serializeStringer, parseDate)
	add(cql.KindDuration, "Duration", "Represents a CQL `duration` as a string.\nExample: \"1h4m48s20ms\"",
		serializeStringer, stringOnly(cql.KindDuration, nil))
	add(cql.KindBigint, "BigInt", "Represents a CQL `bigint` as an integer literal.\nThis is a 64-bit signed integer.",
		serializeBigInt, parseBigInt(cql.KindBigint))
	add(cql.KindCounter, "Counter", "Represents a CQL `counter` as an integer literal.\nThis is a 64-bit signed integer.",
		serializeBigInt, parseBigInt(cql.KindCounter))
	add(cql.KindAscii, "Ascii", "Represents a CQL `ascii` as a string.\nAn error will be thrown if the string contains non-ASCII characters.",
		serializeString, stringOnly(cql.KindAscii, func(v string) (any, error) {
			for i := 0; i < len(v); i++ {
				if v[i] > 127 {
					return nil, errorString("String contains non-ASCII characters")
				}
			}
			return v, nil
		}))
	add(cql.KindDecimal, "Decimal", "Represents a CQL `decimal` as a string.\nThis is a variable-precision decimal.\nExamples: \"1.5\", \"1e-3\"",
		serializeStringer, stringOnly(cql.KindDecimal, nil))
	add(cql.KindVarint, "Varint", "Represents a CQL `varint` as an integer.\nThis is an arbitrary-precision integer.\nExamples: 1, 9223372036854775808",
		serializeStringer, parseVarint)
	add(cql.KindFloat, "Float32", "Represents a CQL `float` as a floating-point literal.\nThis is a 32-bit IEEE-754 floating point.\n"+
		"If the value cannot be represented as a float, it will be converted. This conversion can loose precision, or range (resulting in +/-Infinity).",
		serializeFloat32, parseFloat32)
	add(cql.KindBlob, "Blob", "Represents a CQL `blob` as a base64 encoded string.\nExample: \"yv4=\" (for the hex value 0xCAFE)",
		serializeBlob, func(v any) ([]byte, error) {
			str, ok := v.(string)
			if !ok {
				return nil, errorString("Expected a string literal")
			}
			b, err := base64.StdEncoding.DecodeString(str)
			if err != nil {
				return nil, fmt.Errorf("Illegal base64 input: %v", err)
			}
			return b, nil
		})
	add(cql.KindSmallint, "SmallInt", "Represents a CQL `smallint` as an integer.\nThis is a 16-bit signed int.\nAn error will be thrown if the value is out of bounds.",
		serializeSmallInt, parseSmallInt(cql.KindSmallint, math.MinInt16, math.MaxInt16))
	add(cql.KindTinyint, "TinyInt", "Represents a CQL `tinyint` as an integer\n.This is an 8-bit signed int.\nAn error will be thrown if the value is out of bounds.",
		serializeSmallInt, parseSmallInt(cql.KindTinyint, math.MinInt8, math.MaxInt8))
	add(cql.KindTimestamp, "Timestamp", "Represents a CQL `timestamp` as a string.\nThis is an instantaneous point on the time-line.\n"+
		"This type supports many different string representations (see https://docs.datastax.com/en/cql-oss/3.x/cql/cql_reference/timestamp_type_r.html). "+
		"A timestamp can also be input as a numeric literal, which will be interpreted as a number of milliseconds since the epoch (1970-01-01 UTC at midnight).\n"+
		"Examples: \"2011-02-03 04:05+0000\", 1296705900000\nString literals that do not include any time zone information will be interpreted as UTC.",
		serializeTimestamp, parseTemporal(cql.KindTimestamp))
	add(cql.KindTime, "Time", "Represents a CQL `time` as a string.\nThis is a time without a time-zone in the ISO-8601 calendar system.\n"+
		"Example: \"10:15:30.123456789\"\nA time can also be input as a numeric literal, which will be interpreted as a number of nanoseconds since midnight.",
		serializeTime, parseTemporal(cql.KindTime))
	return s
}

type errorString string

func (e errorString) Error() string { return string(e) }

// newCQLScalar wires a parse function (Go value in, serialized bytes out)
// into graphql-go's two parse hooks.
func newCQLScalar(name, desc string, ser graphql.SerializeFn, parse func(any) ([]byte, error)) *graphql.Scalar {
	wrap := func(v any) any {
		if v == nil {
			return nil
		}
		b, err := parse(v)
		if err != nil {
			return &inputError{scalar: name, msg: err.Error()}
		}
		return scalarValue{b: b}
	}
	return graphql.NewScalar(graphql.ScalarConfig{
		Name:        name,
		Description: desc,
		Serialize:   ser,
		ParseValue:  wrap,
		ParseLiteral: func(v ast.Value) any {
			switch lit := v.(type) {
			case *ast.StringValue:
				return wrap(lit.Value)
			case *ast.IntValue:
				n, ok := new(big.Int).SetString(lit.Value, 10)
				if !ok {
					return &inputError{scalar: name, msg: "Invalid integer literal"}
				}
				if n.IsInt64() {
					return wrap(n.Int64())
				}
				return wrap(n)
			case *ast.FloatValue:
				f, err := strconv.ParseFloat(lit.Value, 64)
				if err != nil {
					return &inputError{scalar: name, msg: "Invalid float literal"}
				}
				return wrap(f)
			case *ast.BooleanValue:
				return wrap(lit.Value)
			}
			return &inputError{scalar: name, msg: fmt.Sprintf("Unexpected %s literal", v.GetKind())}
		},
	})
}

// encodeScalar serializes x (a string in CQL literal syntax, or a Go value)
// for kind k, with Cassandra's messages on failure.
func encodeScalar(k cql.Kind, x any) ([]byte, error) {
	return cql.EncodeGo(cql.Scalar(k), x)
}

// asInt64 accepts what JSON variables and literals give for integers:
// int64 (literals, normalized variables), *big.Int when out of range.
func asInt64(v any) (int64, bool, error) {
	switch x := v.(type) {
	case int64:
		return x, true, nil
	case int:
		return int64(x), true, nil
	case *big.Int:
		return 0, false, errorString("Out of range")
	}
	return 0, false, nil
}

func parseBigInt(k cql.Kind) func(any) ([]byte, error) {
	return func(v any) ([]byte, error) {
		if n, ok, err := asInt64(v); err != nil {
			return nil, errorString("Out of bounds")
		} else if ok {
			return encodeScalar(k, n)
		}
		if s, ok := v.(string); ok {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, errorString("Invalid format")
			}
			return encodeScalar(k, n)
		}
		return nil, errorString("Expected a string or integer literal")
	}
}

func parseVarint(v any) ([]byte, error) {
	switch x := v.(type) {
	case int64, int:
		return encodeScalar(cql.KindVarint, x)
	case *big.Int:
		return encodeScalar(cql.KindVarint, x)
	case string:
		n, ok := new(big.Int).SetString(x, 10)
		if !ok {
			return nil, errorString("Invalid format")
		}
		return encodeScalar(cql.KindVarint, n)
	}
	return nil, errorString("Expected a string or integer literal")
}

func parseFloat32(v any) ([]byte, error) {
	switch x := v.(type) {
	case float64:
		return encodeScalar(cql.KindFloat, float32(x))
	case int64:
		return encodeScalar(cql.KindFloat, float32(x))
	case int:
		return encodeScalar(cql.KindFloat, float32(x))
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float32()
		return encodeScalar(cql.KindFloat, f)
	}
	return nil, errorString("Expected an integer or float literal")
}

func parseSmallInt(k cql.Kind, lo, hi int64) func(any) ([]byte, error) {
	return func(v any) ([]byte, error) {
		n, ok, err := asInt64(v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorString("Expected an integer literal")
		}
		if n < lo || n > hi {
			return nil, errorString("Out of range")
		}
		return encodeScalar(k, n)
	}
}

func parseDate(v any) ([]byte, error) {
	if n, ok, err := asInt64(v); err != nil {
		return nil, errorString("Out of bounds")
	} else if ok {
		if n < 0 || n > math.MaxUint32 {
			return nil, fmt.Errorf("Numeric Date literals must be between 0 and %d (got %d)", uint64(math.MaxUint32), n)
		}
		return encodeScalar(cql.KindDate, cql.Date(int32(uint32(n)-1<<31)))
	}
	s, ok := v.(string)
	if !ok {
		return nil, errorString("Expected a string or integer literal")
	}
	if !isISODate(s) {
		return nil, errorString("Couldn't parse literal, expected ISO-8601 extended local date format (YYYY-MM-DD)")
	}
	return encodeScalar(cql.KindDate, s)
}

// isISODate checks the shape yyyy-mm-dd (with an optional sign and more
// year digits, as ISO_LOCAL_DATE); the value itself is checked by cql.
func isISODate(s string) bool {
	i := 0
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		i = 1
	}
	digits := func(n int) bool {
		for k := 0; k < n; k++ {
			if i >= len(s) || s[i] < '0' || s[i] > '9' {
				return false
			}
			i++
		}
		return true
	}
	if !digits(4) {
		return false
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i >= len(s) || s[i] != '-' {
		return false
	}
	i++
	if !digits(2) || i >= len(s) || s[i] != '-' {
		return false
	}
	i++
	return digits(2) && i == len(s)
}

// parseTemporal parses timestamps (string or milliseconds) and times
// (string or nanoseconds since midnight).
func parseTemporal(k cql.Kind) func(any) ([]byte, error) {
	return func(v any) ([]byte, error) {
		if n, ok, err := asInt64(v); err != nil {
			return nil, errorString("Out of bounds")
		} else if ok {
			if k == cql.KindTime && (n < 0 || n >= 24*int64(time.Hour)) {
				return nil, fmt.Errorf("Invalid value for NanoOfDay (valid values 0 - 86399999999999): %d", n)
			}
			return encodeScalar(k, n)
		}
		s, ok := v.(string)
		if !ok {
			return nil, errorString("Expected a string or integer literal")
		}
		if s == "" || isAllDigits(s) {
			// CQL would read digits as a number; GraphQL strings must be text.
			if k == cql.KindTime {
				return nil, errorString("Couldn't parse literal, expected ISO-8601 extended local time format (HH:MM:SS[s.sss])")
			}
			return nil, errorString("Cannot parse Timestamp value")
		}
		b, err := encodeScalar(k, s)
		if err != nil {
			if k == cql.KindTime {
				return nil, errorString("Couldn't parse literal, expected ISO-8601 extended local time format (HH:MM:SS[s.sss])")
			}
			return nil, fmt.Errorf("Cannot parse Timestamp value (%v)", err)
		}
		return b, nil
	}
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Serializers: they receive what cql.DecodeGo returns for the column type.

func serializeStringer(v any) any {
	switch x := v.(type) {
	case fmt.Stringer:
		return x.String()
	case string:
		return x
	}
	return nil
}

func serializeString(v any) any {
	if s, ok := v.(string); ok {
		return s
	}
	return nil
}

func serializeBigInt(v any) any {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return x
	}
	return nil
}

func serializeFloat32(v any) any {
	if f, ok := v.(float32); ok {
		return f
	}
	return nil
}

func serializeSmallInt(v any) any {
	switch x := v.(type) {
	case int16:
		return int(x)
	case int8:
		return int(x)
	}
	return nil
}

func serializeBlob(v any) any {
	if b, ok := v.([]byte); ok {
		return base64.StdEncoding.EncodeToString(b)
	}
	return nil
}

// serializeTimestamp formats like Stargate (yyyy-MM-dd'T'HH:mm:ss.SSSXXX),
// in UTC.
func serializeTimestamp(v any) any {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	return nil
}

// serializeTime formats like Stargate (HH:mm:ss.SSSSSSSSS).
func serializeTime(v any) any {
	d, ok := v.(time.Duration)
	if !ok || d < 0 {
		return nil
	}
	ns := int64(d)
	return fmt.Sprintf("%02d:%02d:%02d.%09d", ns/int64(time.Hour), ns/int64(time.Minute)%60,
		ns/int64(time.Second)%60, ns%int64(time.Second))
}
