package systemks

import (
	"context"
	"sort"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// Server-side DESCRIBE (Cassandra 4.0+, CASSANDRA-14825): cqlsh 6 sends
// DESCRIBE statements to the server and prints the rows. Answered here from
// the merged catalog plus the system keyspaces, in Cassandra's result
// layout: keyspace_name, type, name[, create_statement].

var (
	listColumns = []string{"keyspace_name", "type", "name"}
	elemColumns = []string{"keyspace_name", "type", "name", "create_statement"}
)

func describeSpecs(names []string) []bindings.ColumnSpec {
	out := make([]bindings.ColumnSpec, len(names))
	for i, n := range names {
		out[i] = bindings.ColumnSpec{Keyspace: "system", Table: "describe", Name: n, Type: cql.Scalar(cql.KindText)}
	}
	return out
}

// element is one described schema element.
type element struct {
	ks, typ, name, create string
	raw                   bool // name is already CQL text (functions: f(int))
}

func describeErr(format string, args ...any) error {
	return bindings.Errorf(bindings.CodeInvalid, format, args...)
}

// describe answers a DESCRIBE statement (parsed by cql.Parse) for a
// session whose keyspace is sessionKS.
func (v *Backend) describe(ctx context.Context, stmt *cql.Describe, sessionKS string, req *bindings.Request) (*bindings.Result, error) {
	cat, err := v.cfg.Coordinator.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	d := describeStmt{Describe: stmt, sessionKS: sessionKS, kss: map[string]*schema.Keyspace{}}
	for _, ks := range v.allKeyspaces(cat) {
		d.kss[ks.Name] = ks
	}
	if stmt.Kind == cql.DescribeCluster {
		return v.describeCluster(ctx, cat, sessionKS)
	}
	elems, cols, err := d.elements()
	if err != nil {
		return nil, err
	}
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: describeSpecs(cols)}
	for _, e := range elems {
		name := cql.QuoteIdent(e.name)
		if e.raw {
			name = e.name
		}
		row := [][]byte{[]byte(cql.QuoteIdent(e.ks)), []byte(e.typ), []byte(name)}
		if len(cols) == 4 {
			row = append(row, []byte(e.create))
		}
		res.Rows = append(res.Rows, row)
	}
	return page(res, req)
}

// describeStmt is a DESCRIBE statement over the keyspaces it can see.
type describeStmt struct {
	*cql.Describe
	sessionKS string
	kss       map[string]*schema.Keyspace
}

// elements dispatches on the statement's form: a listing (KEYSPACES,
// TABLES, TYPES, FUNCTIONS, AGGREGATES), a whole schema, or one named
// element.
func (d *describeStmt) elements() ([]element, []string, error) {
	switch d.Kind {
	case cql.DescribeKeyspaces, cql.DescribeTables, cql.DescribeTypes, cql.DescribeFunctions, cql.DescribeAggregates:
		elems, err := d.listing()
		return elems, listColumns, err
	case cql.DescribeSchema, cql.DescribeFullSchema:
		var elems []element
		for _, name := range sortedKeyspaces(d.kss) {
			if d.Kind == cql.DescribeFullSchema || !schema.IsSystemKeyspace(name) {
				elems = append(elems, keyspaceElements(d.kss[name], false)...)
			}
		}
		return elems, elemColumns, nil
	case cql.DescribeKeyspace:
		elems, err := d.keyspace()
		return elems, elemColumns, err
	case cql.DescribeTable:
		ksName, err := d.elementKeyspace()
		if err != nil {
			return nil, nil, err
		}
		t, err := findTable(d.kss, ksName, d.Name)
		if err != nil {
			return nil, nil, err
		}
		return withViews(d.kss[ksName], t), elemColumns, nil
	case cql.DescribeType, cql.DescribeFunction, cql.DescribeAggregate, cql.DescribeIndex, cql.DescribeView:
		elems, err := d.namedElement()
		return elems, elemColumns, err
	case cql.DescribeName:
		elems, err := d.bareName()
		return elems, elemColumns, err
	}
	return nil, nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: no viable alternative in DESCRIBE statement")
}

