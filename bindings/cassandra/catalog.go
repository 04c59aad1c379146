package cassandra

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// Catalog returns the user keyspaces of the cluster (system keyspaces are
// left out: dohyo serves those itself), discovered from system_schema. The
// snapshot is cached; it is reloaded after DDL through this backend and
// every SchemaRefresh in the background (only when the cluster's schema
// version changed). Catalog.Version is Cassandra's schema version.
func (b *Backend) Catalog(ctx context.Context) (*schema.Catalog, error) {
	return b.catalog.get(ctx)
}

type catalogCache struct {
	b        *Backend
	interval time.Duration

	// cur is the last snapshot with the invalidation count (gen) at the
	// start of its load. It is fresh while no invalidation followed: a
	// snapshot loaded while a DDL was being applied is never mistaken for
	// fresh, and readers never see the old snapshot as fresh during a
	// reload.
	cur atomic.Pointer[catalogSnap]
	gen atomic.Uint64

	loadMu sync.Mutex // one load at a time

	startOnce sync.Once
	stopOnce  sync.Once
	stopCh    chan struct{}
	done      chan struct{}
}

func newCatalogCache(b *Backend, interval time.Duration) *catalogCache {
	return &catalogCache{b: b, interval: interval, stopCh: make(chan struct{}), done: make(chan struct{})}
}

func (c *catalogCache) invalidate() { c.gen.Add(1) }

type catalogSnap struct {
	cat *schema.Catalog
	gen uint64
}

// fresh returns cur when no invalidation happened since its load started.
func (c *catalogCache) fresh() *schema.Catalog {
	snap := c.cur.Load()
	if snap == nil || snap.gen != c.gen.Load() {
		return nil
	}
	return snap.cat
}

func (c *catalogCache) get(ctx context.Context) (*schema.Catalog, error) {
	if cat := c.fresh(); cat != nil {
		return cat, nil
	}
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	if cat := c.fresh(); cat != nil {
		return cat, nil
	}
	g := c.gen.Load()
	cat, err := c.b.loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	c.store(cat, g)
	if c.interval > 0 {
		c.startOnce.Do(func() { go c.refresher() })
	}
	return cat, nil
}

// store publishes cat, whose load started at generation g.
func (c *catalogCache) store(cat *schema.Catalog, g uint64) {
	c.cur.Store(&catalogSnap{cat: cat, gen: g})
}

// refresher reloads the catalog periodically, so that schema changes made
// by other clients show up. Failures keep the previous snapshot.
func (c *catalogCache) refresher() {
	defer close(c.done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-c.stopCh:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.b.cfg.Timeout*3)
		c.loadMu.Lock()
		g := c.gen.Load()
		var prev *schema.Catalog
		if snap := c.cur.Load(); snap != nil {
			prev = snap.cat
		}
		cat, err := c.b.loadCatalog(ctx, prev)
		if err == nil {
			c.store(cat, g)
		} else {
			c.b.log.Warn("cassandra: schema refresh failed", "err", err)
		}
		c.loadMu.Unlock()
		cancel()
	}
}

func (c *catalogCache) stop() {
	c.stopOnce.Do(func() {
		close(c.stopCh)
		started := true
		c.startOnce.Do(func() { started = false })
		if started {
			<-c.done
		}
	})
}

// rowSet is a query result with cells addressed by column name.
type rowSet struct {
	cols map[string]int
	res  *bindings.Result
}

func (r *rowSet) get(row int, name string) any {
	i, ok := r.cols[name]
	if !ok {
		return nil
	}
	v, err := cql.DecodeGo(r.res.Columns[i].Type, r.res.Rows[row][i])
	if err != nil {
		return nil
	}
	return v
}

func (r *rowSet) str(row int, name string) string {
	s, _ := r.get(row, name).(string)
	return s
}

func (r *rowSet) has(name string) bool { _, ok := r.cols[name]; return ok }

// querySystem reads every page of a system query over the native client.
func (b *Backend) querySystem(ctx context.Context, q string) (*rowSet, error) {
	req := &bindings.Request{Query: q, PageSize: 5000}
	var all *bindings.Result
	for {
		res, err := b.executeNative(ctx, req, bindings.One, 0, false)
		if err != nil {
			return nil, fmt.Errorf("cassandra schema: %s: %w", q, err)
		}
		if res.Kind != bindings.ResultRows {
			return nil, fmt.Errorf("cassandra schema: %s: no rows result", q)
		}
		if all == nil {
			all = res
		} else {
			all.Rows = append(all.Rows, res.Rows...)
		}
		if len(res.PagingState) == 0 {
			break
		}
		req.PagingState = res.PagingState
	}
	rs := &rowSet{cols: map[string]int{}, res: all}
	for i, c := range all.Columns {
		rs.cols[c.Name] = i
	}
	return rs, nil
}

