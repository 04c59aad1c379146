package schema

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/dohyo/dohyo/cql"
)

// catalogFormat is the version of the JSON encoding; bump it on any
// incompatible change and keep reading older versions.
const catalogFormat = 1

// The JSON encoding is explicit (not the Go structs) so that renaming a
// field never changes what is persisted in a backend.
type (
	jsonCatalog struct {
		Format    int            `json:"format"`
		Version   string         `json:"version"`
		Keyspaces []jsonKeyspace `json:"keyspaces"`
	}
	jsonKeyspace struct {
		Name          string            `json:"name"`
		Replication   map[string]string `json:"replication"`
		DurableWrites bool              `json:"durable_writes"`
		Tables        []jsonTable       `json:"tables"`
		Types         []jsonUserType    `json:"types,omitempty"`
		Functions     []jsonFunction    `json:"functions,omitempty"`
		Aggregates    []jsonAggregate   `json:"aggregates,omitempty"`
	}
	jsonUserType struct {
		Name   string      `json:"name"`
		Fields []string    `json:"fields"`
		Types  []*jsonType `json:"field_types"`
	}
	jsonTable struct {
		Name    string        `json:"name"`
		ID      string        `json:"id"`
		Columns []jsonColumn  `json:"columns"`
		Params  TableParams   `json:"params"`
		Counter bool          `json:"counter,omitempty"`
		Dropped []jsonDropped `json:"dropped,omitempty"`
		Indexes []jsonIndex   `json:"indexes,omitempty"`
		View    *jsonView     `json:"view,omitempty"`
	}
	jsonView struct {
		Base       string `json:"base"`
		BaseID     string `json:"base_id"`
		IncludeAll bool   `json:"include_all,omitempty"`
		Where      string `json:"where"`
	}
	jsonIndex struct {
		ID      string            `json:"id"`
		Name    string            `json:"name"`
		Column  string            `json:"column"`
		Target  string            `json:"target,omitempty"`
		Kind    string            `json:"kind"`
		SAI     bool              `json:"sai,omitempty"`
		Options map[string]string `json:"options,omitempty"`
	}
	jsonColumn struct {
		Name     string    `json:"name"`
		Type     *jsonType `json:"type"`
		Kind     string    `json:"kind"`
		Position int       `json:"position"`
		Desc     bool      `json:"desc,omitempty"`
	}
	jsonDropped struct {
		Name      string    `json:"name"`
		Type      *jsonType `json:"type"`
		Kind      string    `json:"kind"`
		DroppedAt int64     `json:"dropped_at"`
	}
	// jsonType is a structured type encoding: it needs no CQL parser and
	// cannot be ambiguous.
	jsonType struct {
		Kind     string      `json:"kind"`
		Frozen   bool        `json:"frozen,omitempty"`
		Elems    []*jsonType `json:"elems,omitempty"`
		Keyspace string      `json:"keyspace,omitempty"`
		Name     string      `json:"name,omitempty"`
		Fields   []string    `json:"fields,omitempty"`
		Custom   string      `json:"custom,omitempty"`
		Dim      int         `json:"dim,omitempty"`
	}
)

// MarshalJSON encodes the catalog for persistence (versioned, keyspaces and
// tables sorted by name so equal catalogs encode identically).
func (c *Catalog) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	out := jsonCatalog{Format: catalogFormat, Version: c.Version, Keyspaces: []jsonKeyspace{}}
	for _, ksName := range c.KeyspaceNames() {
		ks := c.Keyspaces[ksName]
		jk := jsonKeyspace{Name: ks.Name, Replication: ks.Replication, DurableWrites: ks.DurableWrites, Tables: []jsonTable{}}
		for _, tName := range ks.TableNames() {
			t := ks.Tables[tName]
			jt := jsonTable{Name: t.Name, ID: t.ID, Params: t.Params, Counter: t.Counter}
			for _, col := range t.Columns {
				jt.Columns = append(jt.Columns, jsonColumn{Name: col.Name, Type: encodeType(col.Type),
					Kind: col.Kind.String(), Position: col.Position, Desc: col.Desc})
			}
			names := make([]string, 0, len(t.Dropped))
			for n := range t.Dropped {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				d := t.Dropped[n]
				jt.Dropped = append(jt.Dropped, jsonDropped{Name: d.Name, Type: encodeType(d.Type),
					Kind: d.Kind.String(), DroppedAt: d.DroppedAt})
			}
			for _, ix := range t.Indexes {
				jt.Indexes = append(jt.Indexes, jsonIndex{ID: ix.ID, Name: ix.Name, Column: ix.Column, Target: ix.Target.String(),
					Kind: ix.Kind, SAI: ix.SAI, Options: ix.Options})
			}
			if v := t.View; v != nil {
				jt.View = &jsonView{Base: v.BaseTable, BaseID: v.BaseID, IncludeAll: v.IncludeAll, Where: v.Where}
			}
			jk.Tables = append(jk.Tables, jt)
		}
		for _, n := range ks.TypeNames() {
			u := ks.Types[n]
			ju := jsonUserType{Name: u.Name, Fields: u.FieldNames}
			for _, f := range u.FieldTypes {
				ju.Types = append(ju.Types, encodeType(f))
			}
			jk.Types = append(jk.Types, ju)
		}
		encodeFunctions(ks, &jk)
		out.Keyspaces = append(out.Keyspaces, jk)
	}
	return json.Marshal(out)
}