// listing answers DESCRIBE KEYSPACES, TABLES, TYPES, FUNCTIONS and
// AGGREGATES (TABLES only in the session's keyspace when it has one).
func (d *describeStmt) listing() ([]element, error) {
	var elems []element
	names := sortedKeyspaces(d.kss)
	switch d.Kind {
	case cql.DescribeKeyspaces:
		for _, name := range names {
			elems = append(elems, element{ks: name, typ: "keyspace", name: name})
		}
	case cql.DescribeTables:
		if d.sessionKS != "" {
			if d.kss[d.sessionKS] == nil {
				return nil, describeErr("'%s' not found in keyspaces", d.sessionKS)
			}
			names = []string{d.sessionKS}
		}
		for _, name := range names {
			for _, t := range d.kss[name].TableNames() {
				if !d.kss[name].Tables[t].IsView() {
					elems = append(elems, element{ks: name, typ: "table", name: t})
				}
			}
		}
	case cql.DescribeTypes:
		for _, name := range names {
			for _, tn := range d.kss[name].TypeNames() {
				elems = append(elems, element{ks: name, typ: "type", name: tn})
			}
		}
	case cql.DescribeFunctions:
		for _, name := range names {
			elems = append(elems, functionElements(d.kss[name], "")...)
		}
	default: // aggregates
		for _, name := range names {
			elems = append(elems, aggregateElements(d.kss[name], "")...)
		}
	}
	return elems, nil
}

// keyspace answers DESCRIBE [ONLY] KEYSPACE [name].
func (d *describeStmt) keyspace() ([]element, error) {
	name, err := d.elementKeyspace()
	if err != nil {
		return nil, err
	}
	ks := d.kss[name]
	if ks == nil {
		return nil, describeErr("'%s' not found in keyspaces", name)
	}
	return keyspaceElements(ks, d.Only), nil
}

// elementKeyspace is the keyspace a statement names: the one written,
// else the session's.
func (d *describeStmt) elementKeyspace() (string, error) {
	ks := d.Keyspace
	if ks == "" {
		ks = d.sessionKS
	}
	if ks == "" {
		return "", describeErr("No keyspace specified and no current keyspace")
	}
	return ks, nil
}

// namedElement answers DESCRIBE TYPE, FUNCTION, AGGREGATE, INDEX and
// MATERIALIZED VIEW of one (possibly qualified) name.
func (d *describeStmt) namedElement() ([]element, error) {
	what := map[cql.DescribeKind]string{cql.DescribeType: "User defined type", cql.DescribeFunction: "User defined function",
		cql.DescribeAggregate: "User defined aggregate", cql.DescribeIndex: "Index", cql.DescribeView: "Materialized view"}[d.Kind]
	ksName, err := d.elementKeyspace()
	if err != nil {
		return nil, err
	}
	ks := d.kss[ksName]
	if ks == nil {
		return nil, describeErr("'%s' not found in keyspaces", ksName)
	}
	var elems []element
	switch d.Kind {
	case cql.DescribeType:
		if u := ks.Types[d.Name]; u != nil {
			elems = []element{typeElement(u)}
		}
	case cql.DescribeView:
		if t := ks.Tables[d.Name]; t.IsView() {
			elems = []element{tableElement(t)}
		}
	case cql.DescribeFunction:
		elems = functionElements(ks, d.Name)
	case cql.DescribeAggregate:
		elems = aggregateElements(ks, d.Name)
	}
	if len(elems) == 0 {
		return nil, describeErr("%s '%s' not found in '%s'", what, d.Name, ksName)
	}
	return elems, nil
}

