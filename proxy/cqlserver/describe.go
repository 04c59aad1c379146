package cqlserver

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

// isDescribe reports whether a query text is a DESCRIBE statement. It is
// on every QUERY's path, so it looks at the first word only.
func isDescribe(q string) bool {
	q = strings.TrimLeftFunc(q, unicode.IsSpace)
	if len(q) < 4 || !strings.EqualFold(q[:4], "desc") {
		return false
	}
	end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
	if end < 0 {
		end = len(q)
	}
	w := strings.ToLower(q[:end])
	return w == "desc" || w == "describe"
}

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
func (v *virtualBackend) describe(ctx context.Context, query, sessionKS string, req *bindings.Request) (*bindings.Result, error) {
	w := describeWords(query)[1:]
	// WITH INTERNALS only adds internal details Cassandra keeps; ignore it.
	if n := len(w); n >= 2 && w[n-2].norm == "with" && w[n-1].norm == "internals" && !w[n-1].quoted {
		w = w[:n-2]
	}
	cat, err := v.srv.coord.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	kss := map[string]*schema.Keyspace{}
	for _, ks := range v.allKeyspaces(cat) {
		kss[ks.Name] = ks
	}
	kw := func(i int, s string) bool { return i < len(w) && !w[i].quoted && w[i].norm == s }
	var elems []element
	cols := elemColumns
	switch {
	case len(w) == 1 && kw(0, "cluster"):
		return v.describeCluster(ctx, cat, sessionKS)
	case len(w) == 1 && kw(0, "keyspaces"):
		cols = listColumns
		for _, name := range sortedKeyspaces(kss) {
			elems = append(elems, element{ks: name, typ: "keyspace", name: name})
		}
	case len(w) == 1 && (kw(0, "tables") || kw(0, "columnfamilies")):
		cols = listColumns
		names := sortedKeyspaces(kss)
		if sessionKS != "" {
			if kss[sessionKS] == nil {
				return nil, describeErr("'%s' not found in keyspaces", sessionKS)
			}
			names = []string{sessionKS}
		}
		for _, name := range names {
			for _, t := range kss[name].TableNames() {
				if kss[name].Tables[t].IsView() {
					continue
				}
				elems = append(elems, element{ks: name, typ: "table", name: t})
			}
		}
	case len(w) == 1 && kw(0, "types"):
		cols = listColumns
		for _, name := range sortedKeyspaces(kss) {
			for _, tn := range kss[name].TypeNames() {
				elems = append(elems, element{ks: name, typ: "type", name: tn})
			}
		}
	case len(w) == 1 && (kw(0, "functions") || kw(0, "aggregates")):
		cols = listColumns
		for _, name := range sortedKeyspaces(kss) {
			if kw(0, "functions") {
				elems = append(elems, functionElements(kss[name], "")...)
			} else {
				elems = append(elems, aggregateElements(kss[name], "")...)
			}
		}
	case (len(w) == 1 && kw(0, "schema")) || (len(w) == 2 && kw(0, "full") && kw(1, "schema")):
		full := kw(0, "full")
		for _, name := range sortedKeyspaces(kss) {
			if full || !schema.IsSystemKeyspace(name) {
				elems = append(elems, keyspaceElements(kss[name], false)...)
			}
		}
	case kw(0, "keyspace") || (kw(0, "only") && kw(1, "keyspace")):
		only := kw(0, "only")
		rest := w[1:]
		if only {
			rest = w[2:]
		}
		name := sessionKS
		if len(rest) == 1 {
			name = rest[0].norm
		} else if len(rest) > 1 {
			return nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: unexpected input in DESCRIBE KEYSPACE")
		}
		if name == "" {
			return nil, describeErr("No keyspace specified and no current keyspace")
		}
		ks := kss[name]
		if ks == nil {
			return nil, describeErr("'%s' not found in keyspaces", name)
		}
		elems = keyspaceElements(ks, only)
	case kw(0, "table") || kw(0, "columnfamily"):
		ksName, name, err := qualifiedName(w[1:], sessionKS)
		if err != nil {
			return nil, err
		}
		t, err := findTable(kss, ksName, name)
		if err != nil {
			return nil, err
		}
		elems = withViews(kss[ksName], t)
	case kw(0, "type") || kw(0, "function") || kw(0, "aggregate") || kw(0, "index") || kw(0, "materialized"):
		rest := w[1:]
		what := map[string]string{"type": "User defined type", "function": "User defined function",
			"aggregate": "User defined aggregate", "index": "Index", "materialized": "Materialized view"}[w[0].norm]
		if kw(0, "materialized") {
			if !kw(1, "view") {
				return nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: expecting VIEW after MATERIALIZED")
			}
			rest = w[2:]
		}
		ksName, name, err := qualifiedName(rest, sessionKS)
		if err != nil {
			return nil, err
		}
		if kss[ksName] == nil {
			return nil, describeErr("'%s' not found in keyspaces", ksName)
		}
		if u := kss[ksName].Types[name]; u != nil && kw(0, "type") {
			elems = []element{typeElement(u)}
			break
		}
		if t := kss[ksName].Tables[name]; t.IsView() && kw(0, "materialized") {
			elems = []element{tableElement(t)}
		} else if kw(0, "function") {
			elems = functionElements(kss[ksName], name)
		} else if kw(0, "aggregate") {
			elems = aggregateElements(kss[ksName], name)
		}
		if len(elems) > 0 {
			break
		}
		return nil, describeErr("%s '%s' not found in '%s'", what, name, ksName)
	case len(w) == 1 || (len(w) == 3 && w[1].norm == "." && !w[1].quoted):
		// DESCRIBE name: a keyspace, else a table (in that order).
		if len(w) == 1 {
			if ks := kss[w[0].norm]; ks != nil {
				elems = keyspaceElements(ks, false)
				break
			}
		}
		ksName, name := sessionKS, w[len(w)-1].norm
		if len(w) == 3 {
			ksName = w[0].norm
		} else if ksName == "" {
			ksName = name // as Cassandra: then "'name' not found in keyspaces"
		}
		if kss[ksName] == nil {
			return nil, describeErr("'%s' not found in keyspaces", ksName)
		}
		t := kss[ksName].Tables[name]
		if t == nil {
			return nil, describeErr("'%s' not found in keyspace '%s'", name, ksName)
		}
		elems = []element{tableElement(t)}
	default:
		return nil, bindings.Errorf(bindings.CodeSyntaxError, "line 1: no viable alternative in DESCRIBE statement")
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
func (v *virtualBackend) describeCluster(ctx context.Context, cat *schema.Catalog, sessionKS string) (*bindings.Result, error) {
	names := []string{"cluster", "partitioner", "snitch"}
	row := [][]byte{[]byte(v.srv.cfg.ClusterName), []byte("Murmur3Partitioner"), []byte("SimpleSnitch")}
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
