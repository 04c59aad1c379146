package engine

import (
	"fmt"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// tableInfo is the runtime view of one table: its schema, key codec, KV
// table spec and column lookups. Immutable; rebuilt when the table changes.
type tableInfo struct {
	t      *schema.Table
	spec   *kv.TableSpec
	codec  *KeyCodec
	cols   []*schema.Column // select order (schema.Table.Columns)
	colIdx map[string]int   // name -> index in cols
	quals  [][]byte         // per column: its qCell qualifier (non-key columns)
	pk     []int            // indexes of partition key columns, by position
	ck     []int            // indexes of clustering columns, by position
	static []int
	reg    []int
	hasCK  bool
	// counter tables hold only counter columns besides the primary key.
	counter    bool
	defaultTTL int32
	dropped    map[string]int64 // column name -> drop time (µs)
	// elemPrefix caches each multi-cell column's element qualifier prefix.
	elemPrefix [][]byte
	// indexes are the table's secondary indexes (index.go).
	indexes []*indexInfo
}

func newTableInfo(t *schema.Table, salt int, opts map[string]string) (*tableInfo, error) {
	ti := &tableInfo{t: t, cols: t.Columns, colIdx: make(map[string]int, len(t.Columns)), counter: t.Counter}
	ti.quals = make([][]byte, len(t.Columns))
	ti.elemPrefix = make([][]byte, len(t.Columns))
	var pkT, ckT []*cql.Type
	var desc []bool
	ti.pk = make([]int, len(t.PartitionKey))
	ti.ck = make([]int, len(t.Clustering))
	for i, c := range t.Columns {
		ti.colIdx[c.Name] = i
		switch c.Kind {
		case schema.PartitionKey:
			ti.pk[c.Position] = i
		case schema.Clustering:
			ti.ck[c.Position] = i
		case schema.Static:
			ti.static = append(ti.static, i)
		default:
			ti.reg = append(ti.reg, i)
		}
		if c.Kind == schema.Static || c.Kind == schema.Regular {
			ti.quals[i] = cellQual(c.Name)
			if c.Type.MultiCell() {
				ti.elemPrefix[i] = elemQualPrefix(c.Name)
			}
			if c.Type.Kind == cql.KindCounter {
				ti.counter = true
			}
		}
	}
	for _, i := range ti.pk {
		pkT = append(pkT, t.Columns[i].Type)
	}
	for _, i := range ti.ck {
		ckT = append(ckT, t.Columns[i].Type)
		desc = append(desc, t.Columns[i].Desc)
	}
	ti.hasCK = len(ti.ck) > 0
	codec, err := NewKeyCodec(pkT, ckT, desc, salt)
	if err != nil {
		return nil, err
	}
	ti.codec = codec
	ti.spec = &kv.TableSpec{Keyspace: t.Keyspace, Name: t.Name, ID: t.ID, Options: opts}
	// Pre-split points: "regions" from the store options (evenly spaced
	// within salt buckets), else one region per salt bucket.
	regions := salt
	if n, err := strconv.Atoi(opts["regions"]); err == nil && n > 1 {
		regions = n
	}
	ti.spec.SplitKeys = codec.SplitKeys(regions)
	ti.defaultTTL = int32(t.Params.DefaultTimeToLive)
	ti.indexes = newIndexInfos(ti, opts)
	if len(t.Dropped) > 0 {
		ti.dropped = make(map[string]int64, len(t.Dropped))
		for n, d := range t.Dropped {
			ti.dropped[n] = d.DroppedAt
		}
	}
	return ti, nil
}

// column returns the named column's index or an "Undefined column" error.
func (ti *tableInfo) column(name string) (int, error) {
	if i, ok := ti.colIdx[name]; ok {
		return i, nil
	}
	return 0, invalidf("Undefined column name %s in table %s.%s", name, ti.t.Keyspace, ti.t.Name)
}

func (ti *tableInfo) isKey(i int) bool {
	k := ti.cols[i].Kind
	return k == schema.PartitionKey || k == schema.Clustering
}

func (ti *tableInfo) qualifiedName() string { return ti.t.Keyspace + "." + ti.t.Name }

// lookupTable resolves a statement's table.
func (st *state) lookupTable(sessionKS, ks, name string) (*tableInfo, error) {
	if ks == "" {
		ks = sessionKS
	}
	if ks == "" {
		return nil, invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	if st.cat.Keyspace(ks) == nil {
		return nil, invalidf("keyspace %s does not exist", ks)
	}
	ti := st.tables[tableKey{ks, name}]
	if ti == nil {
		return nil, invalidf("table %s does not exist", name)
	}
	return ti, nil
}

// spec returns the ColumnSpec of column i.
func (ti *tableInfo) colSpec(i int) bindings.ColumnSpec {
	c := ti.cols[i]
	return bindings.ColumnSpec{Keyspace: ti.t.Keyspace, Table: ti.t.Name, Name: c.Name, Type: c.Type}
}

func (ti *tableInfo) specNamed(name string, t *cql.Type) bindings.ColumnSpec {
	return bindings.ColumnSpec{Keyspace: ti.t.Keyspace, Table: ti.t.Name, Name: name, Type: t}
}

func (ti *tableInfo) String() string { return fmt.Sprintf("%s.%s", ti.t.Keyspace, ti.t.Name) }
