package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// INSERT JSON is planned as an INSERT of every column whose values are
// synthetic bind markers (indexes after the statement's own markers): at
// execution the JSON object is decoded into those values, and the normal
// INSERT path (keys, nulls, unset, TTL, IF NOT EXISTS) does the rest.

type jsonInsert struct {
	term  cql.Term
	base  int  // index of the first synthetic marker
	unset bool // DEFAULT UNSET: absent columns are left untouched
}

func (b *planner) planInsertJSON(ti *tableInfo, s *cql.Insert, p *modPlan) error {
	b.walkTerm(s.JSON, cql.Scalar(cql.KindText), "[json]", ti)
	p.json = &jsonInsert{term: s.JSON, base: len(b.markers), unset: s.DefaultUnset}
	w := &where{pk: make([][]*restriction, len(ti.pk)), ck: make([][]*restriction, len(ti.ck))}
	for i, col := range ti.cols {
		m := &cql.BindMarker{Index: p.json.base + i}
		switch col.Kind {
		case schema.PartitionKey:
			w.pk[col.Position] = []*restriction{{cols: []int{i}, op: cql.OpEq, value: m}}
		case schema.Clustering:
			w.ck[col.Position] = []*restriction{{cols: []int{i}, op: cql.OpEq, value: m}}
		default:
			p.sets = append(p.sets, setOp{col: i, op: cql.AssignSet, value: m, vt: col.Type})
		}
	}
	p.w = w
	p.ck = planClustering(ti, w)
	return nil
}

// bindJSON decodes the JSON object of an INSERT JSON into the synthetic
// marker values of x (once per execution context).
func (p *modPlan) bindJSON(x *execCtx) error {
	if p.json == nil || x.jsonDone {
		return nil
	}
	ti := p.ti
	raw, unset, err := x.eval(cql.Scalar(cql.KindText), p.json.term, "[json]")
	if err != nil {
		return err
	}
	if unset || raw == nil {
		return invalidf("Got null for INSERT JSON values")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return invalidf("Could not decode JSON string as a map: %v. (String was: %s)", err, raw)
	}
	vals := make([]bindings.Value, p.json.base+len(ti.cols))
	copy(vals, x.vals)
	seen := make([]bool, len(ti.cols))
	for k, v := range obj {
		name := strings.ToLower(k)
		if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
			name = strings.ReplaceAll(k[1:len(k)-1], `""`, `"`)
		}
		i, ok := ti.colIdx[name]
		if !ok {
			return invalidf("JSON values map contains unrecognized column: %s", k)
		}
		col := ti.cols[i]
		gv, err := jsonToGo(col.Type, v)
		if err != nil {
			return invalidf("Error decoding JSON value for %s: %v", col.Name, err)
		}
		bv, err := cql.EncodeGo(col.Type, gv)
		if err == nil {
			bv, err = cql.Canonicalize(col.Type, bv)
		}
		if err != nil {
			return invalidf("Error decoding JSON value for %s: %v", col.Name, err)
		}
		vals[p.json.base+i] = bindings.Value{Bytes: bv}
		seen[i] = true
	}
	for i := range ti.cols {
		if !seen[i] && p.json.unset && !ti.isKey(i) {
			vals[p.json.base+i] = bindings.Value{Unset: true}
		}
	}
	x.vals, x.jsonDone = vals, true
	return nil
}

// jsonToGo converts a decoded JSON value into what cql.EncodeGo takes for
// type t, as Cassandra's fromJSONObject does.
func jsonToGo(t *cql.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindTuple, cql.KindVector:
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidf("Expected a list, but got a %T: %v", v, v)
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			et := t.Elems[0]
			if t.Kind == cql.KindTuple {
				if i >= len(t.Elems) {
					return nil, invalidf("Tuple contains extra items (expected %d)", len(t.Elems))
				}
				et = t.Elems[i]
			}
			g, err := jsonToGo(et, e)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	case cql.KindMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, invalidf("Expected a map, but got a %T: %v", v, v)
		}
		out := make([]cql.MapEntry, 0, len(obj))
		for k, e := range obj {
			var kv any = k
			if kt := t.Elems[0]; kt.Kind != cql.KindText && kt.Kind != cql.KindAscii {
				d := json.NewDecoder(strings.NewReader(k))
				d.UseNumber()
				var parsed any
				if err := d.Decode(&parsed); err == nil {
					kv = parsed
				}
				g, err := jsonToGo(kt, kv)
				if err != nil {
					return nil, err
				}
				kv = g
			}
			g, err := jsonToGo(t.Elems[1], e)
			if err != nil {
				return nil, err
			}
			out = append(out, cql.MapEntry{Key: kv, Value: g})
		}
		return out, nil
	case cql.KindUDT:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, invalidf("Expected a map, but got a %T: %v", v, v)
		}
		out := map[string]any{}
		for i, f := range t.Fields {
			if e, ok := obj[f]; ok && i < len(t.Elems) {
				g, err := jsonToGo(t.Elems[i], e)
				if err != nil {
					return nil, err
				}
				out[f] = g
			}
		}
		return out, nil
	}
	switch x := v.(type) {
	case json.Number:
		return string(x), nil
	case string, bool:
		return x, nil
	}
	return nil, invalidf("Unable to make %s from %v", t, v)
}

