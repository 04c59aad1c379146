package systemks

import (
	"context"
	"crypto/md5"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// The system keyspaces are answered by dohyo itself (DESIGN D1): a
// bindings.Backend registered with the coordinator for these keyspaces
// evaluates SELECTs over small in-memory tables. Their rows are rendered on
// demand (system.local, system.peers) or from the merged catalog
// (system_schema.*), and cached per catalog version.

// virtualKeyspaces are routed to the virtual backend. Keyspaces without
// tables answer every query with "unconfigured table".
var virtualKeyspaces = []string{
	"system", "system_schema", "system_virtual_schema", "system_views",
	"system_auth", "system_distributed", "system_traces",
}

// vtable is one virtual table: its schema and a row source. Rows come in
// the order of meta.Columns, sorted by primary key.
type vtable struct {
	meta *schema.Table
	// rows renders all rows; cat is the merged catalog snapshot.
	rows func(ctx context.Context, cat *schema.Catalog) ([][][]byte, error)
	// cacheable rows depend only on the catalog version.
	cacheable bool
}

type Backend struct {
	cfg    Config
	tables map[string]map[string]*vtable // keyspace -> table
	// system holds the system keyspaces' own definitions, rendered into
	// system_schema next to the user keyspaces.
	system map[string]*schema.Keyspace

	mu    sync.Mutex
	cache map[*vtable]cachedRows
}

type cachedRows struct {
	version string
	rows    [][][]byte
}

var (
	_ bindings.Backend  = (*Backend)(nil)
	_ bindings.Preparer = (*Backend)(nil)
)

func New(cfg Config) *Backend {
	v := &Backend{
		cfg:    cfg,
		tables: map[string]map[string]*vtable{},
		system: map[string]*schema.Keyspace{},
		cache:  map[*vtable]cachedRows{},
	}
	v.addNodeTables()
	v.addSchemaTables()
	v.addAuthTables()
	v.addTraceTables()
	return v
}

// define registers a table from its CREATE TABLE text.
func (v *Backend) define(ks, comment, ddl string, p func(*schema.TableParams),
	rows func(context.Context, *schema.Catalog) ([][][]byte, error), cacheable bool) {
	t, err := tableFromDDL(ks, ddl)
	if err != nil {
		panic(fmt.Sprintf("systemks: bad virtual table definition: %v", err)) // a bug in this file's constants
	}
	t.Params.Comment = comment
	if p != nil {
		p(&t.Params)
	}
	if v.tables[ks] == nil {
		v.tables[ks] = map[string]*vtable{}
	}
	v.tables[ks][t.Name] = &vtable{meta: t, rows: rows, cacheable: cacheable}
	sk := v.system[ks]
	if sk == nil {
		sk = &schema.Keyspace{Name: ks, DurableWrites: true, Tables: map[string]*schema.Table{},
			Replication: map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}}
		v.system[ks] = sk
	}
	sk.Tables[t.Name] = t
}

// tableFromDDL builds a table from CREATE TABLE text, as Cassandra defines
// its system tables.
func tableFromDDL(ks, ddl string) (*schema.Table, error) {
	p, err := cql.Parse(ddl)
	if err != nil {
		return nil, err
	}
	ct, ok := p.Stmt.(*cql.CreateTable)
	if !ok {
		return nil, fmt.Errorf("not a CREATE TABLE: %s", ddl)
	}
	t := &schema.Table{Keyspace: ks, Name: ct.Name, ID: nameUUID(ks + ct.Name), Params: schema.DefaultTableParams()}
	pk := map[string]int{}
	for i, n := range ct.PartitionKey {
		pk[n] = i
	}
	ck := map[string]int{}
	for i, n := range ct.Clustering {
		ck[n] = i
	}
	desc := map[string]bool{}
	for _, o := range ct.ClusteringOrder {
		desc[o.Column] = o.Desc
	}
	for _, d := range ct.Columns {
		col := &schema.Column{Name: d.Name, Type: d.Type, Kind: schema.Regular, Position: -1}
		if i, ok := pk[d.Name]; ok {
			col.Kind, col.Position = schema.PartitionKey, i
		} else if i, ok := ck[d.Name]; ok {
			col.Kind, col.Position, col.Desc = schema.Clustering, i, desc[d.Name]
		} else if d.Static {
			col.Kind = schema.Static
		}
		t.Columns = append(t.Columns, col)
	}
	t.Reindex()
	return t, nil
}

// nameUUID is Java's UUID.nameUUIDFromBytes (MD5, version 3), which
// Cassandra uses for system table ids and which dohyo uses for host ids.
func nameUUID(s string) string {
	b := md5.Sum([]byte(s))
	b[6] = b[6]&0x0f | 0x30
	b[8] = b[8]&0x3f | 0x80
	return cql.UUID(b).String()
}

func (v *Backend) table(ks, name string) (*vtable, error) {
	if t := v.tables[ks][name]; t != nil {
		return t, nil
	}
	return nil, bindings.Errorf(bindings.CodeInvalid, "unconfigured table %s", name)
}

