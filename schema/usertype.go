package schema

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// UserType is one user-defined type of a keyspace. FieldTypes are stored as
// written (normalized, UDT references resolved), in field order.
type UserType struct {
	Keyspace   string
	Name       string
	FieldNames []string
	FieldTypes []*cql.Type
}

// TargetType is the schema change target of CREATE/ALTER/DROP TYPE.
const TargetType = "TYPE"

// TypeNames returns the keyspace's user type names sorted.
func (k *Keyspace) TypeNames() []string {
	names := make([]string, 0, len(k.Types))
	for n := range k.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ColumnType returns the type a column of this user type has: KindUDT with
// Fields and Elems (each field value is one cell, so field types are frozen),
// non-frozen.
func (u *UserType) ColumnType() *cql.Type {
	t := &cql.Type{Kind: cql.KindUDT, Keyspace: u.Keyspace, Name: u.Name,
		Fields: slices.Clone(u.FieldNames), Elems: make([]*cql.Type, len(u.FieldTypes))}
	for i, f := range u.FieldTypes {
		t.Elems[i] = normalizeType(f, true)
	}
	return t
}

// resolveUDTs returns t with every user type reference filled in from types
// (fields and field types of the current definition); nil when a referenced
// type does not exist.
func resolveUDTs(t *cql.Type, types map[string]*UserType) *cql.Type {
	c := *t
	if t.Kind == cql.KindUDT {
		u := types[t.Name]
		if u == nil {
			return nil
		}
		r := u.ColumnType()
		r.Frozen = t.Frozen
		for i, e := range r.Elems {
			if r.Elems[i] = resolveUDTs(e, types); r.Elems[i] == nil {
				return nil
			}
		}
		return r
	}
	if len(t.Elems) > 0 {
		c.Elems = make([]*cql.Type, len(t.Elems))
		for i, e := range t.Elems {
			if c.Elems[i] = resolveUDTs(e, types); c.Elems[i] == nil {
				return nil
			}
		}
	}
	return &c
}

// usesType reports whether t is or contains the user type name.
func usesType(t *cql.Type, name string) bool {
	if t.Kind == cql.KindUDT && t.Name == name {
		return true
	}
	for _, e := range t.Elems {
		if usesType(e, name) {
			return true
		}
	}
	return false
}

func typeKeyspace(ks, current string) (string, *Error) {
	return tableKeyspace(ks, current)
}

func (c *Catalog) createType(s *cql.CreateType, current string) (*Keyspace, *Change, *Error) {
	ksName, err := typeKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	if ks == nil {
		return nil, nil, invalidf("Keyspace '%s' doesn't exist", ksName)
	}
	seen := map[string]bool{}
	for _, f := range s.Fields {
		if seen[f.Name] {
			return nil, nil, invalidf("Duplicate field name '%s' in type '%s'", f.Name, s.Name)
		}
		seen[f.Name] = true
	}
	if ks.Types[s.Name] != nil {
		if s.IfNotExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("A user type with name '%s' already exists", s.Name)
	}
	u := &UserType{Keyspace: ksName, Name: s.Name}
	for _, f := range s.Fields {
		ft, err := fieldType(f.Type, ks)
		if err != nil {
			return nil, nil, err
		}
		u.FieldNames = append(u.FieldNames, f.Name)
		u.FieldTypes = append(u.FieldTypes, ft)
	}
	return withType(ks, s.Name, u), &Change{Type: ChangeCreated, Target: TargetType, Keyspace: ksName, Table: s.Name}, nil
}

// fieldType prepares the type of a user type field.
func fieldType(raw *cql.Type, ks *Keyspace) (*cql.Type, *Error) {
	if raw != nil && raw.Kind == cql.KindUDT && !raw.Frozen {
		return nil, invalidf("A user type cannot contain non-frozen UDTs")
	}
	t, err := prepareType(raw, ks.Name, ks.Types)
	if err != nil {
		return nil, err
	}
	if t.Kind == cql.KindCounter {
		return nil, invalidf("A user type cannot contain counters")
	}
	if t.Kind == cql.KindUDT && !t.Frozen {
		return nil, invalidf("A user type cannot contain non-frozen UDTs")
	}
	return t, nil
}

func (c *Catalog) alterType(s *cql.AlterUserType, current string) (*Keyspace, *Change, *Error) {
	ksName, err := typeKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	var old *UserType
	if ks != nil {
		old = ks.Types[s.Name]
	}
	if old == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Type %s.%s doesn't exist", ksName, s.Name)
	}
	u := &UserType{Keyspace: old.Keyspace, Name: old.Name,
		FieldNames: slices.Clone(old.FieldNames), FieldTypes: slices.Clone(old.FieldTypes)}
	switch s.Op {
	case cql.AlterTypeAlter:
		return nil, nil, invalidf("Altering field types is no longer supported")
	case cql.AlterTypeAdd:
		if slices.Contains(u.FieldNames, s.Add.Name) {
			if s.IfFieldExists {
				return nil, nil, nil
			}
			return nil, nil, invalidf("Cannot add field %s to type %s.%s: a field with name %s already exists",
				s.Add.Name, ksName, s.Name, s.Add.Name)
		}
		ft, err := fieldType(s.Add.Type, ks)
		if err != nil {
			return nil, nil, err
		}
		if users := tablesUsingInPartitionKey(ks, s.Name); len(users) > 0 {
			return nil, nil, invalidf("Cannot add new field %s of type %s to user type %s.%s as the type is being used in partition key by the following tables: %s",
				s.Add.Name, TypeString(ft), ksName, s.Name, strings.Join(users, ", "))
		}
		u.FieldNames = append(u.FieldNames, s.Add.Name)
		u.FieldTypes = append(u.FieldTypes, ft)
	case cql.AlterTypeRename:
		for i, from := range s.RenameFrom {
			j := slices.Index(u.FieldNames, from)
			if j < 0 {
				if s.IfFieldExists {
					continue
				}
				return nil, nil, invalidf("Unkown field %s in user type %s.%s", from, ksName, s.Name)
			}
			u.FieldNames[j] = s.RenameTo[i]
		}
		seen := map[string]bool{}
		for _, n := range u.FieldNames {
			if seen[n] {
				// Cassandra 5.0 names the keyspace here, not the type.
				return nil, nil, invalidf("Duplicate field name %s in type %s", n, ksName)
			}
			seen[n] = true
		}
		if slices.Equal(u.FieldNames, old.FieldNames) {
			return nil, nil, nil
		}
	}
	next, rerr := rebuildTypes(withType(ks, s.Name, u))
	if rerr != nil {
		return nil, nil, rerr
	}
	return next, &Change{Type: ChangeUpdated, Target: TargetType, Keyspace: ksName, Table: s.Name}, nil
}

