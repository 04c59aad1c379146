package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Index is a secondary index of a table: a legacy 2i (Kind "COMPOSITES")
// or a storage-attached index (Kind "CUSTOM", SAI true).
type Index struct {
	// ID is unique per index incarnation (storage of a re-created index
	// starts empty).
	ID     string
	Name   string
	Column string
	Target cql.IndexTargetKind
	// Kind is system_schema.indexes.kind: COMPOSITES or CUSTOM.
	Kind string
	// SAI marks a storage-attached index (class sai/StorageAttachedIndex).
	SAI bool
	// Options are system_schema.indexes.options (target, class_name and
	// the user's WITH OPTIONS).
	Options map[string]string
}

// TargetText is the target as system_schema shows it: v, keys(m), full(f).
func (ix *Index) TargetText() string {
	col := cql.QuoteIdent(ix.Column)
	if ix.Target == cql.IndexSimple {
		return col
	}
	return ix.Target.String() + "(" + col + ")"
}

// Index returns the named index of the keyspace, and its table.
func (k *Keyspace) Index(name string) (*Table, *Index) {
	for _, t := range k.Tables {
		for _, ix := range t.Indexes {
			if ix.Name == name {
				return t, ix
			}
		}
	}
	return nil, nil
}

// saiClass reports whether a USING class names SAI.
func saiClass(class string) bool {
	switch strings.ToLower(class) {
	case "sai", "storageattachedindex", "org.apache.cassandra.index.sai.storageattachedindex":
		return true
	}
	return false
}

// saiOptions are the index options StorageAttachedIndex understands.
var saiOptions = map[string]bool{
	"case_sensitive": true, "normalize": true, "ascii": true,
	"similarity_function": true, "optimize_for": true,
	"index_analyzer": true, "query_analyzer": true,
}

func (c *Catalog) createIndex(s *cql.CreateIndex, current string) (*Keyspace, *Change, *Error) {
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	if ks == nil {
		return nil, nil, invalidf("Keyspace '%s' doesn't exist", ksName)
	}
	t := ks.Tables[s.Table]
	if t == nil {
		return nil, nil, invalidf("Table '%s' doesn't exist", s.Table)
	}
	ix, err := newIndex(s, t)
	if err != nil {
		return nil, nil, err
	}
	if s.Name != "" {
		if _, old := ks.Index(s.Name); old != nil {
			if s.IfNotExists {
				return nil, nil, nil
			}
			return nil, nil, invalidf("Index '%s' already exists", s.Name)
		}
		ix.Name = s.Name
	} else {
		ix.Name = freeIndexName(ks, t.Name, ix.Column)
	}
	for _, o := range t.Indexes {
		if o.Column == ix.Column && o.Target == ix.Target && o.SAI == ix.SAI {
			if s.IfNotExists {
				return nil, nil, nil
			}
			return nil, nil, invalidf("Index %s is a duplicate of existing index %s", ix.Name, o.Name)
		}
	}
	id, ierr := randomUUID(c.opts)
	if ierr != nil {
		return nil, nil, invalidf("index id: %v", ierr)
	}
	ix.ID = id
	n := t.clone()
	n.Indexes = append(slices.Clone(t.Indexes), ix)
	slices.SortFunc(n.Indexes, func(a, b *Index) int { return strings.Compare(a.Name, b.Name) })
	n.Options = t.Options
	return withTable(ks, t.Name, n), &Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: ksName, Table: t.Name}, nil
}

