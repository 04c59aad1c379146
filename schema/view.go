package schema

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// View describes a materialized view. A view is stored in its keyspace's
// Tables like a table (it has columns, a primary key and options), with
// View set; system_schema lists it in views rather than tables.
type View struct {
	BaseTable string // in the view's keyspace
	BaseID    string
	// IncludeAll is set for SELECT *: columns added to the base later are
	// added to the view.
	IncludeAll bool
	// Where is the view's where_clause as Cassandra prints it.
	Where string
}

// IsView reports whether t is a materialized view.
func (t *Table) IsView() bool { return t != nil && t.View != nil }

// ViewsOf lists the views of base table name, sorted by name.
func (ks *Keyspace) ViewsOf(name string) []*Table {
	if ks == nil {
		return nil
	}
	var out []*Table
	for _, n := range ks.TableNames() {
		if t := ks.Tables[n]; t.IsView() && t.View.BaseTable == name {
			out = append(out, t)
		}
	}
	return out
}

// viewGuard refuses table statements Cassandra refuses on views or on the
// base tables of views; nil lets the statement proceed.
func (c *Catalog) viewGuard(stmt cql.Statement, current string) *Error {
	lookup := func(ks, name string) (*Keyspace, *Table) {
		if ks == "" {
			ks = current
		}
		k := c.Keyspace(ks)
		if k == nil {
			return nil, nil
		}
		return k, k.Tables[name]
	}
	switch s := stmt.(type) {
	case *cql.DropTable:
		ks, t := lookup(s.Keyspace, s.Name)
		if t.IsView() {
			return invalidf("Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead.")
		}
		if t != nil && len(ks.ViewsOf(t.Name)) > 0 {
			return invalidf("Cannot drop a table when materialized views still depend on it (%s)", ks.Name)
		}
	case *cql.AlterTable:
		ks, t := lookup(s.Keyspace, s.Name)
		if t.IsView() {
			return invalidf("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")
		}
		if t != nil && s.Op == cql.AlterDrop && len(ks.ViewsOf(t.Name)) > 0 {
			for _, n := range s.Drop {
				if t.Column(n) != nil {
					return invalidf("Cannot drop column %s on base table %s with materialized views", n, t.Name)
				}
			}
		}
	case *cql.CreateIndex:
		if _, t := lookup(s.Keyspace, s.Table); t.IsView() {
			return invalidf("Secondary indexes on materialized views aren't supported")
		}
	}
	return nil
}

// withBaseChange propagates an ALTER TABLE of a base table to its views:
// columns added to the base are added to the views that select every
// column, and renamed key columns are renamed in every view (its columns
// and its where_clause).
func withBaseChange(ks *Keyspace, s *cql.AlterTable) (*Keyspace, *Error) {
	bt := ks.Tables[s.Name]
	views := ks.ViewsOf(s.Name)
	if bt == nil || len(views) == 0 {
		return ks, nil
	}
	out := ks
	for _, v := range views {
		if s.Op == cql.AlterRename {
			nv, err := renameInView(v, s.Rename)
			if err != nil {
				return nil, err
			}
			out = withTable(out, nv.Name, nv)
			continue
		}
		if !v.View.IncludeAll {
			continue
		}
		nv := v.clone()
		changed := false
		for _, col := range bt.Columns {
			if col.Kind == Regular && nv.Column(col.Name) == nil {
				nv.Columns = append(nv.Columns, &Column{Name: col.Name, Type: col.Type, Kind: Regular, Position: -1})
				changed = true
			}
		}
		if changed {
			nv.Reindex()
			nv.Options = nv.Params.OptionsCQL()
			out = withTable(out, nv.Name, nv)
		}
	}
	return out, nil
}

// renameInView returns v with base columns renamed.
func renameInView(v *Table, rename map[string]string) (*Table, *Error) {
	nv := v.clone()
	for i, c := range nv.Columns {
		if n, ok := rename[c.Name]; ok {
			nc := *c
			nc.Name = n
			nv.Columns[i] = &nc
		}
	}
	where, err := cql.RenameInWhere(v.View.Where, rename)
	if err != nil {
		return nil, &Error{Code: Invalid, Message: fmt.Sprintf("view %s: %v", v.Name, err)}
	}
	view := *v.View
	view.Where = where
	nv.View = &view
	nv.Reindex()
	nv.Options = nv.Params.OptionsCQL()
	return nv, nil
}

