package graphql

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/graphql-go/graphql/language/ast"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// GraphQL input -> Go values that cql.EncodeGo accepts for the column type.
// Custom scalars arrive already serialized (scalarValue); built-in Int,
// Float, String and Boolean arrive as Go int, float64, string and bool.
func toGo(t *cql.Type, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case *inputError:
		return nil, x
	case scalarValue:
		return x.b, nil
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindVector:
		xs, ok := v.([]any)
		if !ok {
			xs = []any{v}
		}
		out := make([]any, len(xs))
		for i, e := range xs {
			g, err := toGo(t.Elems[0], e)
			if err != nil {
				return nil, err
			}
			if g == nil {
				return nil, fmt.Errorf("null is not supported inside collections")
			}
			out[i] = g
		}
		return out, nil
	case cql.KindMap:
		xs, ok := v.([]any)
		if !ok {
			xs = []any{v}
		}
		out := make([]cql.MapEntry, 0, len(xs))
		for _, e := range xs {
			entry, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("map entries must be objects with a key and a value")
			}
			k, err := toGo(t.Elems[0], entry["key"])
			if err != nil {
				return nil, err
			}
			val, err := toGo(t.Elems[1], entry["value"])
			if err != nil {
				return nil, err
			}
			if k == nil || val == nil {
				return nil, fmt.Errorf("null is not supported inside collections")
			}
			out = append(out, cql.MapEntry{Key: k, Value: val})
		}
		return out, nil
	case cql.KindTuple:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("tuples must be objects with fields item0..item%d", len(t.Elems)-1)
		}
		out := make([]any, len(t.Elems))
		for i, et := range t.Elems {
			g, err := toGo(et, m[fmt.Sprintf("item%d", i)])
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	case cql.KindUDT:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("values of UDT %s must be objects", t.Name)
		}
		out := make(map[string]any, len(m))
		for i, f := range t.Fields {
			gv, present := m[toGraphQLName(f, identColumn)]
			if !present {
				continue
			}
			g, err := toGo(t.Elems[i], gv)
			if err != nil {
				return nil, err
			}
			out[f] = g
		}
		return out, nil
	}
	return v, nil
}

// encodeInput converts and serializes one GraphQL input value for type t;
// errors name the field the value was given for.
func encodeInput(t *cql.Type, field string, v any) ([]byte, error) {
	g, err := toGo(t, v)
	if err == nil {
		var b []byte
		if b, err = cql.EncodeGo(t, g); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("Invalid value for field '%s': %v", field, err)
}

// CQL -> GraphQL output. Scalars stay as cql.DecodeGo returns them (the
// scalars' Serialize functions format them); composite values become the
// list and object shapes of the generated types.
func fromCQL(t *cql.Type, b []byte) (any, error) {
	v, err := cql.DecodeGo(t, b)
	if err != nil {
		return nil, err
	}
	return outValue(t, v), nil
}

func outValue(t *cql.Type, v any) any {
	if v == nil {
		return nil
	}
	if raw, ok := v.([]byte); ok && len(raw) == 0 && t.Kind != cql.KindBlob {
		return nil // Cassandra's empty value of a fixed-size type
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindVector:
		xs, _ := v.([]any)
		out := make([]any, len(xs))
		for i, e := range xs {
			out[i] = outValue(t.Elems[0], e)
		}
		return out
	case cql.KindMap:
		entries, _ := v.([]cql.MapEntry)
		out := make([]any, len(entries))
		for i, e := range entries {
			out[i] = map[string]any{"key": outValue(t.Elems[0], e.Key), "value": outValue(t.Elems[1], e.Value)}
		}
		return out
	case cql.KindTuple:
		xs, _ := v.([]any)
		out := make(map[string]any, len(xs))
		for i, e := range xs {
			if i < len(t.Elems) {
				out[fmt.Sprintf("item%d", i)] = outValue(t.Elems[i], e)
			}
		}
		return out
	case cql.KindUDT:
		m, _ := v.(map[string]any)
		out := make(map[string]any, len(m))
		for i, f := range t.Fields {
			out[toGraphQLName(f, identColumn)] = outValue(t.Elems[i], m[f])
		}
		return out
	}
	return v
}

// rowToGraphQL converts one result row to a table object keyed by GraphQL
// field names; null cells and columns that are not table columns (like
// "[applied]") are left out.
func rowToGraphQL(ti *tableInfo, cols []bindings.ColumnSpec, row [][]byte) (map[string]any, error) {
	out := make(map[string]any, len(cols))
	err := decodeRow(ti, cols, row, func(_ int, f string, v any) { out[f] = v })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeRow decodes the cells of one result row that rowToGraphQL keeps,
// calling fn with each one's column index, field name and value.
func decodeRow(ti *tableInfo, cols []bindings.ColumnSpec, row [][]byte, fn func(i int, field string, v any)) error {
	for i, c := range cols {
		if i >= len(row) || row[i] == nil {
			continue
		}
		f := ti.fname[c.Name]
		if f == "" {
			if !strings.HasPrefix(c.Name, aggregatePrefix) {
				continue
			}
			f = c.Name // an aggregate, read by its field's resolver
		}
		v, err := fromCQL(c.Type, row[i])
		if err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
		fn(i, f, v)
	}
	return nil
}

// echoValue turns a mutation's input value into the output shape, as it
// was stored (Stargate reflects the input back when a mutation applies;
// sets and maps come back in CQL order, duplicates removed).
func echoValue(ti *tableInfo, value map[string]any) map[string]any {
	out := make(map[string]any, len(value))
	for f, v := range value {
		c := ti.fields[f]
		if c == nil {
			continue
		}
		b, err := encodeInput(c.Type, f, v)
		if err != nil || b == nil {
			continue
		}
		if canon, err := cql.Canonicalize(c.Type, b); err == nil {
			b = canon
		}
		if o, err := fromCQL(c.Type, b); err == nil {
			out[f] = o
		}
	}
	return out
}

// normalizeJSON makes JSON-decoded variables (decoded with UseNumber)
// look like parsed GraphQL literals: integers become int64 (or *big.Int
// when they do not fit), other numbers float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n // the common case, without a big.Int
			}
			if n, ok := new(big.Int).SetString(s, 10); ok {
				if n.IsInt64() {
					return n.Int64()
				}
				return n
			}
		}
		f, err := x.Float64()
		if err != nil {
			return math.NaN()
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
		return x
	}
	return v
}

// visitFields calls fn for every field of a selection set, looking through
// fragment spreads and inline fragments.
func visitFields(sel *ast.SelectionSet, frags map[string]ast.Definition, fn func(*ast.Field)) {
	visitFieldsSeen(sel, frags, map[string]bool{}, fn)
}

func visitFieldsSeen(sel *ast.SelectionSet, frags map[string]ast.Definition, seen map[string]bool, fn func(*ast.Field)) {
	if sel == nil {
		return
	}
	for _, s := range sel.Selections {
		switch x := s.(type) {
		case *ast.Field:
			fn(x)
		case *ast.InlineFragment:
			visitFieldsSeen(x.SelectionSet, frags, seen, fn)
		case *ast.FragmentSpread:
			if x.Name == nil || seen[x.Name.Value] {
				continue
			}
			seen[x.Name.Value] = true
			if fd, ok := frags[x.Name.Value].(*ast.FragmentDefinition); ok {
				visitFieldsSeen(fd.SelectionSet, frags, seen, fn)
			}
		}
	}
}

func fieldName(f *ast.Field) string {
	if f.Name == nil {
		return ""
	}
	return f.Name.Value
}
