package systemks

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// Server-side DESCRIBE (Cassandra 4.0+, CASSANDRA-14825): cqlsh 6 sends
// DESCRIBE statements to the server and prints the rows. Answered here from
// the merged catalog plus the system keyspaces, in Cassandra's result
// layout: keyspace_name, type, name[, create_statement].

// IsDescribe reports whether a query text is a DESCRIBE statement
// (cql.IsDescribe).
func IsDescribe(q string) bool { return cql.IsDescribe(q) }

// dword is one word of a DESCRIBE statement: norm is lower-cased unless
// the word was double-quoted.
type dword struct {
	norm   string
	quoted bool
}

// describeWords splits a DESCRIBE statement into words, with '.' as a
// separate word and double-quoted identifiers kept verbatim.
func describeWords(q string) []dword {
	q = strings.TrimSpace(q)
	q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	var out []dword
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '.':
			out = append(out, dword{norm: "."})
			i++
		case c == '"':
			var b strings.Builder
			i++
			for i < len(q) {
				if q[i] == '"' {
					if i+1 < len(q) && q[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(q[i])
				i++
			}
			out = append(out, dword{norm: b.String(), quoted: true})
		default:
			j := i
			for j < len(q) && !unicode.IsSpace(rune(q[j])) && q[j] != '.' && q[j] != '"' {
				j++
			}
			out = append(out, dword{norm: strings.ToLower(q[i:j])})
			i = j
		}
	}
	return out
}

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