func (c *Catalog) createView(s *cql.CreateView, current string) (*Keyspace, *Change, *Error) {
	if ks := cmp.Or(s.Keyspace, current); localSystemKeyspaces[strings.ToLower(ks)] {
		return nil, nil, &Error{Code: Unauthorized, Message: fmt.Sprintf("%s keyspace is not user-modifiable.", ks)}
	}
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	if s.HasMarkers {
		return nil, nil, invalidf("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")
	}
	if s.Aliased {
		return nil, nil, invalidf("Cannot use aliases when defining a materialized view")
	}
	if s.NonColumn {
		return nil, nil, invalidf("Can only select columns by name when defining a materialized view")
	}
	if s.BaseKeyspace != "" && s.BaseKeyspace != ksName {
		return nil, nil, invalidf("Cannot create a materialized view on a table in a different keyspace")
	}
	ks := c.Keyspaces[ksName]
	if ks == nil {
		return nil, nil, invalidf("Keyspace '%s' doesn't exist", ksName)
	}
	if old := ks.Tables[s.Name]; old != nil {
		if !old.IsView() {
			return nil, nil, invalidf("Cannot create materialized view '%s' - a table with the same name already exists", s.Name)
		}
		if s.IfNotExists {
			return nil, nil, nil
		}
		return nil, nil, &Error{Code: AlreadyExists, Keyspace: ksName, Table: s.Name,
			Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", s.Name, ksName)}
	}
	base := ks.Tables[s.Base]
	if base == nil || base.IsView() {
		return nil, nil, invalidf("Base table '%s' doesn't exist", s.Base)
	}
	if base.IsCounter() {
		return nil, nil, invalidf("Materialized views are not supported on counter tables")
	}
	if s.CompactStorage {
		return nil, nil, invalidf("COMPACT STORAGE tables are not allowed starting with version 4.0")
	}
	if s.HasToken {
		return nil, nil, invalidf("Cannot use token relation when defining a materialized view")
	}
	t, err := c.buildView(s, ks, base)
	if err != nil {
		return nil, nil, err
	}
	if !validName(s.Name) {
		return nil, nil, configf("%s.%s: Table name must not be empty, more than %d characters long, "+
			"or contain non-alphanumeric-underscore characters (got \"%s\")", ksName, s.Name, nameLength, s.Name)
	}
	return withTable(ks, s.Name, t), &Change{Type: ChangeCreated, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

// buildView checks a view's columns, restrictions and key against its
// base and returns the view's table.
func (c *Catalog) buildView(s *cql.CreateView, ks *Keyspace, base *Table) (*Table, *Error) {
	undefined := func(n string) *Error {
		return invalidf("Undefined column name %s in table %s", cql.QuoteIdent(n), qualified(base))
	}
	selected := map[string]bool{}
	if s.Star {
		for _, col := range base.Columns {
			if col.Kind == Static {
				return nil, invalidf("Cannot include static column '%s' in materialized view '%s'", col.Name, s.Name)
			}
			selected[col.Name] = true
		}
	}
	for _, n := range s.Columns {
		col := base.Column(n)
		if col == nil {
			return nil, undefined(n)
		}
		if col.Kind == Static {
			return nil, invalidf("Cannot include static column '%s' in materialized view '%s'", n, s.Name)
		}
		selected[n] = true
	}
	restricted := map[string]bool{}
	for _, r := range s.Where {
		for _, n := range r.Columns {
			col := base.Column(n)
			if col == nil {
				return nil, undefined(n)
			}
			if col.Kind != PartitionKey && col.Kind != Clustering && r.Op != cql.OpIsNotNull {
				return nil, invalidf("Non-primary key columns can only be restricted with 'IS NOT NULL' (got: %s restricted illegally)", n)
			}
			if col.Kind == Static {
				return nil, invalidf("Cannot include static column '%s' in materialized view '%s'", n, s.Name)
			}
			restricted[n] = true
		}
	}
	seen, err := checkViewKey(s, base, selected, restricted)
	if err != nil {
		return nil, err
	}
	props, err := parseProperties(s.Options)
	if err != nil {
		return nil, err
	}
	params, id, err := buildTableParams(DefaultTableParams(), props, true)
	if err != nil {
		return nil, err
	}
	if params.DefaultTimeToLive > 0 {
		return nil, invalidf("Cannot set default_time_to_live for a materialized view. Data in a materialized view always " +
			"expire at the same time than the corresponding data in the parent table.")
	}
	if id == "" {
		var gerr error
		if id, gerr = randomUUID(c.opts); gerr != nil {
			return nil, &Error{Code: Invalid, Message: gerr.Error()}
		}
	}
	t := &Table{Keyspace: ks.Name, Name: s.Name, ID: id, Params: params,
		View: &View{BaseTable: base.Name, BaseID: base.ID, IncludeAll: s.Star, Where: strings.Join(s.WhereText, " AND ")}}
	for i, n := range s.PartitionKey {
		t.Columns = append(t.Columns, &Column{Name: n, Type: base.Column(n).Type, Kind: PartitionKey, Position: i})
	}
	for i, n := range s.Clustering {
		desc := len(s.ClusteringOrder) > i && s.ClusteringOrder[i].Desc
		t.Columns = append(t.Columns, &Column{Name: n, Type: base.Column(n).Type, Kind: Clustering, Position: i, Desc: desc})
	}
	for _, col := range base.Columns {
		if selected[col.Name] && !seen[col.Name] {
			t.Columns = append(t.Columns, &Column{Name: col.Name, Type: col.Type, Kind: Regular, Position: -1})
		}
	}
	t.Reindex()
	t.Options = t.Params.OptionsCQL()
	return t, nil
}

func (c *Catalog) alterView(s *cql.AlterView, current string) (*Keyspace, *Change, *Error) {
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	old := (*Table)(nil)
	if ks != nil {
		old = ks.Tables[s.Name]
	}
	if !old.IsView() {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Materialized view '%s.%s' doesn't exist", ksName, s.Name)
	}
	t := old.clone()
	if err := alterOptions(t, &cql.AlterTable{Op: cql.AlterWith, Options: s.Options}); err != nil {
		return nil, nil, err
	}
	if t.Params.DefaultTimeToLive > 0 {
		return nil, nil, invalidf("Forbidden default_time_to_live detected for a materialized view. Data in a materialized view " +
			"always expire at the same time than the corresponding data in the parent table. default_time_to_live must be " +
			"set to zero, see CASSANDRA-12868 for more information")
	}
	if t.equal(old) {
		return nil, nil, nil
	}
	t.Options = t.Params.OptionsCQL()
	return withTable(ks, s.Name, t), &Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

func (c *Catalog) dropView(s *cql.DropView, current string) (*Keyspace, *Change, *Error) {
	ksName, err := tableKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	if ks == nil || !ks.Tables[s.Name].IsView() {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Materialized view '%s.%s' doesn't exist", ksName, s.Name)
	}
	return withTable(ks, s.Name, nil), &Change{Type: ChangeDropped, Target: TargetTable, Keyspace: ksName, Table: s.Name}, nil
}

// CreateViewStatement renders a view as Cassandra 5.0's DESCRIBE
// MATERIALIZED VIEW does.
func (t *Table) CreateViewStatement() string {
	var b strings.Builder
	b.WriteString("CREATE MATERIALIZED VIEW " + qualified(t) + " AS\n    SELECT ")
	if t.View.IncludeAll {
		b.WriteString("*")
	} else {
		names := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i] = cql.QuoteIdent(c.Name)
		}
		b.WriteString(strings.Join(names, ", "))
	}
	b.WriteString("\n    FROM " + cql.QuoteIdent(t.Keyspace) + "." + cql.QuoteIdent(t.View.BaseTable))
	b.WriteString("\n    WHERE " + t.View.Where)
	b.WriteString("\n    PRIMARY KEY (")
	if len(t.PartitionKey) > 1 {
		b.WriteString("(" + joinNames(t.PartitionKey) + ")")
	} else {
		b.WriteString(cql.QuoteIdent(t.PartitionKey[0].Name))
	}
	if len(t.Clustering) > 0 {
		b.WriteString(", " + joinNames(t.Clustering))
	}
	b.WriteString(")\n WITH ")
	writeOptions(&b, t, "default_time_to_live") // a view has none of its own
	return b.String()
}

// checkViewKey checks a view's primary key against its base: every base
// key column, at most one other column, each selected and restricted.
// It returns the set of view key columns.
func checkViewKey(s *cql.CreateView, base *Table, selected, restricted map[string]bool) (map[string]bool, *Error) {
	keyCols := append(append([]string(nil), s.PartitionKey...), s.Clustering...)
	seen := map[string]bool{}
	var nonPK, unrestricted []string
	for _, n := range keyCols {
		if seen[n] {
			return nil, invalidf("Duplicate column '%s' in PRIMARY KEY clause for materialized view '%s'", n, s.Name)
		}
		seen[n] = true
		col := base.Column(n)
		if col == nil || !selected[n] {
			return nil, invalidf("Unknown column '%s' referenced in PRIMARY KEY for materialized view '%s'", n, s.Name)
		}
		if col.Kind != PartitionKey && col.Kind != Clustering {
			nonPK = append(nonPK, n)
		}
		if !restricted[n] {
			unrestricted = append(unrestricted, n)
		}
	}
	if len(nonPK) > 1 {
		return nil, invalidf("Cannot include more than one non-primary key column in materialized view primary key (got %s)", strings.Join(nonPK, ", "))
	}
	var missing []string
	for _, col := range append(append([]*Column(nil), base.PartitionKey...), base.Clustering...) {
		if !seen[col.Name] {
			missing = append(missing, col.Name)
		}
	}
	if len(missing) > 0 {
		return nil, invalidf("Cannot create materialized view '%s' without primary key columns %s from base table '%s'",
			s.Name, strings.Join(missing, ", "), base.Name)
	}
	if len(unrestricted) > 0 {
		return nil, invalidf("Primary key columns %s must be restricted with 'IS NOT NULL' or otherwise", strings.Join(unrestricted, ", "))
	}
	if len(s.ClusteringOrder) > 0 {
		ok := len(s.ClusteringOrder) == len(s.Clustering)
		for i := 0; ok && i < len(s.ClusteringOrder); i++ {
			ok = s.ClusteringOrder[i].Column == s.Clustering[i]
		}
		if !ok {
			return nil, invalidf("Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive")
		}
	}
	return seen, nil
}