// toJSON renders a serialized value as Cassandra's JSON (SELECT JSON).
func toJSON(t *cql.Type, b []byte) string {
	if b == nil {
		return "null"
	}
	switch t.Kind {
	case cql.KindFloat:
		if len(b) == 4 {
			return cql.JavaFloatString(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32)
		}
		return cql.FormatValue(t, b)
	case cql.KindDouble:
		if len(b) == 8 {
			return cql.JavaFloatString(math.Float64frombits(binary.BigEndian.Uint64(b)), 64)
		}
		return cql.FormatValue(t, b)
	case cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint, cql.KindCounter, cql.KindVarint,
		cql.KindDecimal, cql.KindBoolean:
		return cql.FormatValue(t, b)
	case cql.KindText, cql.KindAscii:
		return jsonString(string(b))
	case cql.KindInet:
		if len(b) == net.IPv4len || len(b) == net.IPv6len {
			return jsonString(javaHostAddress(net.IP(b))) // as Java prints it
		}
		return cql.FormatValue(t, b)
	case cql.KindList, cql.KindSet, cql.KindMap:
		return collectionJSON(t, b)
	case cql.KindVector:
		items, err := cql.SplitVector(t, b)
		if err != nil {
			return "null"
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = toJSON(t.Elems[0], it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case cql.KindTuple, cql.KindUDT:
		return tupleJSON(t, b)
	}
	s := cql.FormatValue(t, b)
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		s = strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return jsonString(s)
}

// collectionJSON renders a list or set as a JSON array, a map as an
// object (keys that are not text quoted as strings).
func collectionJSON(t *cql.Type, b []byte) string {
	per := 1
	if t.Kind == cql.KindMap {
		per = 2
	}
	items, err := splitCollection(b, per)
	if err != nil {
		return "null"
	}
	var sb strings.Builder
	open, end := "[", "]"
	if per == 2 {
		open, end = "{", "}"
	}
	sb.WriteString(open)
	for i := 0; i+per <= len(items); i += per {
		if i > 0 {
			sb.WriteString(", ")
		}
		if per == 2 {
			kt := t.Elems[0]
			if kt.Kind == cql.KindText || kt.Kind == cql.KindAscii {
				sb.WriteString(toJSON(kt, items[i]))
			} else {
				sb.WriteString(jsonString(toJSON(kt, items[i])))
			}
			sb.WriteString(": ")
			sb.WriteString(toJSON(t.Elems[1], items[i+1]))
		} else {
			sb.WriteString(toJSON(t.Elems[0], items[i]))
		}
	}
	sb.WriteString(end)
	return sb.String()
}

// tupleJSON renders a tuple as a JSON array, a UDT as an object of its
// fields.
func tupleJSON(t *cql.Type, b []byte) string {
	items, err := splitTuple(b)
	if err != nil {
		return "null"
	}
	var sb strings.Builder
	if t.Kind == cql.KindTuple {
		sb.WriteByte('[')
	} else {
		sb.WriteByte('{')
	}
	for i := range t.Elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		if t.Kind == cql.KindUDT && i < len(t.Fields) {
			sb.WriteString(jsonString(t.Fields[i]))
			sb.WriteString(": ")
		}
		var v []byte
		if i < len(items) {
			v = items[i]
		}
		sb.WriteString(toJSON(t.Elems[i], v))
	}
	if t.Kind == cql.KindTuple {
		sb.WriteByte(']')
	} else {
		sb.WriteByte('}')
	}
	return sb.String()
}

func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// jsonRows turns result rows into SELECT JSON's single "[json]" column.
func jsonRows(specs []bindings.ColumnSpec, rows [][][]byte) [][][]byte {
	out := make([][][]byte, len(rows))
	for i, r := range rows {
		var sb strings.Builder
		sb.WriteByte('{')
		for j, v := range r {
			if j > 0 {
				sb.WriteString(", ")
			}
			name := specs[j].Name
			// Cassandra's Selection.rowToJson quotes a name that is not
			// all lower case ("Q", "A b"; not system.abs(i), i + 1 or
			// an alias "x + y"), without escaping its quotes.
			if name != strings.ToLower(name) {
				name = `"` + name + `"`
			}
			sb.WriteString(jsonString(name))
			sb.WriteString(": ")
			sb.WriteString(toJSON(specs[j].Type, v))
		}
		sb.WriteByte('}')
		out[i] = [][]byte{[]byte(sb.String())}
	}
	return out
}