// describe runs a DESCRIBE statement for a session whose keyspace is
// sessionKS.
func (v *Backend) Describe(ctx context.Context, query, sessionKS string, req *bindings.Request) (*bindings.Result, error) {
	w := describeWords(query)[1:]
	// WITH INTERNALS only adds internal details Cassandra keeps; ignore it.
	if n := len(w); n >= 2 && w[n-2].norm == "with" && w[n-1].norm == "internals" && !w[n-1].quoted {
		w = w[:n-2]
	}
	cat, err := v.cfg.Coordinator.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	d := describeStmt{w: w, sessionKS: sessionKS, kss: map[string]*schema.Keyspace{}}
	for _, ks := range v.allKeyspaces(cat) {
		d.kss[ks.Name] = ks
	}
	if len(w) == 1 && d.kw(0, "cluster") {
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

// describeStmt is a DESCRIBE statement's words (after DESCRIBE) over the
// keyspaces it can see.
type describeStmt struct {
	w         []dword
	sessionKS string
	kss       map[string]*schema.Keyspace
}

// kw tells whether word i is the unquoted keyword s.
func (d *describeStmt) kw(i int, s string) bool {
	return i < len(d.w) && !d.w[i].quoted && d.w[i].norm == s
}

// elements dispatches on the statement's form: a listing (KEYSPACES,
// TABLES, TYPES, FUNCTIONS, AGGREGATES), a whole schema, or one named
// element.
func (d *describeStmt) elements() ([]element, []string, error) {
	w := d.w
	switch {
	case len(w) == 1 && (d.kw(0, "keyspaces") || d.kw(0, "tables") || d.kw(0, "columnfamilies") ||
		d.kw(0, "types") || d.kw(0, "functions") || d.kw(0, "aggregates")):
		elems, err := d.listing()
		return elems, listColumns, err
	case (len(w) == 1 && d.kw(0, "schema")) || (len(w) == 2 && d.kw(0, "full") && d.kw(1, "schema")):
		var elems []element
		for _, name := range sortedKeyspaces(d.kss) {
			if d.kw(0, "full") || !schema.IsSystemKeyspace(name) {
				elems = append(elems, keyspaceElements(d.kss[name], false)...)
			}
		}
		return elems, elemColumns, nil
	case d.kw(0, "keyspace") || (d.kw(0, "only") && d.kw(1, "keyspace")):
		elems, err := d.keyspace()
		return elems, elemColumns, err
	case d.kw(0, "table") || d.kw(0, "columnfamily"):
		ksName, name, err := qualifiedName(w[1:], d.sessionKS)
		if err != nil {
			return nil, nil, err
		}
		t, err := findTable(d.kss, ksName, name)
		if err != nil {
			return nil, nil, err
		}
		return withViews(d.kss[ksName], t), elemColumns, nil
	case d.kw(0, "type") || d.kw(0, "function") || d.kw(0, "aggregate") || d.kw(0, "index") || d.kw(0, "materialized"):
		elems, err := d.namedElement()
		return elems, elemColumns, err
	case len(w) == 1 || (len(w) == 3 && w[1].norm == "." && !w[1].quoted):
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
	switch {
	case d.kw(0, "keyspaces"):
		for _, name := range names {
			elems = append(elems, element{ks: name, typ: "keyspace", name: name})
		}
	case d.kw(0, "tables") || d.kw(0, "columnfamilies"):
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
	case d.kw(0, "types"):
		for _, name := range names {
			for _, tn := range d.kss[name].TypeNames() {
				elems = append(elems, element{ks: name, typ: "type", name: tn})
			}
		}
	case d.kw(0, "functions"):
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
	only := d.kw(0, "only")
	rest := d.w[1:]
	if only {
		rest = d.w[2:]
	}
	name := d.sessionKS
	if len(rest) == 1 {
		name = rest[0].norm
	} else if len(rest) > 1 {
		return nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: unexpected input in DESCRIBE KEYSPACE")
	}
	if name == "" {
		return nil, describeErr("No keyspace specified and no current keyspace")
	}
	ks := d.kss[name]
	if ks == nil {
		return nil, describeErr("'%s' not found in keyspaces", name)
	}
	return keyspaceElements(ks, only), nil
}

// namedElement answers DESCRIBE TYPE, FUNCTION, AGGREGATE, INDEX and
// MATERIALIZED VIEW of one (possibly qualified) name.
func (d *describeStmt) namedElement() ([]element, error) {
	rest := d.w[1:]
	what := map[string]string{"type": "User defined type", "function": "User defined function",
		"aggregate": "User defined aggregate", "index": "Index", "materialized": "Materialized view"}[d.w[0].norm]
	if d.kw(0, "materialized") {
		if !d.kw(1, "view") {
			return nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: expecting VIEW after MATERIALIZED")
		}
		rest = d.w[2:]
	}
	ksName, name, err := qualifiedName(rest, d.sessionKS)
	if err != nil {
		return nil, err
	}
	ks := d.kss[ksName]
	if ks == nil {
		return nil, describeErr("'%s' not found in keyspaces", ksName)
	}
	var elems []element
	switch {
	case d.kw(0, "type"):
		if u := ks.Types[name]; u != nil {
			elems = []element{typeElement(u)}
		}
	case d.kw(0, "materialized"):
		if t := ks.Tables[name]; t.IsView() {
			elems = []element{tableElement(t)}
		}
	case d.kw(0, "function"):
		elems = functionElements(ks, name)
	case d.kw(0, "aggregate"):
		elems = aggregateElements(ks, name)
	}
	if len(elems) == 0 {
		return nil, describeErr("%s '%s' not found in '%s'", what, name, ksName)
	}
	return elems, nil
}

// bareName answers DESCRIBE name and DESCRIBE ks.name: a keyspace, else a
// table (in that order).
func (d *describeStmt) bareName() ([]element, error) {
	w := d.w
	if len(w) == 1 {
		if ks := d.kss[w[0].norm]; ks != nil {
			return keyspaceElements(ks, false), nil
		}
	}
	ksName, name := d.sessionKS, w[len(w)-1].norm
	if len(w) == 3 {
		ksName = w[0].norm
	} else if ksName == "" {
		ksName = name // as Cassandra: then "'name' not found in keyspaces"
	}
	if d.kss[ksName] == nil {
		return nil, describeErr("'%s' not found in keyspaces", ksName)
	}
	t := d.kss[ksName].Tables[name]
	if t == nil {
		return nil, describeErr("'%s' not found in keyspace '%s'", name, ksName)
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

// qualifiedName reads "name" or "ks . name".
func qualifiedName(w []dword, sessionKS string) (ks, name string, err error) {
	switch {
	case len(w) == 1:
		ks, name = sessionKS, w[0].norm
	case len(w) == 3 && w[1].norm == "." && !w[1].quoted:
		ks, name = w[0].norm, w[2].norm
	default:
		return "", "", bindings.Errorf(bindings.CodeSyntaxError, "line 1: expecting a name in DESCRIBE")
	}
	if ks == "" {
		return "", "", describeErr("No keyspace specified and no current keyspace")
	}
	return ks, name, nil
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
