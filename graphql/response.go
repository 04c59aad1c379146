package graphql

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/ast"
)

// The response writer renders graphql-go's result (maps, which have no
// order) as JSON whose object keys follow the document's selections, as
// the GraphQL spec asks ("ordered by the selection set"). It walks the
// operation's selection sets next to the data, writing into one pooled
// buffer: no intermediate values and no sorting of keys.

// responseShape is what the writer needs of a document: its operations'
// selection sets and its fragments.
type responseShape struct {
	doc   *ast.Document
	frags map[string]*ast.FragmentDefinition
	keys  sync.Map // *ast.SelectionSet -> *selectionKeys, for single sets
}

// selectionKeys are the response keys of a selection set, in order, with
// the sub-selections each key merges.
type selectionKeys struct {
	keys []string
	sub  map[string][]*ast.SelectionSet
}

func newResponseShape(doc *ast.Document) *responseShape {
	rs := &responseShape{doc: doc, frags: map[string]*ast.FragmentDefinition{}}
	for _, d := range doc.Definitions {
		if f, ok := d.(*ast.FragmentDefinition); ok && f.Name != nil {
			rs.frags[f.Name.Value] = f
		}
	}
	return rs
}

// operation returns the selection set of the operation a request runs
// (nil when the name selects none or several: execution reports that).
func (rs *responseShape) operation(name string) *ast.SelectionSet {
	var found *ast.SelectionSet
	n := 0
	for _, d := range rs.doc.Definitions {
		op, ok := d.(*ast.OperationDefinition)
		if !ok || (name != "" && (op.Name == nil || op.Name.Value != name)) {
			continue
		}
		found, n = op.SelectionSet, n+1
	}
	if n != 1 {
		return nil
	}
	return found
}

var responseBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendOrderedResult appends res with data keys in the selection order
// of sel (sorted when sel is nil, i.e. the document could not say).
func appendOrderedResult(b []byte, res *graphql.Result, shape *responseShape, sel *ast.SelectionSet) []byte {
	b = append(b, '{')
	if res.Data != nil {
		b = append(b, `"data":`...)
		var sets []*ast.SelectionSet
		if sel != nil {
			sets = []*ast.SelectionSet{sel}
		}
		b = shape.appendValue(b, res.Data, sets)
	}
	if len(res.Errors) > 0 {
		if res.Data != nil {
			b = append(b, ',')
		}
		b = appendErrors(b, res.Errors)
	}
	return append(b, '}')
}

// appendErrors appends the "errors" member of a response.
func appendErrors(b []byte, errs []gqlerrors.FormattedError) []byte {
	j, err := json.Marshal(errs)
	if err != nil {
		j = []byte(`[{"message":"could not encode the errors"}]`)
	}
	b = append(b, `"errors":`...)
	return append(b, j...)
}

// writeBody sends a response body b built in the pooled buffer bp, and
// returns the buffer to the pool.
func writeBody(w http.ResponseWriter, bp *[]byte, b []byte) {
	// Header.Set's canonical keys, both values in one allocation.
	v := [2]string{"application/json", strconv.Itoa(len(b))}
	h := w.Header()
	h["Content-Type"], h["Content-Length"] = v[0:1:1], v[1:2:2]
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= 1<<20 { // do not keep huge buffers alive
		*bp = b
		responseBuffers.Put(bp)
	}
}

// appendValue appends v as JSON; sets are the selection sets that asked
// for v (several when fields with one response key are merged).
func (rs *responseShape) appendValue(b []byte, v any, sets []*ast.SelectionSet) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendJSONString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return appendJavaFloat(b, x, 64)
	case float32:
		return appendJavaFloat(b, float64(x), 32)
	case map[string]any:
		return rs.appendObject(b, x, sets)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = rs.appendValue(b, e, sets)
		}
		return append(b, ']')
	}
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

func (rs *responseShape) appendObject(b []byte, m map[string]any, sets []*ast.SelectionSet) []byte {
	b = append(b, '{')
	n := 0
	var keys []string
	var sub map[string][]*ast.SelectionSet
	switch len(sets) {
	case 0:
	case 1: // the common case, and documents are cached: remember it
		if k, ok := rs.keys.Load(sets[0]); ok {
			sk := k.(*selectionKeys)
			keys, sub = sk.keys, sk.sub
			break
		}
		keys, sub = rs.responseKeys(sets)
		rs.keys.Store(sets[0], &selectionKeys{keys: keys, sub: sub})
	default:
		keys, sub = rs.responseKeys(sets)
	}
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue // a fragment whose type condition did not apply
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = rs.appendValue(b, v, sub[k])
	}
	if n == len(m) {
		return append(b, '}')
	}
	// Keys the selections do not name (no document, or data the walker
	// cannot match): sorted, as encoding/json would.
	rest := make([]string, 0, len(m)-n)
	for k := range m {
		if _, named := sub[k]; !named {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = rs.appendValue(b, m[k], nil)
	}
	return append(b, '}')
}

// responseKeys lists the response keys of selection sets in order, with
// the sub-selections each key merges.
func (rs *responseShape) responseKeys(sets []*ast.SelectionSet) ([]string, map[string][]*ast.SelectionSet) {
	var keys []string
	sub := map[string][]*ast.SelectionSet{}
	seenFrag := map[string]bool{}
	var walk func(*ast.SelectionSet)
	walk = func(s *ast.SelectionSet) {
		if s == nil {
			return
		}
		for _, sel := range s.Selections {
			switch x := sel.(type) {
			case *ast.Field:
				k := responseKey(x)
				ss, seen := sub[k]
				if !seen {
					keys = append(keys, k)
				}
				if x.SelectionSet != nil {
					ss = append(ss, x.SelectionSet)
				}
				sub[k] = ss
			case *ast.InlineFragment:
				walk(x.SelectionSet)
			case *ast.FragmentSpread:
				if x.Name == nil || seenFrag[x.Name.Value] {
					continue
				}
				seenFrag[x.Name.Value] = true
				if f := rs.frags[x.Name.Value]; f != nil {
					walk(f.SelectionSet)
				}
			}
		}
	}
	for _, s := range sets {
		walk(s)
	}
	return keys, sub
}

// responseKey is a field's key in the response: its alias or its name.
func responseKey(f *ast.Field) string {
	if f.Alias != nil && f.Alias.Value != "" {
		return f.Alias.Value
	}
	return fieldName(f)
}

// appendJSONString appends s quoted as encoding/json does (HTML
// characters escaped, invalid UTF-8 replaced).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendJavaFloat appends f as Stargate writes a CQL double (bitSize 64)
// or float (32): Jackson prints Java's Double.toString / Float.toString,
// so a whole value keeps its ".0" (100.0, -1.0) and magnitudes outside
// [1e-3, 1e7) use Java's scientific notation (1.0E7, 1.5E-4); the digits
// are the shortest that read back to the same value. JSON has no NaN or
// infinities: they stay null, as json.Marshal left them.
func appendJavaFloat(b []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "null"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, bitSize)
		if !bytes.ContainsRune(b[start:], '.') {
			b = append(b, ".0"...)
		}
		return b
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bitSize) // d[.ddd]e±XX
	i := bytes.IndexByte(e, 'e')
	b = append(b, e[:i]...)
	if !bytes.ContainsRune(e[:i], '.') {
		b = append(b, ".0"...)
	}
	b = append(b, 'E')
	exp := e[i+1:]
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	return append(b, exp...)
}