// UnmarshalCatalog decodes a catalog written by MarshalJSON. The result has
// default Options (see WithOptions).
func UnmarshalCatalog(data []byte) (*Catalog, error) {
	var in jsonCatalog
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("schema: decode catalog: %w", err)
	}
	if in.Format != catalogFormat {
		return nil, fmt.Errorf("schema: unsupported catalog format %d (want %d)", in.Format, catalogFormat)
	}
	c := New()
	c.Version = in.Version
	for _, jk := range in.Keyspaces {
		if jk.Name == "" || c.Keyspaces[jk.Name] != nil {
			return nil, fmt.Errorf("schema: decode catalog: bad or duplicate keyspace %q", jk.Name)
		}
		ks := &Keyspace{Name: jk.Name, Replication: jk.Replication, DurableWrites: jk.DurableWrites, Tables: map[string]*Table{}}
		for _, jt := range jk.Tables {
			t, err := decodeTable(jk.Name, jt)
			if err != nil {
				return nil, fmt.Errorf("schema: decode table %s.%s: %w", jk.Name, jt.Name, err)
			}
			if ks.Tables[t.Name] != nil {
				return nil, fmt.Errorf("schema: decode catalog: duplicate table %s.%s", jk.Name, t.Name)
			}
			ks.Tables[t.Name] = t
		}
		for _, ju := range jk.Types {
			u, err := decodeUserType(jk.Name, ju)
			if err != nil {
				return nil, fmt.Errorf("schema: decode type %s.%s: %w", jk.Name, ju.Name, err)
			}
			if ks.Types == nil {
				ks.Types = map[string]*UserType{}
			}
			ks.Types[u.Name] = u
		}
		if err := decodeFunctions(ks, jk); err != nil {
			return nil, fmt.Errorf("schema: decode keyspace %s: %w", jk.Name, err)
		}
		c.Keyspaces[ks.Name] = ks
	}
	return c, nil
}

func decodeTable(ks string, jt jsonTable) (*Table, error) {
	if jt.Name == "" {
		return nil, fmt.Errorf("missing name")
	}
	t := &Table{Keyspace: ks, Name: jt.Name, ID: jt.ID, Params: jt.Params, Counter: jt.Counter}
	seen := map[string]bool{}
	for _, jc := range jt.Columns {
		kind, ok := kindByName(jc.Kind)
		if !ok {
			return nil, fmt.Errorf("column %s: unknown kind %q", jc.Name, jc.Kind)
		}
		typ, err := decodeType(jc.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", jc.Name, err)
		}
		if seen[jc.Name] {
			return nil, fmt.Errorf("duplicate column %s", jc.Name)
		}
		seen[jc.Name] = true
		pos := jc.Position
		if kind == Regular || kind == Static {
			pos = -1
		}
		t.Columns = append(t.Columns, &Column{Name: jc.Name, Type: typ, Kind: kind, Position: pos, Desc: jc.Desc})
	}
	t.Reindex()
	for i, c := range t.PartitionKey {
		if c.Position != i {
			return nil, fmt.Errorf("partition key positions are not 0..%d", len(t.PartitionKey)-1)
		}
	}
	for i, c := range t.Clustering {
		if c.Position != i {
			return nil, fmt.Errorf("clustering positions are not 0..%d", len(t.Clustering)-1)
		}
	}
	if len(t.PartitionKey) == 0 {
		return nil, fmt.Errorf("no partition key")
	}
	for _, jd := range jt.Dropped {
		kind, ok := kindByName(jd.Kind)
		typ, err := decodeType(jd.Type)
		if !ok || err != nil {
			return nil, fmt.Errorf("dropped column %s: bad kind or type", jd.Name)
		}
		if t.Dropped == nil {
			t.Dropped = map[string]*DroppedColumn{}
		}
		t.Dropped[jd.Name] = &DroppedColumn{Name: jd.Name, Type: typ, Kind: kind, DroppedAt: jd.DroppedAt}
	}
	for _, ji := range jt.Indexes {
		ix := &Index{ID: ji.ID, Name: ji.Name, Column: ji.Column, Kind: ji.Kind, SAI: ji.SAI, Options: ji.Options}
		found := false
		for k := cql.IndexSimple; k <= cql.IndexFull; k++ {
			if k.String() == ji.Target {
				ix.Target, found = k, true
			}
		}
		if !found || t.Column(ji.Column) == nil {
			return nil, fmt.Errorf("index %s: bad target %q on %q", ji.Name, ji.Target, ji.Column)
		}
		t.Indexes = append(t.Indexes, ix)
	}
	if v := jt.View; v != nil {
		t.View = &View{BaseTable: v.Base, BaseID: v.BaseID, IncludeAll: v.IncludeAll, Where: v.Where}
	}
	t.Options = t.Params.OptionsCQL()
	return t, nil
}