// loadCatalog discovers the schema. When prev has the cluster's current
// schema version it is returned unchanged.
func (b *Backend) loadCatalog(ctx context.Context, prev *schema.Catalog) (*schema.Catalog, error) {
	local, err := b.querySystem(ctx, "SELECT schema_version FROM system.local")
	if err != nil {
		return nil, err
	}
	version := ""
	if len(local.res.Rows) > 0 {
		if u, ok := local.get(0, "schema_version").(cql.UUID); ok {
			version = u.String()
		}
	}
	if prev != nil && version != "" && prev.Version == version {
		return prev, nil
	}
	sets := map[string]*rowSet{}
	for _, t := range []string{"keyspaces", "tables", "views", "columns", "types", "dropped_columns"} {
		if sets[t], err = b.querySystem(ctx, "SELECT * FROM system_schema."+t); err != nil {
			return nil, err
		}
	}
	cat := schema.New()
	cat.Version = version
	ks := sets["keyspaces"]
	for i := range ks.res.Rows {
		name := ks.str(i, "keyspace_name")
		if schema.IsSystemKeyspace(name) {
			continue
		}
		k := &schema.Keyspace{Name: name, Replication: stringMap(ks.get(i, "replication")), Tables: map[string]*schema.Table{}}
		k.DurableWrites, _ = ks.get(i, "durable_writes").(bool)
		cat.Keyspaces[name] = k
	}
	udts := discoverTypes(sets["types"])
	addUserTypes(cat, udts)
	tables := sets["tables"]
	for i := range tables.res.Rows {
		k := cat.Keyspaces[tables.str(i, "keyspace_name")]
		if k == nil {
			continue
		}
		t := &schema.Table{Keyspace: k.Name, Name: tables.str(i, "table_name"), Params: tableParams(tables, i)}
		if id, ok := tables.get(i, "id").(cql.UUID); ok {
			t.ID = id.String()
		}
		for _, f := range anySlice(tables.get(i, "flags")) {
			if f == "counter" {
				t.Counter = true
			}
		}
		t.Options = t.Params.OptionsCQL()
		k.Tables[t.Name] = t
	}
	discoverViews(cat, sets["views"])
	skip := map[*schema.Table]bool{}
	cols := sets["columns"]
	for i := range cols.res.Rows {
		t := cat.Table(cols.str(i, "keyspace_name"), cols.str(i, "table_name"))
		if t == nil {
			continue
		}
		col, err := discoverColumn(cols, i, udts[t.Keyspace])
		if err != nil {
			b.log.Warn("cassandra schema: table left out", "keyspace", t.Keyspace, "table", t.Name, "err", err)
			skip[t] = true
			continue
		}
		t.Columns = append(t.Columns, col)
	}
	dropped := sets["dropped_columns"]
	for i := range dropped.res.Rows {
		t := cat.Table(dropped.str(i, "keyspace_name"), dropped.str(i, "table_name"))
		if t == nil {
			continue
		}
		d := &schema.DroppedColumn{Name: dropped.str(i, "column_name"), Kind: schema.Regular}
		if dropped.str(i, "kind") == "static" {
			d.Kind = schema.Static
		}
		if typ, err := cql.ParseType(dropped.str(i, "type")); err == nil {
			d.Type = typ
		}
		if at, ok := dropped.get(i, "dropped_time").(time.Time); ok {
			d.DroppedAt = at.UnixMicro()
		}
		if t.Dropped == nil {
			t.Dropped = map[string]*schema.DroppedColumn{}
		}
		t.Dropped[d.Name] = d
	}
	for _, k := range cat.Keyspaces {
		for name, t := range k.Tables {
			if skip[t] || len(t.Columns) == 0 {
				delete(k.Tables, name)
				continue
			}
			t.Reindex()
		}
	}
	return cat, nil
}