// rowsOf returns a table's rows, from the cache when they only depend on
// the catalog and it has not changed.
func (v *Backend) rowsOf(ctx context.Context, t *vtable) ([][][]byte, error) {
	cat, err := v.cfg.Coordinator.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if !t.cacheable {
		return t.rows(ctx, cat)
	}
	v.mu.Lock()
	c, ok := v.cache[t]
	v.mu.Unlock()
	if ok && c.version == cat.Version {
		return c.rows, nil
	}
	rows, err := t.rows(ctx, cat)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.cache[t] = cachedRows{version: cat.Version, rows: rows}
	v.mu.Unlock()
	return rows, nil
}

// keyspaceOf resolves the keyspace a statement names.
func keyspaceOf(stmtKS, sessionKS string) string {
	if stmtKS != "" {
		return stmtKS
	}
	return sessionKS
}

func notModifiable(ks string) error {
	return bindings.Errorf(bindings.CodeUnauthorized, "%s keyspace is not user-modifiable.", ks)
}

// Execute answers SELECTs; everything else is refused as Cassandra refuses
// changes to its system keyspaces.
func (v *Backend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	parsed := req.Parsed
	if parsed == nil {
		p, err := cql.Parse(req.Query)
		if err != nil {
			return nil, bindings.Errorf(bindings.CodeSyntaxError, "%s", err.Error())
		}
		parsed = p
	}
	switch st := parsed.Stmt.(type) {
	case *cql.Select:
		return v.selectRows(ctx, st, parsed, req)
	case *cql.Describe:
		return v.describe(ctx, st, req.Keyspace, req)
	}
	if e, ok := extensionsUpdate(parsed.Stmt, req.Keyspace); ok {
		return v.executeExtensions(ctx, e, req)
	}
	return nil, notModifiable(statementKeyspace(parsed.Stmt, req.Keyspace))
}

// statementKeyspace names the keyspace of a refused statement for the
// error message.
func statementKeyspace(st cql.Statement, session string) string {
	if b, ok := st.(*cql.Batch); ok && len(b.Statements) > 0 {
		return statementKeyspace(b.Statements[0], session)
	}
	if ks, ok := cql.KeyspaceOf(st); ok {
		return keyspaceOf(ks, session)
	}
	return session
}

// Batch refuses every batch: system tables are read-only.
func (v *Backend) Batch(_ context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	ks := req.Keyspace
	if len(req.Entries) > 0 && req.Entries[0].Parsed != nil {
		ks = statementKeyspace(req.Entries[0].Parsed.Stmt, req.Keyspace)
	}
	return nil, notModifiable(ks)
}

// Prepare describes a SELECT on a system table.
func (v *Backend) Prepare(_ context.Context, keyspace, query string) (*bindings.Prepared, error) {
	parsed, err := cql.Parse(query)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeSyntaxError, "%s", err.Error())
	}
	sel, ok := parsed.Stmt.(*cql.Select)
	if e, isExt := extensionsUpdate(parsed.Stmt, keyspace); !ok && isExt {
		specs, pk := e.bindSpecs(len(parsed.Markers))
		return &bindings.Prepared{Bind: specs, PKIndexes: pk, Keyspace: "system_schema", Table: map[bool]string{true: "views", false: "tables"}[e.view]}, nil
	}
	if !ok {
		return nil, notModifiable(statementKeyspace(parsed.Stmt, keyspace))
	}
	ks := keyspaceOf(sel.Keyspace, keyspace)
	t, err := v.table(ks, sel.Table)
	if err != nil {
		return nil, err
	}
	q, err := compileSelect(t, sel, parsed)
	if err != nil {
		return nil, err
	}
	return &bindings.Prepared{Bind: q.bind, PKIndexes: q.pkIndexes(), Result: q.columns, Keyspace: ks, Table: t.meta.Name}, nil
}

// Close releases nothing: the tables live in memory.
func (v *Backend) Close() error { return nil }

// ---- row building ----

// rowBuilder encodes rows given as column name -> Go value (see
// cql.EncodeGo), in the table's column order.
type rowBuilder struct {
	t    *schema.Table
	rows [][][]byte
	err  error
}

func (b *rowBuilder) add(vals map[string]any) {
	if b.err != nil {
		return
	}
	row := make([][]byte, len(b.t.Columns))
	for i, c := range b.t.Columns {
		v, ok := vals[c.Name]
		if !ok || v == nil {
			continue
		}
		enc, err := cql.EncodeGo(c.Type, v)
		if err != nil {
			b.err = fmt.Errorf("system table %s.%s, column %s: %w", b.t.Keyspace, b.t.Name, c.Name, err)
			return
		}
		row[i] = enc
	}
	b.rows = append(b.rows, row)
}

// sorted returns the rows in primary key order.
func (b *rowBuilder) sorted() ([][][]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	nkey := len(b.t.PartitionKey) + len(b.t.Clustering)
	sort.SliceStable(b.rows, func(i, j int) bool {
		for k := 0; k < nkey; k++ {
			c := b.t.Columns[k]
			if d := cql.Compare(c.Type, b.rows[i][k], b.rows[j][k]); d != 0 {
				return (d < 0) != c.Desc
			}
		}
		return false
	})
	return b.rows, nil
}

// lower is strings.ToLower, named for the kind and clustering_order columns.
func lower(s string) string { return strings.ToLower(s) }