// rebuildTypes re-resolves every user type reference of ks's types and
// table columns after a type changed.
func rebuildTypes(ks *Keyspace) (*Keyspace, *Error) {
	for _, n := range ks.TypeNames() {
		u := *ks.Types[n]
		u.FieldTypes = slices.Clone(u.FieldTypes)
		ks.Types[n] = &u
		for i, f := range u.FieldTypes {
			r := resolveUDTs(f, ks.Types)
			if r == nil {
				return nil, invalidf("Unknown type in field %s of %s.%s", u.FieldNames[i], ks.Name, n)
			}
			u.FieldTypes[i] = r
		}
	}
	tables := maps.Clone(ks.Tables)
	for name, t := range tables {
		var changed *Table
		for i, col := range t.Columns {
			if !hasUDT(col.Type) {
				continue
			}
			if changed == nil {
				changed = t.clone()
			}
			r := resolveUDTs(col.Type, ks.Types)
			if r == nil {
				return nil, invalidf("Unknown type of column %s of %s.%s", col.Name, ks.Name, name)
			}
			cc := *col
			cc.Type = r
			changed.Columns[i] = &cc
		}
		if changed != nil {
			changed.Reindex()
			changed.Options = changed.Params.OptionsCQL()
			tables[name] = changed
		}
	}
	ks.Tables = tables
	return ks, nil
}