// bareName answers DESCRIBE name and DESCRIBE ks.name: a keyspace, else a
// table (in that order).
func (d *describeStmt) bareName() ([]element, error) {
	if d.Keyspace == "" {
		if ks := d.kss[d.Name]; ks != nil {
			return keyspaceElements(ks, false), nil
		}
	}
	ksName := d.Keyspace
	if ksName == "" {
		ksName = d.sessionKS
	}
	if ksName == "" {
		ksName = d.Name // as Cassandra: then "'name' not found in keyspaces"
	}
	if d.kss[ksName] == nil {
		return nil, describeErr("'%s' not found in keyspaces", ksName)
	}
	t := d.kss[ksName].Tables[d.Name]
	if t == nil {
		return nil, describeErr("'%s' not found in keyspace '%s'", d.Name, ksName)
	}
	return []element{tableElement(t)}, nil
}

func sortedKeyspaces(kss map[string]*schema.Keyspace) []string {
	names := make([]string, 0, len(kss))
	for n := range kss {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func findTable(kss map[string]*schema.Keyspace, ks, name string) (*schema.Table, error) {
	k := kss[ks]
	if k == nil {
		return nil, describeErr("'%s' not found in keyspaces", ks)
	}
	t := k.Tables[name]
	if t == nil || t.IsView() {
		return nil, describeErr("Table '%s' not found in keyspace '%s'", name, ks)
	}
	return t, nil
}

func tableElement(t *schema.Table) element {
	if t.IsView() {
		return element{ks: t.Keyspace, typ: "materialized_view", name: t.Name, create: t.CreateViewStatement()}
	}
	return element{ks: t.Keyspace, typ: "table", name: t.Name, create: t.CreateStatement()}
}

// keyspaceElements is the keyspace followed (unless only) by its tables.
func keyspaceElements(ks *schema.Keyspace, only bool) []element {
	out := []element{{ks: ks.Name, typ: "keyspace", name: ks.Name, create: ks.CreateStatement()}}
	if only {
		return out
	}
	for _, u := range ks.TypesInDependencyOrder() {
		out = append(out, typeElement(u))
	}
	out = append(out, functionElements(ks, "")...)
	out = append(out, aggregateElements(ks, "")...)
	for _, name := range ks.TableNames() {
		if t := ks.Tables[name]; !t.IsView() {
			out = append(out, withViews(ks, t)...)
		}
	}
	return out
}

// describeCluster answers DESCRIBE CLUSTER; with a current user keyspace
// it adds the token ranges and their owners, as Cassandra does.
func (v *Backend) describeCluster(ctx context.Context, cat *schema.Catalog, sessionKS string) (*bindings.Result, error) {
	names := []string{"cluster", "partitioner", "snitch"}
	row := [][]byte{[]byte(v.cfg.ClusterName), []byte("Murmur3Partitioner"), []byte("SimpleSnitch")}
	if sessionKS != "" && !schema.IsSystemKeyspace(sessionKS) && cat.Keyspace(sessionKS) != nil {
		self, peers, tokens := v.ring(ctx)
		owners := map[string][]string{}
		for _, n := range append([]node{self}, peers...) {
			for _, t := range tokens[n.key()] {
				owners[t] = []string{"/" + n.ip.String() + ":7000"}
			}
		}
		typ := cql.MapOf(cql.Scalar(cql.KindText), cql.FrozenOf(cql.ListOf(cql.Scalar(cql.KindText))))
		b, err := cql.EncodeGo(typ, owners)
		if err != nil {
			return nil, err
		}
		names = append(names, "range_ownership")
		row = append(row, b)
		res := &bindings.Result{Kind: bindings.ResultRows, Columns: describeSpecs(names), Rows: [][][]byte{row}}
		res.Columns[3].Type = typ
		return res, nil
	}
	return &bindings.Result{Kind: bindings.ResultRows, Columns: describeSpecs(names), Rows: [][][]byte{row}}, nil
}

func typeElement(u *schema.UserType) element {
	return element{ks: u.Keyspace, typ: "type", name: u.Name, create: schema.DescribeType(u)}
}