func kindByName(s string) (ColumnKind, bool) {
	for k := PartitionKey; k <= Static; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

func encodeType(t *cql.Type) *jsonType {
	if t == nil {
		return nil
	}
	j := &jsonType{Kind: t.Kind.String(), Frozen: t.Frozen, Keyspace: t.Keyspace, Name: t.Name, Fields: t.Fields, Custom: t.Custom, Dim: t.Dim}
	for _, e := range t.Elems {
		j.Elems = append(j.Elems, encodeType(e))
	}
	return j
}

// maxTypeDepth bounds nesting so hostile input cannot exhaust the stack.
const maxTypeDepth = 64

func decodeType(j *jsonType) (*cql.Type, error) { return decodeTypeDepth(j, 0) }

func decodeTypeDepth(j *jsonType, depth int) (*cql.Type, error) {
	if j == nil {
		return nil, fmt.Errorf("missing type")
	}
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type nested too deeply")
	}
	t := &cql.Type{Frozen: j.Frozen, Keyspace: j.Keyspace, Name: j.Name, Fields: j.Fields, Custom: j.Custom}
	want := 0
	switch j.Kind {
	case "list", "set":
		t.Kind, want = map[string]cql.Kind{"list": cql.KindList, "set": cql.KindSet}[j.Kind], 1
	case "map":
		t.Kind, want = cql.KindMap, 2
	case "tuple":
		t.Kind, want = cql.KindTuple, len(j.Elems)
		if want == 0 {
			return nil, fmt.Errorf("empty tuple type")
		}
	case "udt":
		t.Kind, want = cql.KindUDT, len(j.Elems)
	case "vector":
		t.Kind, want, t.Dim = cql.KindVector, 1, j.Dim
		if j.Dim <= 0 {
			return nil, fmt.Errorf("vector dimension %d", j.Dim)
		}
	default:
		k, ok := cql.KindByName(j.Kind)
		if !ok || j.Kind == "varchar" {
			return nil, fmt.Errorf("unknown type kind %q", j.Kind)
		}
		t.Kind = k
	}
	if len(j.Elems) != want {
		return nil, fmt.Errorf("type %s: %d element types", j.Kind, len(j.Elems))
	}
	for _, e := range j.Elems {
		et, err := decodeTypeDepth(e, depth+1)
		if err != nil {
			return nil, err
		}
		t.Elems = append(t.Elems, et)
	}
	return t, nil
}

func decodeUserType(ks string, ju jsonUserType) (*UserType, error) {
	if ju.Name == "" || len(ju.Fields) != len(ju.Types) {
		return nil, fmt.Errorf("missing name or %d field names for %d types", len(ju.Fields), len(ju.Types))
	}
	u := &UserType{Keyspace: ks, Name: ju.Name, FieldNames: ju.Fields}
	for _, jt := range ju.Types {
		t, err := decodeType(jt)
		if err != nil {
			return nil, err
		}
		u.FieldTypes = append(u.FieldTypes, t)
	}
	return u, nil
}