func hasUDT(t *cql.Type) bool {
	if t.Kind == cql.KindUDT {
		return true
	}
	for _, e := range t.Elems {
		if hasUDT(e) {
			return true
		}
	}
	return false
}

func tablesUsingInPartitionKey(ks *Keyspace, name string) []string {
	var out []string
	for _, tn := range ks.TableNames() {
		for _, c := range ks.Tables[tn].PartitionKey {
			if usesType(c.Type, name) {
				out = append(out, ks.Name+"."+tn)
				break
			}
		}
	}
	return out
}

func (c *Catalog) dropType(s *cql.DropType, current string) (*Keyspace, *Change, *Error) {
	ksName, err := typeKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	ks := c.Keyspaces[ksName]
	if ks == nil || ks.Types[s.Name] == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Type '%s.%s' doesn't exist", ksName, s.Name)
	}
	var types, tables []string
	for _, n := range ks.TypeNames() {
		if n == s.Name {
			continue
		}
		for _, f := range ks.Types[n].FieldTypes {
			if usesType(f, s.Name) {
				types = append(types, n)
				break
			}
		}
	}
	if len(types) > 0 {
		return nil, nil, invalidf("Cannot drop user type '%s.%s' as it is still used by user types %s", ksName, s.Name, strings.Join(types, ", "))
	}
	if err := checkTypeUnusedByFunctions(ks, s.Name); err != nil {
		return nil, nil, err
	}
	for _, tn := range ks.TableNames() {
		for _, col := range ks.Tables[tn].Columns {
			if usesType(col.Type, s.Name) {
				tables = append(tables, tn)
				break
			}
		}
	}
	if len(tables) > 0 {
		return nil, nil, invalidf("Cannot drop user type '%s.%s' as it is still used by tables %s", ksName, s.Name, strings.Join(tables, ", "))
	}
	return withType(ks, s.Name, nil), &Change{Type: ChangeDropped, Target: TargetType, Keyspace: ksName, Table: s.Name}, nil
}

// withType returns a copy of ks with user type u set (removed when nil).
func withType(ks *Keyspace, name string, u *UserType) *Keyspace {
	n := *ks
	n.Types = maps.Clone(ks.Types)
	if n.Types == nil {
		n.Types = map[string]*UserType{}
	}
	if u == nil {
		delete(n.Types, name)
	} else {
		n.Types[name] = u
	}
	return &n
}

// DescribeType renders CREATE TYPE as Cassandra's DESCRIBE prints it.
func DescribeType(u *UserType) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TYPE %s.%s (\n", cql.QuoteIdent(u.Keyspace), cql.QuoteIdent(u.Name))
	for i, n := range u.FieldNames {
		sep := ","
		if i == len(u.FieldNames)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s %s%s\n", cql.QuoteIdent(n), TypeString(u.FieldTypes[i]), sep)
	}
	b.WriteString(");")
	return b.String()
}

// TypesInDependencyOrder lists the keyspace's user types by name, each after
// the types its fields use, so a schema script (DESCRIBE, capture dumps)
// replays.
func (k *Keyspace) TypesInDependencyOrder() []*UserType {
	var out []*UserType
	done := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		u := k.Types[name]
		if u == nil || done[name] {
			return
		}
		done[name] = true
		for _, ft := range u.FieldTypes {
			for _, dep := range udtNames(ft) {
				visit(dep)
			}
		}
		out = append(out, u)
	}
	for _, name := range k.TypeNames() {
		visit(name)
	}
	return out
}

func udtNames(t *cql.Type) []string {
	var out []string
	if t.Kind == cql.KindUDT {
		out = append(out, t.Name)
	}
	for _, e := range t.Elems {
		out = append(out, udtNames(e)...)
	}
	return out
}
