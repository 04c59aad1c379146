package graphql

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// scanBodySeeds are bodies for FuzzScanBody: what clients send, and what
// scanBody must leave to encoding/json.
var scanBodySeeds = []string{
	`{"query":"{ __typename }"}`,
	`{"query":"query($k: Int) { kv(value: {k: $k}) { values { k v } } }","variables":{"k":42}}`,
	`{"query":"q","variables":{"k":42},"operationName":"Op"}`,
	` {"operationName" : null , "variables":null,"query":"x"} `,
	"{\"query\":\"a\\nb\\t\\\"c\\\" \\\\ \\/ \\b\\f\\r \\u00e9\\u4e2d\\u0000\"}",
	`{"query":"é中😀","variables":{"s":"é中😀","e":"\u003cb\u003e"}}`,
	`{"query":"x","variables":{"a":[1,-2,3.5,-0,0,1e3,1E-3,-1.5e+10,12345678901234567890,-9223372036854775808,9223372036854775807,123456789012345678,-999999999999999999]}}`,
	`{"query":"x","variables":{"a":{"b":{"c":[true,false,null,[],{}]}},"a":"later wins"}}`,
	`{"query":"x","extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}},"other":[1,"2",null]}`,
	`{"query":"x","variables":{}}`,
	`{}`,
	`{"query":"x","Query":"y"}`,
	`{"QUERY":"x"}`,
	`{"query":"x","query":"y"}`,
	`{"query":"x","variables":{"a":1},"variables":{"b":2}}`,
	`{"quer\u0079":"x"}`,
	`{"query":"\ud83d\ude00"}`,
	`{"query":"\ud83d"}`,
	`{"query":"\udc00x"}`,
	"{\"query\":\"\xff\"}",
	"{\"query\":\"a\x01\"}",
	`{"query":1}`,
	`{"query":"x","variables":[1]}`,
	`{"query":"x","variables":"{\"k\":1}"}`,
	`{"query":"x","operationName":5}`,
	`{"query":"x",}`,
	`{"query":"x"} {}`,
	`{"query":"x"`,
	`{"query":"x","variables":{"a":01}}`,
	`{"query":"x","variables":{"a":1.}}`,
	`{"query":"x","variables":{"a":.5}}`,
	`{"query":"x","variables":{"a":-}}`,
	`{"query":"x","variables":{"a":+1}}`,
	`{"query":"x","variables":{"a":1e}}`,
	`{"query":"x","variables":{"a":1e400}}`,
	`{"query":"x","variables":{"a":tru}}`,
	`{"query":"x","variables":{"a":NaN}}`,
	`{"query":"x","variables":{"a":"\x"}}`,
	`{"query":"x","variables":{"a":"\u12"}}`,
	`null`,
	`[]`,
	`"query"`,
	"\ufeff{\"query\":\"x\"}",
	"{\"query\":\"x\"}\v",
	`{"query":"x","variables":{"k":` + strings.Repeat("[", 120) + strings.Repeat("]", 120) + `}}`,
}

// FuzzScanBody checks scanBody against decodeJSONRequest (encoding/json):
// whatever scanBody decodes, encoding/json decodes without error to the
// same request; what it refuses goes to encoding/json anyway.
func FuzzScanBody(f *testing.F) {
	for _, s := range scanBodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScanBody(t, body)
	})
}

// checkScanBody fails t when scanBody decodes body differently from
// decodeJSONRequest; it tells whether scanBody decoded it.
func checkScanBody(t *testing.T, body []byte) bool {
	t.Helper()
	var fast, ref gqlRequest
	if !scanBody(body, &fast) {
		if !reflect.DeepEqual(fast, gqlRequest{}) {
			t.Fatalf("scanBody refused %q but changed the request: %#v", body, fast)
		}
		return false
	}
	if _, msg := decodeJSONRequest(body, &ref); msg != "" {
		t.Fatalf("scanBody decoded %q, encoding/json refused it: %s", body, msg)
	}
	if fast.Query != ref.Query || fast.OperationName != ref.OperationName || !sameJSON(fast.Variables, ref.Variables) {
		t.Fatalf("%q decoded differently:\nscanBody:      %#v\nencoding/json: %#v", body, fast, ref)
	}
	return true
}

