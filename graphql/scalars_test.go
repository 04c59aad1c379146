package graphql

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestScalarRoundTrip writes every CQL type through GraphQL (as a literal
// and as a variable) and reads it back.
func TestScalarRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE s (k int PRIMARY KEY, a ascii, bi bigint, bl blob, bo boolean, da date, de decimal,
			db double, du duration, fl float, ine inet, i int, si smallint, te text, tm time, ts timestamp,
			tu timeuuid, tiny tinyint, u uuid, vi varint, l list<int>, st set<text>, m map<text, bigint>,
			tup tuple<int, text>, fz frozen<list<int>>, nested map<int, frozen<list<text>>>)`)

		cases := []struct {
			field, literal string
			variable       any // nil: no variable form
			want           string
		}{
			{"a", `"plain"`, "plain", `"plain"`},
			{"bi", `"9223372036854775807"`, json.Number("-42"), `"9223372036854775807"`},
			{"bi", `42`, nil, `"42"`},
			{"bl", `"yv4="`, "yv4=", `"yv4="`},
			{"bo", `true`, false, `true`},
			{"da", `"2020-10-21"`, "2020-10-21", `"2020-10-21"`},
			{"da", `2147483648`, json.Number("2147483648"), `"1970-01-01"`},
			{"de", `"1.50"`, "-3e-7", `"1.50"`},
			{"db", `3.25`, json.Number("3.25"), `3.25`},
			{"du", `"1h4m48s20ms"`, "1h4m48s20ms", `"1h4m48s20ms"`},
			{"fl", `1.5`, json.Number("1.5"), `1.5`},
			{"ine", `"127.0.0.1"`, "::1", `"127.0.0.1"`},
			{"i", `-7`, json.Number("7"), `-7`},
			{"si", `-300`, json.Number("300"), `-300`},
			{"te", `"héllo ✓"`, "héllo ✓", `"héllo ✓"`},
			{"tm", `"10:15:30.123456789"`, json.Number("1000000000"), `"10:15:30.123456789"`},
			{"ts", `"2011-02-03 04:05+0000"`, json.Number("1296705900000"), `"2011-02-03T04:05:00.000Z"`},
			{"ts", `"2011-02-03T04:05:06.789"`, "2011-02-03T06:05:06.789+02:00", `"2011-02-03T04:05:06.789Z"`},
			{"ts", `1296705900000`, nil, `"2011-02-03T04:05:00.000Z"`},
			{"tu", `"fe86cad0-1965-11eb-84e6-ab660d2e8c9e"`, "fe86cad0-1965-11eb-84e6-ab660d2e8c9e", `"fe86cad0-1965-11eb-84e6-ab660d2e8c9e"`},
			{"tiny", `-128`, json.Number("127"), `-128`},
			{"u", `"f47ac10b-58cc-4372-a567-0e02b2c3d479"`, "F47AC10B-58CC-4372-A567-0E02B2C3D479", `"f47ac10b-58cc-4372-a567-0e02b2c3d479"`},
			{"vi", `123456789012345678901234567890`, "-123456789012345678901234567890", `"123456789012345678901234567890"`},
			{"l", `[3, 1, 2]`, []any{json.Number("3"), json.Number("1")}, `[3,1,2]`},
			{"st", `["b", "a", "b"]`, []any{"z"}, `["a","b"]`},
			{"m", `[{key: "x", value: "1"}, {key: "a", value: 2}]`, []any{map[string]any{"key": "q", "value": "5"}}, `[{"key":"a","value":"2"},{"key":"x","value":"1"}]`},
			{"tup", `{item0: 1, item1: "one"}`, map[string]any{"item0": json.Number("2")}, `{"item0":1,"item1":"one"}`},
			{"fz", `[1, 1]`, []any{json.Number("4")}, `[1,1]`},
			{"nested", `[{key: 1, value: ["a", "b"]}]`, nil, `[{"key":1,"value":["a","b"]}]`},
		}
		sel := map[string]string{
			"m": "m { key value }", "tup": "tup { item0 item1 }", "nested": "nested { key value }",
		}
		selection := func(f string) string {
			if s, ok := sel[f]; ok {
				return s
			}
			return f
		}
		for i, c := range cases {
			k := i + 1
			mutation := `mutation { inserts(value: {k: ` + itoa(k) + `, ` + c.field + `: ` + c.literal + `}) { applied value { ` + selection(c.field) + ` } } }`
			got := e.dml(mutation, nil)
			if g := jsonText(path(got, "inserts", "value", c.field)); g != c.want {
				t.Errorf("%s literal %s: echoed %s, want %s", c.field, c.literal, g, c.want)
			}
			got = e.dml(`query { s(value: {k: `+itoa(k)+`}) { values { `+selection(c.field)+` } } }`, nil)
			if g := jsonText(path(got, "s", "values", 0, c.field)); g != c.want {
				t.Errorf("%s literal %s: read %s, want %s", c.field, c.literal, g, c.want)
			}
			if c.variable == nil {
				continue
			}
			vars := map[string]any{"v": map[string]any{"k": k + 1000, c.field: c.variable}}
			got = e.dml(`mutation($v: sInput!) { inserts(value: $v) { applied } }`, vars)
			if path(got, "inserts", "applied") != true {
				t.Errorf("%s variable %v: not applied: %s", c.field, c.variable, jsonText(got))
			}
		}

		// Generated values: uuid() and now().
		got := e.dml(`mutation { inserts(value: {k: 500, u: "uuid()", tu: "now()"}) { value { u tu } } }`, nil)
		uuidRe := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`)
		for field, version := range map[string]string{"u": "4", "tu": "1"} {
			s, _ := path(got, "inserts", "value", field).(string)
			if m := uuidRe.FindStringSubmatch(s); m == nil || m[1] != version {
				t.Errorf("%s = %q, want a version %s UUID", field, s, version)
			}
		}
		read := e.dml(`query { s(value: {k: 500}) { values { u tu } } }`, nil)
		if jsonText(path(read, "s", "values", 0)) != jsonText(path(got, "inserts", "value")) {
			t.Errorf("generated UUIDs read back as %s, echoed as %s", jsonText(read), jsonText(got))
		}
	})
}

func TestScalarErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE s (k int PRIMARY KEY, a ascii, bi bigint, bl blob, da date, de decimal, si smallint,
			tiny tinyint, ts timestamp, tu timeuuid, u uuid, ine inet, tm time, du duration)`)
		cases := []struct{ value, want string }{
			{`si: 40000`, "Out of range"},
			{`tiny: 128`, "Out of range"},
			{`bi: "12x"`, "Invalid format"},
			{`bi: 99999999999999999999`, "Out of bounds"},
			{`a: "é"`, "String contains non-ASCII characters"},
			{`bl: "!!"`, "Illegal base64"},
			{`da: "2020-13-01"`, "Invalid value for field 'da'"},
			{`da: "21-10-2020"`, "expected ISO-8601 extended local date format"},
			{`de: 1.5`, "Expected a string literal"},
			{`ts: "yesterday"`, "Cannot parse Timestamp value"},
			{`tu: "f47ac10b-58cc-4372-a567-0e02b2c3d479"`, "Not a Type 1 (time-based) UUID"},
			{`u: "nope"`, "Invalid value for field 'u'"},
			{`ine: "localhost"`, "Invalid value for field 'ine'"},
			{`tm: "25:00:00"`, "expected ISO-8601 extended local time format"},
			{`du: "forever"`, "Invalid value for field 'du'"},
		}
		for _, c := range cases {
			msg := e.dmlError(`mutation { inserts(value: {k: 1, `+c.value+`}) { applied } }`, nil)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: error %q, want %q", c.value, msg, c.want)
			}
		}
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