// discoverViews adds Cassandra's materialized views (system_schema.views)
// to their keyspaces as tables with View set: system_schema.columns lists
// their columns like a table's.
func discoverViews(cat *schema.Catalog, views *rowSet) {
	for i := range views.res.Rows {
		k := cat.Keyspaces[views.str(i, "keyspace_name")]
		if k == nil {
			continue
		}
		t := &schema.Table{Keyspace: k.Name, Name: views.str(i, "view_name"), Params: tableParams(views, i),
			View: &schema.View{BaseTable: views.str(i, "base_table_name"), Where: views.str(i, "where_clause")}}
		t.View.IncludeAll, _ = views.get(i, "include_all_columns").(bool)
		if id, ok := views.get(i, "id").(cql.UUID); ok {
			t.ID = id.String()
		}
		if id, ok := views.get(i, "base_table_id").(cql.UUID); ok {
			t.View.BaseID = id.String()
		}
		t.Options = t.Params.OptionsCQL()
		k.Tables[t.Name] = t
	}
}

// discoverColumn builds one column from a system_schema.columns row.
func discoverColumn(cols *rowSet, i int, udts map[string]*cql.Type) (*schema.Column, error) {
	name := cols.str(i, "column_name")
	typ, err := cql.ParseType(cols.str(i, "type"))
	if err != nil {
		return nil, fmt.Errorf("column %s: type %q: %w", name, cols.str(i, "type"), err)
	}
	if err := resolveUDTs(typ, udts, 0); err != nil {
		return nil, fmt.Errorf("column %s: %w", name, err)
	}
	c := &schema.Column{Name: name, Type: typ, Position: -1}
	switch kind := cols.str(i, "kind"); kind {
	case "partition_key":
		c.Kind = schema.PartitionKey
	case "clustering":
		c.Kind = schema.Clustering
	case "static":
		c.Kind = schema.Static
	case "regular":
		c.Kind = schema.Regular
	default:
		return nil, fmt.Errorf("column %s: unknown kind %q", name, kind)
	}
	if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
		p, _ := cols.get(i, "position").(int32)
		c.Position = int(p)
	}
	c.Desc = cols.str(i, "clustering_order") == "desc"
	return c, nil
}

// addUserTypes lists each keyspace's discovered UDTs in the catalog (for
// DESCRIBE and the GraphQL schema API).
func addUserTypes(cat *schema.Catalog, udts map[string]map[string]*cql.Type) {
	for ksName, m := range udts {
		if k := cat.Keyspaces[ksName]; k != nil {
			k.Types = make(map[string]*schema.UserType, len(m))
			for name, u := range m {
				k.Types[name] = &schema.UserType{Keyspace: ksName, Name: name, FieldNames: u.Fields, FieldTypes: u.Elems}
			}
		}
	}
}

// discoverTypes returns each keyspace's UDTs by name, fields resolved.
func discoverTypes(rs *rowSet) map[string]map[string]*cql.Type {
	out := map[string]map[string]*cql.Type{}
	for i := range rs.res.Rows {
		ks, name := rs.str(i, "keyspace_name"), rs.str(i, "type_name")
		u := &cql.Type{Kind: cql.KindUDT, Keyspace: ks, Name: name}
		types := anySlice(rs.get(i, "field_types"))
		for j, f := range anySlice(rs.get(i, "field_names")) {
			fname, _ := f.(string)
			ftext := ""
			if j < len(types) {
				ftext, _ = types[j].(string)
			}
			ft, err := cql.ParseType(ftext)
			if err != nil {
				ft = cql.Scalar(cql.KindBlob) // unknown field type: bytes pass through
			}
			u.Fields = append(u.Fields, fname)
			u.Elems = append(u.Elems, ft)
		}
		if out[ks] == nil {
			out[ks] = map[string]*cql.Type{}
		}
		out[ks][name] = u
	}
	for ks, m := range out {
		for _, u := range m {
			for _, e := range u.Elems {
				_ = resolveUDTs(e, out[ks], 0)
			}
		}
	}
	return out
}