// sameJSON compares decoded values: types and values alike, a NaN equal
// to a NaN, big integers by value, nil maps apart from empty ones.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || (math.IsNaN(x) && math.IsNaN(y))) && math.Signbit(x) == math.Signbit(y)
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
}

// TestScanBodySeeds runs the seeds and checks that scanBody decodes the
// bodies it is for (it may not refuse them all and pass by doing nothing).
func TestScanBodySeeds(t *testing.T) {
	decoded := 0
	for _, s := range scanBodySeeds {
		if checkScanBody(t, []byte(s)) {
			decoded++
		}
	}
	for _, s := range scanBodySeeds[:10] {
		var r gqlRequest
		if !scanBody([]byte(s), &r) {
			t.Errorf("scanBody refused %s", s)
		}
	}
	if decoded < 10 {
		t.Errorf("scanBody decoded %d seeds", decoded)
	}
}

// TestScanBodyGenerated checks scanBody on generated request bodies:
// random variables (nested objects and arrays, strings with escapes and
// every kind of character, integers and floats of every size) marshalled
// by encoding/json, with random whitespace and member order; each must be
// decoded by scanBody, as encoding/json decodes it.
func TestScanBodyGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for i := 0; i < 3000; i++ {
		members := []string{
			`"query":` + genJSON(rng, 0, true),
			`"variables":` + genObject(rng, 0),
			`"operationName":` + genJSON(rng, 0, true),
			`"extensions":` + genJSON(rng, 0, false),
		}
		rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
		members = members[:1+rng.IntN(len(members))]
		body := genSpace(rng) + "{" + genSpace(rng) + strings.Join(members, genSpace(rng)+","+genSpace(rng)) + genSpace(rng) + "}" + genSpace(rng)
		if !checkScanBody(t, []byte(body)) {
			t.Fatalf("scanBody refused %s", body)
		}
	}
}

func genSpace(rng *rand.Rand) string {
	return strings.Repeat([]string{"", " ", "\n", "\t", "\r\n  "}[rng.IntN(5)], rng.IntN(2))
}

// genJSON is a random JSON value (a string when str).
func genJSON(rng *rand.Rand, depth int, str bool) string {
	kind := rng.IntN(8)
	if str {
		kind = 0
	} else if depth > 3 {
		kind = 2 + rng.IntN(6)
	}
	switch kind {
	case 0, 1:
		if kind == 1 {
			return genObject(rng, depth+1)
		}
		b, _ := json.Marshal(genString(rng))
		s := string(b)
		if rng.IntN(3) == 0 { // escapes encoding/json does not write
			s = strings.NewReplacer("a", `\u0061`, "/", `\/`, "é", `\u00E9`).Replace(s)
		}
		return s
	case 2:
		var parts []string
		for n := rng.IntN(4); n > 0; n-- {
			parts = append(parts, genJSON(rng, depth+1, false))
		}
		return "[" + strings.Join(parts, ","+genSpace(rng)) + "]"
	case 3:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	case 4:
		return fmt.Sprint(rng.Int64() >> rng.IntN(64) * int64(1-2*rng.IntN(2)))
	case 5:
		return []string{"12345678901234567890", "-98765432109876543210123", "9223372036854775807",
			"-9223372036854775808", "9223372036854775808", "0", "-0", "1e400"}[rng.IntN(8)]
	default:
		f := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		return []string{fmt.Sprint(f), fmt.Sprintf("%e", f), fmt.Sprintf("%.3f", f), fmt.Sprintf("%E", f)}[rng.IntN(4)]
	}
}

func genObject(rng *rand.Rand, depth int) string {
	var parts []string
	for n := rng.IntN(4); n > 0; n-- {
		k, _ := json.Marshal(genString(rng))
		parts = append(parts, string(k)+":"+genSpace(rng)+genJSON(rng, depth+1, false))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// genString is a random string of ASCII, controls, quotes, backslashes,
// non-ASCII letters and emoji.
func genString(rng *rand.Rand) string {
	pool := []rune("abcxyz {}$:\"\\/\n\t\x00\x1f<>&éü中😀\u2028")
	var b strings.Builder
	for n := rng.IntN(12); n > 0; n-- {
		b.WriteRune(pool[rng.IntN(len(pool))])
	}
	return b.String()
}
