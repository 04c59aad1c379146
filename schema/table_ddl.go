package schema

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

func (c *Catalog) createTable(s *cql.CreateTable, current string) (*Keyspace, *Change, *Error) {
	written := s.Name // Cassandra names the table as written in parse-time errors
	if s.Keyspace != "" {
		written = s.Keyspace + "." + s.Name
	}
	defs, order, err := tableColumnDefs(s, written)
	if err != nil {
		return nil, nil, err
	}
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	if len(s.PartitionKey) == 0 {
		return nil, nil, invalidf("No PRIMARY KEY specifed for table '%s' (exactly one required)", written)
	}
	if s.PrimaryKeys > 1 {
		return nil, nil, invalidf("Multiple PRIMARY KEY specified for table '%s' (exactly one required)", written)
	}
	ks := c.Keyspaces[ksName]
	if ks == nil {
		return nil, nil, invalidf("Keyspace '%s' doesn't exist", ksName)
	}
	if ks.Tables[s.Name] != nil {
		if s.IfNotExists {
			return nil, nil, nil
		}
		return nil, nil, &Error{Code: AlreadyExists, Keyspace: ksName, Table: s.Name,
			Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", s.Name, ksName)}
	}
	if s.CompactStorage {
		return nil, nil, invalidf("COMPACT STORAGE tables are not supported by dohyo")
	}
	props, err := parseProperties(s.Options)
	if err != nil {
		return nil, nil, err
	}
	params, id, err := buildTableParams(DefaultTableParams(), props, true)
	if err != nil {
		return nil, nil, err
	}
	names, types, err := prepareColumnTypes(defs, ksName, ks.Types)
	if err != nil {
		return nil, nil, err
	}
	pk, err := checkPrimaryKey(s, defs, types)
	if err != nil {
		return nil, nil, err
	}
	if err := checkClusteringOrder(s, order); err != nil {
		return nil, nil, err
	}
	counter, err := checkStaticAndCounters(s, names, types, pk, params)
	if err != nil {
		return nil, nil, err
	}
	if !validName(s.Name) {
		return nil, nil, configf("%s.%s: Table name must not be empty, more than %d characters long, "+
			"or contain non-alphanumeric-underscore characters (got \"%s\")", ksName, s.Name, nameLength, s.Name)
	}
	if id == "" {
		var gerr error
		if id, gerr = randomUUID(c.opts); gerr != nil {
			return nil, nil, &Error{Code: Invalid, Message: gerr.Error()}
		}
	}
	t := &Table{Keyspace: ksName, Name: s.Name, ID: id, Params: params, Counter: counter}
	t.Columns = tableColumns(s, defs, names, types, pk, order)
	t.Reindex()
	t.Options = t.Params.OptionsCQL()
	return withTable(ks, s.Name, t), &Change{Type: ChangeCreated, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

// tableColumnDefs indexes a CREATE TABLE's column definitions by name and
// its CLUSTERING ORDER (column → ascending), refusing duplicates of either.
func tableColumnDefs(s *cql.CreateTable, written string) (map[string]cql.ColumnDef, map[string]bool, *Error) {
	defs := map[string]cql.ColumnDef{}
	for _, d := range s.Columns {
		if _, dup := defs[d.Name]; dup {
			return nil, nil, invalidf("Duplicate column '%s' declaration for table '%s'", d.Name, written)
		}
		defs[d.Name] = d
	}
	order := map[string]bool{}
	for _, o := range s.ClusteringOrder {
		if _, dup := order[o.Column]; dup {
			return nil, nil, invalidf("Duplicate column '%s' in CLUSTERING ORDER BY clause for table '%s'", o.Column, written)
		}
		order[o.Column] = !o.Desc
	}
	return defs, order, nil
}

// prepareColumnTypes resolves the columns' types in name order, as
// Cassandra's TreeMap does (so the first bad type in name order is the
// one reported).
func prepareColumnTypes(defs map[string]cql.ColumnDef, ksName string, udts map[string]*UserType) ([]string, map[string]*cql.Type, *Error) {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	types := map[string]*cql.Type{}
	for _, n := range names {
		t, err := prepareType(defs[n].Type, ksName, udts)
		if err != nil {
			return nil, nil, err
		}
		types[n] = t
	}
	return names, types, nil
}

// checkPrimaryKey checks the partition and clustering columns: known,
// not repeated, frozen, not counter or duration, not static. It returns
// the set of key columns.
func checkPrimaryKey(s *cql.CreateTable, defs map[string]cql.ColumnDef, types map[string]*cql.Type) (map[string]bool, *Error) {
	pk := map[string]bool{}
	for _, n := range append(append([]string(nil), s.PartitionKey...), s.Clustering...) {
		t, ok := types[n]
		if !ok {
			return nil, invalidf("Unknown column '%s' referenced in PRIMARY KEY for table '%s'", n, s.Name)
		}
		if pk[n] {
			return nil, invalidf("Duplicate column '%s' in PRIMARY KEY clause for table '%s'", n, s.Name)
		}
		pk[n] = true
		if t.MultiCell() {
			if t.IsCollection() {
				return nil, invalidf("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", rawTypeString(t), n)
			}
			return nil, invalidf("Invalid non-frozen user-defined type \"%s\" for PRIMARY KEY column '%s'", rawTypeString(t), n)
		}
		if t.Kind == cql.KindCounter {
			return nil, invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
		}
		if referencesDuration(t) {
			return nil, invalidf("duration type is not supported for PRIMARY KEY column '%s'", n)
		}
		if defs[n].Static {
			return nil, invalidf("Static column '%s' cannot be part of the PRIMARY KEY", n)
		}
		if cql.IsCompositeClass(t) && slices.Contains(s.Clustering, n) {
			// Cassandra orders them component by component, dohyo's key
			// codec would order their bytes: refused rather than misordered.
			return nil, &Error{Code: Invalid, Unsupported: true, Message: fmt.Sprintf(
				"clustering column '%s' of type %s is not supported by dohyo's wide-column engine", n, t)}
		}
	}
	return pk, nil
}

// checkClusteringOrder checks that CLUSTERING ORDER names clustering
// columns only, in their order, without gaps.
func checkClusteringOrder(s *cql.CreateTable, order map[string]bool) *Error {
	var notClustering []string
	for _, o := range s.ClusteringOrder {
		if !slices.Contains(s.Clustering, o.Column) {
			notClustering = append(notClustering, o.Column)
		}
	}
	if len(notClustering) > 0 {
		return invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: [%s] are not clustering columns",
			strings.Join(notClustering, ", "))
	}
	for i, o := range s.ClusteringOrder {
		if cc := s.Clustering[i]; o.Column != cc {
			if _, ok := order[cc]; ok {
				return invalidf("The order of columns in the CLUSTERING ORDER directive must match that "+
					"of the clustering columns (%s must appear before %s)", cc, o.Column)
			}
			return invalidf("Missing CLUSTERING ORDER for column %s", cc)
		}
	}
	return nil
}

// checkStaticAndCounters refuses static columns without clustering
// columns, counters mixed with other regular columns, and a default TTL
// on a counter table. It tells whether the table is a counter table.
func checkStaticAndCounters(s *cql.CreateTable, names []string, types map[string]*cql.Type, pk map[string]bool, params TableParams) (bool, *Error) {
	hasStatic := false
	for _, d := range s.Columns {
		hasStatic = hasStatic || d.Static
	}
	if len(s.Clustering) == 0 && hasStatic {
		return false, invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
	}
	counter := false
	for _, t := range types {
		counter = counter || t.Kind == cql.KindCounter
	}
	if !counter {
		return false, nil
	}
	for _, n := range names {
		if !pk[n] && types[n].Kind != cql.KindCounter {
			return false, invalidf("Cannot mix counter and non counter columns in the same table")
		}
	}
	if params.DefaultTimeToLive > 0 {
		return false, invalidf("Cannot set default_time_to_live on a table with counters")
	}
	return true, nil
}

// tableColumns lists a new table's columns: partition key, clustering
// (with its order), then the others by name.
func tableColumns(s *cql.CreateTable, defs map[string]cql.ColumnDef, names []string, types map[string]*cql.Type, pk, order map[string]bool) []*Column {
	var cols []*Column
	for i, n := range s.PartitionKey {
		cols = append(cols, &Column{Name: n, Type: types[n], Kind: PartitionKey, Position: i})
	}
	for i, n := range s.Clustering {
		asc, ok := order[n]
		cols = append(cols, &Column{Name: n, Type: types[n], Kind: Clustering, Position: i, Desc: ok && !asc})
	}
	for _, n := range names {
		if pk[n] {
			continue
		}
		kind := Regular
		if defs[n].Static {
			kind = Static
		}
		cols = append(cols, &Column{Name: n, Type: types[n], Kind: kind, Position: -1})
	}
	return cols
}

func (c *Catalog) dropTable(s *cql.DropTable, current string) (*Keyspace, *Change, *Error) {
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	if ks == nil || ks.Tables[s.Name] == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Table '%s.%s' doesn't exist", ksName, s.Name)
	}
	return withTable(ks, s.Name, nil), &Change{Type: ChangeDropped, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

func (c *Catalog) alterTable(s *cql.AlterTable, current string) (*Keyspace, *Change, *Error) {
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	var old *Table
	if ks != nil {
		old = ks.Tables[s.Name]
	}
	if old == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Table '%s.%s' doesn't exist", ksName, s.Name)
	}
	t := old.clone()
	switch s.Op {
	case cql.AlterType:
		return nil, nil, invalidf("Altering column types is no longer supported")
	case cql.AlterAdd:
		err = c.addColumns(t, s)
	case cql.AlterDrop:
		err = c.dropColumns(t, s)
	case cql.AlterRename:
		err = renameColumns(old, t, s)
	case cql.AlterWith:
		err = alterOptions(t, s)
	default:
		err = invalidf("Unsupported ALTER TABLE operation")
	}
	if err != nil {
		return nil, nil, err
	}
	if t.equal(old) {
		return nil, nil, nil
	}
	t.Reindex()
	t.Options = t.Params.OptionsCQL()
	return withTable(ks, s.Name, t), &Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

func (c *Catalog) addColumns(t *Table, s *cql.AlterTable) *Error {
	for _, d := range s.Add {
		typ, err := prepareType(d.Type, t.Keyspace, c.Keyspaces[t.Keyspace].Types)
		if err != nil {
			return err
		}
		if t.Column(d.Name) != nil {
			if s.IfColumnExists {
				continue
			}
			return invalidf("Column with name '%s' already exists", d.Name)
		}
		if d.Static && len(t.Clustering) == 0 {
			return invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		kind := Regular
		if d.Static {
			kind = Static
		}
		if dc := t.Dropped[d.Name]; dc != nil {
			if !typesCompatible(dc.Type, typ) {
				return invalidf("Cannot re-add previously dropped column '%s' of type %s, incompatible with previous type %s",
					d.Name, TypeString(typ), TypeString(dc.Type))
			}
			if dc.Kind != kind {
				return invalidf("Cannot re-add previously dropped column '%s' of kind %s, incompatible with previous kind %s",
					d.Name, kindName(kind), kindName(dc.Kind))
			}
			if t.Counter {
				return invalidf("Cannot re-add previously dropped counter column %s", d.Name)
			}
		}
		t.Columns = append(t.Columns, &Column{Name: d.Name, Type: typ, Kind: kind, Position: -1})
	}
	// TableMetadata.validate: counter and non-counter columns never mix.
	for _, col := range t.Columns {
		if col.Kind != Regular && col.Kind != Static {
			continue
		}
		isCounter := col.Type.Kind == cql.KindCounter
		if t.Counter && !isCounter {
			return configf("%s.%s: Cannot have a non counter column (\"%s\") in a counter table", t.Keyspace, t.Name, col.Name)
		}
		if !t.Counter && isCounter {
			return configf("%s.%s: Cannot have a counter column (\"%s\") in a non counter table", t.Keyspace, t.Name, col.Name)
		}
	}
	return nil
}

// kindName spells a column kind as Cassandra's ColumnMetadata.Kind enum.
func kindName(k ColumnKind) string {
	if k == Static {
		return "STATIC"
	}
	return "REGULAR"
}

func (c *Catalog) dropColumns(t *Table, s *cql.AlterTable) *Error {
	at := c.opts.now().UnixMicro()
	for _, name := range s.Drop {
		col := t.Column(name)
		if col == nil {
			if s.IfColumnExists {
				continue
			}
			return invalidf("Column %s was not found in table '%s'", name, qualified(t))
		}
		if col.Kind == PartitionKey || col.Kind == Clustering {
			return invalidf("Cannot drop PRIMARY KEY column %s", name)
		}
		if ixs := t.indexesOn(name); len(ixs) > 0 {
			return invalidf("Cannot drop column %s because it has dependent secondary indexes (%s)", name, strings.Join(ixs, ", "))
		}
		if col.Type.Kind == cql.KindUDT && col.Type.MultiCell() {
			return invalidf("Cannot drop non-frozen column %s of user type %s", name, cql.QuoteIdent(col.Type.Name))
		}
		t.Columns = removeColumn(t.Columns, name)
		if t.Dropped == nil {
			t.Dropped = map[string]*DroppedColumn{}
		}
		t.Dropped[name] = &DroppedColumn{Name: name, Type: col.Type, Kind: col.Kind, DroppedAt: at}
	}
	return nil
}

func renameColumns(old, t *Table, s *cql.AlterTable) *Error {
	from := s.RenameOrder
	if len(from) == 0 {
		for k := range s.Rename {
			from = append(from, k)
		}
		sort.Strings(from)
	}
	for _, o := range from {
		n := s.Rename[o]
		col := old.Column(o)
		if col == nil {
			if s.IfColumnExists {
				continue
			}
			return invalidf("Undefined column name %s in table %s", cql.QuoteIdent(o), qualified(old))
		}
		if col.Kind != PartitionKey && col.Kind != Clustering {
			return invalidf("Cannot rename non PRIMARY KEY column %s", o)
		}
		if ixs := old.indexesOn(o); len(ixs) > 0 {
			return invalidf("Cannot rename column %s because it has dependent secondary indexes (%s)", o, strings.Join(ixs, ", "))
		}
		if old.Column(n) != nil {
			return invalidf("Cannot rename column %s to %s in table '%s'; another column with that name already exists",
				o, n, qualified(old))
		}
		for i, c := range t.Columns {
			if c.Name == o {
				nc := *c
				nc.Name = n
				t.Columns[i] = &nc
			}
		}
	}
	return nil
}

func alterOptions(t *Table, s *cql.AlterTable) *Error {
	props, err := parseProperties(s.Options)
	if err != nil {
		return err
	}
	params, _, err := buildTableParams(t.Params, props, false)
	if err != nil {
		return err
	}
	if t.Counter && params.DefaultTimeToLive > 0 {
		return invalidf("Cannot set default_time_to_live on a table with counters")
	}
	t.Params = params
	return nil
}

// qualified spells a table as TableMetadata.toString: ks.t, quoted as needed.
func qualified(t *Table) string {
	return cql.QuoteIdent(t.Keyspace) + "." + cql.QuoteIdent(t.Name)
}

func removeColumn(cols []*Column, name string) []*Column {
	out := make([]*Column, 0, len(cols))
	for _, c := range cols {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

// clone copies the table's own structure (not the immutable columns and
// types it points to) so an ALTER can change it.
func (t *Table) clone() *Table {
	n := *t
	n.Columns = append([]*Column(nil), t.Columns...)
	n.Dropped = maps.Clone(t.Dropped)
	n.Options = nil
	return &n
}

// equal reports whether an ALTER left the table unchanged.
func (t *Table) equal(o *Table) bool {
	if len(t.Columns) != len(o.Columns) || len(t.Dropped) != len(o.Dropped) || !t.Params.equal(&o.Params) {
		return false
	}
	for _, c := range t.Columns {
		oc := o.Column(c.Name)
		if oc == nil || oc.Kind != c.Kind || oc.Position != c.Position || oc.Desc != c.Desc || !oc.Type.Equal(c.Type) {
			return false
		}
	}
	return true
}