// resolveUDTs fills the fields of UDT references in t from udts.
func resolveUDTs(t *cql.Type, udts map[string]*cql.Type, depth int) error {
	if t == nil || depth > 32 {
		return nil
	}
	if t.Kind == cql.KindUDT && len(t.Fields) == 0 {
		u, ok := udts[t.Name]
		if !ok {
			return fmt.Errorf("unknown type %s", t.Name)
		}
		t.Keyspace, t.Fields = u.Keyspace, u.Fields
		t.Elems = make([]*cql.Type, len(u.Elems))
		for i, e := range u.Elems {
			c := *e
			t.Elems[i] = &c
		}
	}
	for _, e := range t.Elems {
		if err := resolveUDTs(e, udts, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// tableParams reads a system_schema.tables row over Cassandra 5.0's
// defaults; options an older Cassandra lacks keep their defaults.
func tableParams(rs *rowSet, i int) schema.TableParams {
	p := schema.DefaultTableParams()
	str := func(name string, dst *string) {
		if rs.has(name) {
			if v, ok := rs.get(i, name).(string); ok {
				*dst = v
			}
		}
	}
	boolean := func(name string, dst *bool) {
		if v, ok := rs.get(i, name).(bool); ok {
			*dst = v
		}
	}
	double := func(name string, dst *float64) {
		if v, ok := rs.get(i, name).(float64); ok {
			*dst = v
		}
	}
	integer := func(name string, dst *int) {
		if v, ok := rs.get(i, name).(int32); ok {
			*dst = int(v)
		}
	}
	strMap := func(name string, dst *map[string]string) {
		if rs.has(name) && rs.get(i, name) != nil {
			*dst = stringMap(rs.get(i, name))
		}
	}
	str("additional_write_policy", &p.AdditionalWritePolicy)
	boolean("allow_auto_snapshot", &p.AllowAutoSnapshot)
	double("bloom_filter_fp_chance", &p.BloomFilterFPChance)
	strMap("caching", &p.Caching)
	boolean("cdc", &p.CDC)
	str("comment", &p.Comment)
	strMap("compaction", &p.Compaction)
	strMap("compression", &p.Compression)
	str("memtable", &p.Memtable)
	double("crc_check_chance", &p.CRCCheckChance)
	integer("default_time_to_live", &p.DefaultTimeToLive)
	integer("gc_grace_seconds", &p.GCGraceSeconds)
	boolean("incremental_backups", &p.IncrementalBackups)
	integer("max_index_interval", &p.MaxIndexInterval)
	integer("memtable_flush_period_in_ms", &p.MemtableFlushPeriodInMs)
	integer("min_index_interval", &p.MinIndexInterval)
	str("read_repair", &p.ReadRepair)
	str("speculative_retry", &p.SpeculativeRetry)
	if entries, ok := rs.get(i, "extensions").([]cql.MapEntry); ok {
		p.Extensions = map[string]string{}
		for _, e := range entries {
			k, _ := e.Key.(string)
			v, _ := e.Value.([]byte)
			p.Extensions[k] = "0x" + hex.EncodeToString(v)
		}
	}
	return p
}

// stringMap converts a decoded map<text, text>.
func stringMap(v any) map[string]string {
	out := map[string]string{}
	entries, _ := v.([]cql.MapEntry)
	for _, e := range entries {
		k, _ := e.Key.(string)
		switch x := e.Value.(type) {
		case string:
			out[k] = x
		case nil:
			out[k] = ""
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// waitSchemaAgreement polls until every node reports the coordinator's
// schema version (as drivers do after DDL) or SchemaAgreement elapses; a
// timeout is logged, not returned: the DDL itself succeeded.
func (b *Backend) waitSchemaAgreement(ctx context.Context, nc *nativeConn) {
	deadline := time.Now().Add(b.cfg.SchemaAgreement)
	for {
		versions, err := schemaVersions(ctx, nc)
		if err != nil {
			b.log.Debug("cassandra: schema agreement check failed", "err", err)
			return
		}
		if len(versions) <= 1 {
			return
		}
		if !time.Now().Before(deadline) {
			b.log.Warn("cassandra: nodes disagree on the schema after DDL", "versions", versions)
			return
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// schemaVersions returns the distinct schema versions of the local node
// and its peers.
func schemaVersions(ctx context.Context, nc *nativeConn) ([]string, error) {
	set := map[string]bool{}
	for _, q := range []string{"SELECT schema_version FROM system.local", "SELECT schema_version FROM system.peers"} {
		resp, err := nc.roundTrip(ctx, &message.Query{Query: q, Options: &message.QueryOptions{Consistency: 1}})
		if err != nil {
			return nil, err
		}
		rows, ok := resp.(*message.RowsResult)
		if !ok {
			return nil, fmt.Errorf("%s: unexpected %T", q, resp)
		}
		for _, r := range rows.Data {
			if len(r) == 1 && r[0] != nil {
				set[hex.EncodeToString(r[0])] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

// InvalidateCatalog makes the next Catalog call reload the schema (dohyo's
// relay calls it on Cassandra's SCHEMA_CHANGE results and events).
func (b *Backend) InvalidateCatalog() { b.catalog.invalidate() }

// Addrs returns the contact points as host:port.
func (b *Backend) Addrs() []string { return b.cfg.addrs() }