// freeIndexName is Cassandra's generated name: table_column_idx, then
// _1, _2, ... while taken in the keyspace.
func freeIndexName(ks *Keyspace, table, column string) string {
	base := table + "_" + column + "_idx"
	base = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return -1
	}, base)
	name := base
	for i := 1; ; i++ {
		if _, old := ks.Index(name); old == nil {
			return name
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
}

// newIndex validates the statement against the table as Cassandra 5.0's
// CreateIndexStatement does.
func newIndex(s *cql.CreateIndex, t *Table) (*Index, *Error) {
	if s.Custom && !s.HasUsing {
		return nil, &Error{Code: ConfigError, Message: "Unable to find custom indexer class 'legacy_local_table'"}
	}
	ix := &Index{Kind: "COMPOSITES", Options: map[string]string{}}
	if s.HasUsing {
		if !saiClass(s.Using) {
			if strings.Contains(strings.ToLower(s.Using), "sasi") {
				return nil, invalidf("SASI indexes are disabled. Enable in cassandra.yaml to use.")
			}
			return nil, &Error{Code: ConfigError, Message: fmt.Sprintf("Unable to find custom indexer class '%s'", s.Using)}
		}
		ix.SAI, ix.Kind = true, "CUSTOM"
		ix.Options["class_name"] = s.Using
	}
	if len(s.Targets) > 1 {
		if !ix.SAI {
			return nil, invalidf("Only CUSTOM indexes support multiple columns")
		}
		names := make([]string, len(s.Targets))
		for i, tg := range s.Targets {
			names[i] = tg.Column
		}
		return nil, invalidf("A storage-attached index cannot be created over multiple columns: %s", strings.Join(names, ", "))
	}
	if len(s.Targets) == 0 {
		return nil, invalidf("Only CUSTOM indexes can be created without specifying a target column")
	}
	if len(s.Options) > 0 {
		if !ix.SAI {
			return nil, invalidf("Cannot specify options for a non-CUSTOM index")
		}
		var unknown []string
		for k := range s.Options {
			if !saiOptions[strings.ToLower(k)] {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, &Error{Code: ConfigError, Message: fmt.Sprintf("Properties specified [%s] are not understood by StorageAttachedIndex", strings.Join(unknown, ", "))}
		}
	}
	if t.Counter {
		return nil, invalidf("Secondary indexes on counter tables aren't supported")
	}
	tg := s.Targets[0]
	col := t.Column(tg.Column)
	if col == nil {
		return nil, invalidf("Undefined column name %s in table %s", tg.Column, qualified(t))
	}
	ix.Column, ix.Target = col.Name, tg.Kind
	if err := checkIndexTarget(t, col, ix); err != nil {
		return nil, err
	}
	if err := checkIndexOptions(col, ix, s.Options); err != nil {
		return nil, err
	}
	if err := checkVectorIndex(s, col, ix); err != nil {
		return nil, err
	}
	if err := checkSAIType(col, ix); err != nil {
		return nil, err
	}
	for k, v := range s.Options {
		ix.Options[k] = v
	}
	ix.Options["target"] = ix.TargetText()
	return ix, nil
}

// checkIndexTarget validates the target function against the column type
// and settles a plain target on a collection as values().
func checkIndexTarget(t *Table, col *Column, ix *Index) *Error {
	typ := col.Type
	if referencesDuration(typ) {
		// CreateIndexStatement.validateIndexTarget, before anything else.
		switch {
		case typ.IsCollection():
			return invalidf("Secondary indexes are not supported on collections containing durations")
		case typ.Kind == cql.KindTuple:
			return invalidf("Secondary indexes are not supported on tuples containing durations")
		case typ.Kind == cql.KindUDT:
			return invalidf("Secondary indexes are not supported on UDTs containing durations")
		}
		return invalidf("Secondary indexes are not supported on duration columns")
	}
	if col.Kind == PartitionKey && len(t.PartitionKey) == 1 {
		return invalidf("Cannot create secondary index on the only partition key column %s", col.Name)
	}
	if ix.Target == cql.IndexSimple && typ.IsCollection() && !typ.Frozen {
		ix.Target = cql.IndexValues
	}
	switch ix.Target {
	case cql.IndexFull:
		if !typ.Frozen || !typ.IsCollection() {
			return invalidf("full() indexes can only be created on frozen collections")
		}
	case cql.IndexKeys, cql.IndexEntries:
		if typ.Kind != cql.KindMap {
			what := map[cql.IndexTargetKind]string{cql.IndexKeys: "keys", cql.IndexEntries: "entries"}[ix.Target]
			return invalidf("Cannot create index on %s of column %s with non-map type", what, col.Name)
		}
		fallthrough
	case cql.IndexValues:
		if typ.Frozen && typ.IsCollection() {
			return invalidf("Cannot create %s() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier",
				ix.Target, col.Name, col.Name)
		}
		if !typ.IsCollection() {
			return invalidf("Cannot create %s() index on %s. Non-collection columns only support simple indexes", ix.Target, col.Name)
		}
	case cql.IndexSimple:
		if typ.Frozen && typ.IsCollection() {
			return invalidf("Cannot create values() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier",
				col.Name, col.Name)
		}
	}
	return nil
}

// saiTypes are StorageAttachedIndex.SUPPORTED_TYPES: the native types an
// SAI index indexes (blob is not one of them), besides frozen values
// indexed whole and float vectors.
var saiTypes = map[cql.Kind]bool{
	cql.KindAscii: true, cql.KindBigint: true, cql.KindDate: true, cql.KindDouble: true, cql.KindFloat: true,
	cql.KindInt: true, cql.KindSmallint: true, cql.KindText: true, cql.KindTime: true, cql.KindTimestamp: true,
	cql.KindTimeuuid: true, cql.KindTinyint: true, cql.KindUUID: true, cql.KindInet: true, cql.KindVarint: true,
	cql.KindDecimal: true, cql.KindBoolean: true,
}

// checkSAIType refuses an SAI index of a type SAI cannot index, with
// Cassandra 5.0's message ("Unsupported type: blob"): the indexed terms
// are the column's values, or a collection's elements, keys, values, or
// keys and values (entries).
func checkSAIType(col *Column, ix *Index) *Error {
	if !ix.SAI {
		return nil
	}
	var terms []*cql.Type
	switch {
	case ix.Target == cql.IndexKeys:
		terms = col.Type.Elems[:1]
	case ix.Target == cql.IndexEntries:
		terms = col.Type.Elems[:2]
	case ix.Target == cql.IndexValues:
		terms = col.Type.Elems[len(col.Type.Elems)-1:]
	default:
		terms = []*cql.Type{col.Type}
	}
	for _, t := range terms {
		if t.Frozen || t.Kind == cql.KindVector || t.Kind == cql.KindTuple || t.Kind == cql.KindUDT {
			continue
		}
		if !saiTypes[t.Kind] {
			return invalidf("Unsupported type: %s", t)
		}
	}
	return nil
}

// checkIndexOptions validates SAI's analyzer options against the type.
func checkIndexOptions(col *Column, ix *Index, opts map[string]string) *Error {
	elem := col.Type
	switch {
	case ix.Target == cql.IndexKeys:
		elem = col.Type.Elems[0]
	case ix.Target == cql.IndexValues && col.Type.Kind == cql.KindMap:
		elem = col.Type.Elems[1]
	case ix.Target == cql.IndexValues:
		elem = col.Type.Elems[0]
	}
	for k := range opts {
		switch strings.ToLower(k) {
		case "case_sensitive", "normalize", "ascii":
			switch elem.Kind {
			case cql.KindText, cql.KindAscii:
			default:
				return invalidf("CQL type %s cannot be analyzed.", elem)
			}
		}
	}
	return nil
}

func (c *Catalog) dropIndex(s *cql.DropIndex, current string) (*Keyspace, *Change, *Error) {
	ksName := s.Keyspace
	if ksName == "" {
		ksName = current
	}
	if ksName == "" {
		return nil, nil, invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	ks := c.Keyspaces[ksName]
	var t *Table
	if ks != nil {
		t, _ = ks.Index(s.Name)
	}
	if t == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Index '%s.%s' doesn't exist'", ksName, s.Name)
	}
	n := t.clone()
	n.Indexes = slices.DeleteFunc(slices.Clone(t.Indexes), func(ix *Index) bool { return ix.Name == s.Name })
	n.Options = t.Options
	return withTable(ks, t.Name, n), &Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: ksName, Table: t.Name}, nil
}

// indexesOn lists the names of the indexes on column name.
func (t *Table) indexesOn(name string) []string {
	var out []string
	for _, ix := range t.Indexes {
		if ix.Column == name {
			out = append(out, ix.Name)
		}
	}
	return out
}

// SimilarityFunctions are the values of a vector index's
// similarity_function option (any case); COSINE is the default.
var SimilarityFunctions = []string{"EUCLIDEAN", "DOT_PRODUCT", "COSINE"}

// checkVectorIndex validates an SAI index on a vector column (its options
// similarity_function and optimize_for apply to vectors only), with
// Cassandra's messages.
func checkVectorIndex(s *cql.CreateIndex, col *Column, ix *Index) *Error {
	if !ix.SAI {
		return nil
	}
	isVector := col.Type.Kind == cql.KindVector && ix.Target == cql.IndexSimple
	if isVector && col.Type.Elems[0].Kind != cql.KindFloat {
		return invalidf("SAI ANN indexes are only allowed on vector columns with float elements")
	}
	for k, v := range s.Options {
		switch strings.ToLower(k) {
		case "similarity_function", "optimize_for":
			if !isVector {
				return invalidf("CQL type %s cannot have vector options", col.Type)
			}
		}
		if strings.ToLower(k) == "similarity_function" && !slices.Contains(SimilarityFunctions, strings.ToUpper(v)) {
			name := s.Name
			if name == "" {
				name = "null"
			}
			return invalidf("Similarity function %s was not recognized for index %s. Valid values are: %s",
				strings.ToUpper(v), name, strings.Join(SimilarityFunctions, ", "))
		}
	}
	return nil
}

// SimilarityFunction is an SAI vector index's similarity function
// (upper case; COSINE when the option is absent).
func (ix *Index) SimilarityFunction() string {
	for k, v := range ix.Options {
		if strings.ToLower(k) == "similarity_function" {
			return strings.ToUpper(v)
		}
	}
	return "COSINE"
}
