package cqlserver

import (
	"fmt"
	"math"
	"math/big"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/cql"
)

// rowMaps turns a result into one map per row, column name -> raw value.
func rowMaps(r *message.RowsResult) []map[string][]byte {
	var out []map[string][]byte
	for _, row := range r.Data {
		m := map[string][]byte{}
		for i, c := range r.Metadata.Columns {
			m[c.Name] = row[i]
		}
		out = append(out, m)
	}
	return out
}

func decode(t *testing.T, typ string, b []byte) any {
	t.Helper()
	ty, err := cql.ParseType(typ)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cql.DecodeGo(ty, b)
	if err != nil {
		t.Fatalf("decode %s: %v", typ, err)
	}
	return v
}

func str(b []byte) string { return string(b) }

func TestSystemLocalAndPeers(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.Peers = []string{"127.0.0.2:9042", "127.0.0.3:9042"}
	})
	addr := ts.listen(t)
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			c := ts.tcpClient(t, addr, v)
			c.startup("")
			r := c.rows("SELECT * FROM system.local WHERE key='local'", nil)
			if len(r.Data) != 1 {
				t.Fatalf("system.local has %d rows", len(r.Data))
			}
			if r.Metadata.Columns[0].Name != "key" || r.Metadata.Columns[0].Keyspace != "system" || r.Metadata.Columns[0].Table != "local" {
				t.Errorf("first column %v", r.Metadata.Columns[0])
			}
			local := rowMaps(r)[0]
			want := map[string]string{
				"key": "local", "bootstrapped": "COMPLETED", "cluster_name": "test cluster", "cql_version": "3.4.7",
				"data_center": "datacenter1", "rack": "rack1", "release_version": "5.0.0-test",
				"partitioner": "org.apache.cassandra.dht.Murmur3Partitioner", "native_protocol_version": "5",
			}
			for k, w := range want {
				if got := str(local[k]); got != w {
					t.Errorf("%s = %q, want %q", k, got, w)
				}
			}
			host, port, _ := net.SplitHostPort(addr)
			if ip := decode(t, "inet", local["rpc_address"]).(net.IP); !ip.Equal(net.ParseIP(host)) {
				t.Errorf("rpc_address %v, want %s", ip, host)
			}
			if p := decode(t, "int", local["rpc_port"]).(int32); strconv.Itoa(int(p)) != port {
				t.Errorf("rpc_port %d, want %s", p, port)
			}
			cat, _ := ts.coord.Catalog(t.Context())
			if sv := decode(t, "uuid", local["schema_version"]).(cql.UUID).String(); sv != cat.Version {
				t.Errorf("schema_version %s, want the catalog's %s", sv, cat.Version)
			}
			if local["host_id"] == nil {
				t.Error("no host_id")
			}
			ring := map[string][]any{"self": decode(t, "set<text>", local["tokens"]).([]any)}

			peers := c.rows("SELECT * FROM system.peers", nil)
			if len(peers.Data) != 2 {
				t.Fatalf("peers: %d rows", len(peers.Data))
			}
			for _, p := range rowMaps(peers) {
				ip := decode(t, "inet", p["peer"]).(net.IP)
				if !ip.Equal(decode(t, "inet", p["rpc_address"]).(net.IP)) || str(p["data_center"]) != "datacenter1" {
					t.Errorf("peer row %v", p)
				}
				if string(p["schema_version"]) != string(local["schema_version"]) {
					t.Errorf("peer %v has another schema version", ip)
				}
				if string(p["host_id"]) == string(local["host_id"]) {
					t.Errorf("peer %v shares the local host id", ip)
				}
				ring[ip.String()] = decode(t, "set<text>", p["tokens"]).([]any)
			}
			checkRing(t, ring, 3, 4)

			r = c.rows("SELECT peer, rpc_address, schema_version FROM system.peers", nil)
			if len(r.Metadata.Columns) != 3 || r.Metadata.Columns[2].Name != "schema_version" {
				t.Errorf("projection %v", r.Metadata.Columns)
			}
			r = c.rows("SELECT schema_version FROM system.local WHERE key='local'", nil)
			if len(r.Data) != 1 || len(r.Data[0]) != 1 || string(r.Data[0][0]) != string(local["schema_version"]) {
				t.Errorf("schema_version alone: %v", r.Data)
			}
			checkPeersV2(t, c, map[string]int32{"127.0.0.2": 9042, "127.0.0.3": 9042})
		})
	}
}

// Tier members (found through the shared backend) are listed next to the
// static peers, each with the schema version it reported; a member on an
// address already listed is not listed twice.
func TestSystemPeersMembers(t *testing.T) {
	members := []Member{
		{Addr: "127.0.0.3:9042", SchemaVersion: "5f3e2a7c-0000-1000-8000-000000000001"},
		{Addr: "127.0.0.4:9042", SchemaVersion: "not-a-uuid"},
		{Addr: "127.0.0.2:9042"}, // also a static peer
	}
	ts := newTestServer(t, func(c *Config) {
		c.Peers = []string{"127.0.0.2:9042"}
		c.Members = func() []Member { return members }
	})
	c := ts.tcpClient(t, ts.listen(t), allVersions[len(allVersions)-1])
	c.startup("")
	local := rowMaps(c.rows("SELECT * FROM system.local WHERE key='local'", nil))[0]
	ring := map[string][]any{"self": decode(t, "set<text>", local["tokens"]).([]any)}
	got := map[string]string{}
	for _, p := range rowMaps(c.rows("SELECT * FROM system.peers", nil)) {
		ip := decode(t, "inet", p["peer"]).(net.IP).String()
		got[ip] = decode(t, "uuid", p["schema_version"]).(cql.UUID).String()
		ring[ip] = decode(t, "set<text>", p["tokens"]).([]any)
	}
	localSV := decode(t, "uuid", local["schema_version"]).(cql.UUID).String()
	if len(got) != 3 || got["127.0.0.2"] != localSV || got["127.0.0.3"] != members[0].SchemaVersion ||
		got["127.0.0.4"] == "" || got["127.0.0.4"] == localSV {
		t.Errorf("peers and their schema versions: %v (local %s)", got, localSV)
	}
	checkRing(t, ring, 4, 4)
	checkPeersV2(t, c, map[string]int32{"127.0.0.2": 9042, "127.0.0.3": 9042, "127.0.0.4": 9042})
}

// checkPeersV2 asserts system.peers_v2 lists the peers of system.peers,
// with the same host ids, schema versions and tokens, each on its
// native port (want: peer IP -> native_port).
func checkPeersV2(t *testing.T, c *client, want map[string]int32) {
	t.Helper()
	v1 := map[string]map[string][]byte{}
	for _, p := range rowMaps(c.rows("SELECT * FROM system.peers", nil)) {
		v1[decode(t, "inet", p["peer"]).(net.IP).String()] = p
	}
	v2 := rowMaps(c.rows("SELECT * FROM system.peers_v2", nil))
	if len(v2) != len(want) || len(v1) != len(want) {
		t.Fatalf("peers_v2 has %d rows, peers %d, want %d", len(v2), len(v1), len(want))
	}
	for _, p := range v2 {
		ip := decode(t, "inet", p["peer"]).(net.IP).String()
		old, ok := v1[ip]
		if !ok {
			t.Errorf("peers_v2 lists %s, peers does not", ip)
			continue
		}
		if port := decode(t, "int", p["native_port"]).(int32); port != want[ip] {
			t.Errorf("peers_v2 %s: native_port %d, want %d", ip, port, want[ip])
		}
		if na := decode(t, "inet", p["native_address"]).(net.IP).String(); na != ip {
			t.Errorf("peers_v2 %s: native_address %s", ip, na)
		}
		for _, col := range []string{"host_id", "schema_version", "tokens", "data_center", "rack", "release_version"} {
			if string(p[col]) != string(old[col]) {
				t.Errorf("peers_v2 %s: %s differs from system.peers", ip, col)
			}
		}
	}
}

// checkRing asserts n instances own per tokens each, all distinct and
// evenly spaced over the Murmur3 range.
func checkRing(t *testing.T, ring map[string][]any, n, per int) {
	t.Helper()
	if len(ring) != n {
		t.Fatalf("%d instances, want %d", len(ring), n)
	}
	var all []*big.Int
	for who, toks := range ring {
		if len(toks) != per {
			t.Errorf("%s owns %d tokens, want %d", who, len(toks), per)
		}
		for _, tk := range toks {
			v, ok := new(big.Int).SetString(tk.(string), 10)
			if !ok {
				t.Fatalf("token %q", tk)
			}
			all = append(all, v)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Cmp(all[j]) < 0 })
	if all[0].Cmp(big.NewInt(math.MinInt64)) != 0 {
		t.Errorf("first token %v, want the minimum", all[0])
	}
	// Ranges are 2^64/(n*per) wide, give or take the rounding.
	step := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(int64(n*per)))
	for i := 1; i < len(all); i++ {
		d := new(big.Int).Sub(all[i], all[i-1])
		if diff := d.Sub(d, step); diff.CmpAbs(big.NewInt(1)) > 0 {
			t.Errorf("uneven ring at %d: range off by %v", i, diff)
		}
	}
}

func TestSystemSchema(t *testing.T) {
	ts := newTestServer(t, nil)
	c := readyClient(t, ts, 4)

	ks := rowMaps(c.rows("SELECT * FROM system_schema.keyspaces", nil))
	var names []string
	for _, r := range ks {
		names = append(names, str(r["keyspace_name"]))
		if str(r["keyspace_name"]) == "ks" {
			repl := fmt.Sprint(decode(t, "frozen<map<text, text>>", r["replication"]))
			if !strings.Contains(repl, "SimpleStrategy") || !strings.Contains(repl, "replication_factor") {
				t.Errorf("replication %s", repl)
			}
			if decode(t, "boolean", r["durable_writes"]) != true {
				t.Error("durable_writes")
			}
		}
	}
	if got := strings.Join(names, ","); got != "ks,system,system_auth,system_schema,system_traces" {
		t.Errorf("keyspaces %s", got)
	}

	tables := rowMaps(c.rows("SELECT * FROM system_schema.tables WHERE keyspace_name = 'ks'", nil))
	if len(tables) != 2 || str(tables[0]["table_name"]) != "t" || str(tables[1]["table_name"]) != "wide" {
		t.Fatalf("tables of ks: %v", tables)
	}
	wide := tables[1]
	if str(wide["comment"]) != "hi" || fmt.Sprint(decode(t, "frozen<set<text>>", wide["flags"])) != "[compound]" {
		t.Errorf("wide: comment %q flags %v", wide["comment"], decode(t, "frozen<set<text>>", wide["flags"]))
	}
	if decode(t, "int", wide["gc_grace_seconds"]) != int32(864000) || str(wide["read_repair"]) != "BLOCKING" {
		t.Errorf("params: %v %q", decode(t, "int", wide["gc_grace_seconds"]), wide["read_repair"])
	}
	if c := fmt.Sprint(decode(t, "frozen<map<text, text>>", wide["compaction"])); !strings.Contains(c, "SizeTieredCompactionStrategy") {
		t.Errorf("compaction %s", c)
	}

	// Bound values, positional and named, select one table.
	one := c.rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?",
		&message.QueryOptions{Consistency: 1, PositionalValues: []*primitive.Value{
			primitive.NewValue([]byte("ks")), primitive.NewValue([]byte("wide"))}})
	if len(one.Data) != 1 || str(one.Data[0][0]) != "wide" {
		t.Errorf("bound select: %v", one.Data)
	}
	one = c.rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?",
		&message.QueryOptions{Consistency: 1, NamedValues: map[string]*primitive.Value{
			"keyspace_name": primitive.NewValue([]byte("ks")), "table_name": primitive.NewValue([]byte("t"))}})
	if len(one.Data) != 1 || str(one.Data[0][0]) != "t" {
		t.Errorf("named select: %v", one.Data)
	}

	cols := rowMaps(c.rows("SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'wide'", nil))
	got := map[string]string{}
	for _, r := range cols {
		got[str(r["column_name"])] = fmt.Sprintf("%s/%s/%d/%s", r["kind"], r["clustering_order"],
			decode(t, "int", r["position"]), r["type"])
		if str(r["column_name_bytes"]) != str(r["column_name"]) {
			t.Errorf("column_name_bytes %q", r["column_name_bytes"])
		}
	}
	want := map[string]string{
		"p": "partition_key/none/0/text", "c": "clustering/desc/0/int",
		"s": "static/none/-1/int", "m": "regular/none/-1/map<text, int>",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("columns\n got %v\nwant %v", got, want)
	}

	// The system keyspaces describe themselves.
	r := c.rows("SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = 'system' AND table_name = 'local' AND column_name = 'tokens'", nil)
	if len(r.Data) != 1 || str(r.Data[0][1]) != "set<text>" {
		t.Errorf("system.local tokens column: %v", r.Data)
	}
	r = c.rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name IN ('system', 'system_schema')", nil)
	if len(r.Data) < 10 {
		t.Errorf("system tables listed: %d", len(r.Data))
	}

	for _, empty := range []string{"types", "functions", "aggregates", "views", "indexes", "triggers", "dropped_columns"} {
		if r := c.rows("SELECT * FROM system_schema."+empty+" WHERE keyspace_name = 'ks'", nil); len(r.Data) != 0 || len(r.Metadata.Columns) < 3 {
			t.Errorf("%s: %d rows, %d columns", empty, len(r.Data), len(r.Metadata.Columns))
		}
	}
	for _, q := range []string{"SELECT * FROM system_virtual_schema.keyspaces", "SELECT * FROM system_virtual_schema.tables", "SELECT * FROM system_virtual_schema.columns"} {
		if r := c.rows(q, nil); len(r.Data) != 0 {
			t.Errorf("%s: %v", q, r.Data)
		}
	}
}

func TestSystemSchemaFollowsDDL(t *testing.T) {
	ts := newTestServer(t, nil)
	c := readyClient(t, ts, 4)
	before := c.rows("SELECT schema_version FROM system.local WHERE key='local'", nil).Data[0][0]
	c.query("ALTER TABLE ks.t DROP v", nil)
	c.query("CREATE TABLE ks.later (k int PRIMARY KEY)", nil)
	after := c.rows("SELECT schema_version FROM system.local WHERE key='local'", nil).Data[0][0]
	if string(before) == string(after) {
		t.Error("schema_version did not change after DDL")
	}
	r := c.rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name = 'later'", nil)
	if len(r.Data) != 1 {
		t.Errorf("new table not listed: %v", r.Data)
	}
	d := rowMaps(c.rows("SELECT * FROM system_schema.dropped_columns WHERE keyspace_name = 'ks'", nil))
	if len(d) != 1 || str(d[0]["column_name"]) != "v" || str(d[0]["type"]) != "text" || str(d[0]["kind"]) != "regular" {
		t.Errorf("dropped columns: %v", d)
	}
	// Indexes as drivers read them (kind, options with target and class).
	c.query("CREATE INDEX ON ks.later (k)", nil) // only partition key column: refused
	c.query("CREATE TABLE ks.ix (k int, c int, v text, m map<text, int>, PRIMARY KEY (k, c))", nil)
	c.query("CREATE INDEX ON ks.ix (v)", nil)
	c.query("CREATE INDEX mk ON ks.ix (keys(m)) USING 'sai'", nil)
	ix := rowMaps(c.rows("SELECT * FROM system_schema.indexes WHERE keyspace_name = 'ks' AND table_name = 'ix'", nil))
	if len(ix) != 2 || str(ix[0]["index_name"]) != "ix_v_idx" || str(ix[0]["kind"]) != "COMPOSITES" ||
		str(ix[1]["index_name"]) != "mk" || str(ix[1]["kind"]) != "CUSTOM" {
		t.Fatalf("indexes: %v", ix)
	}
	if o := fmt.Sprint(decode(t, "map<text, text>", ix[0]["options"])); o != "[{target v}]" {
		t.Errorf("legacy index options: %s", o)
	}
	if o := fmt.Sprint(decode(t, "map<text, text>", ix[1]["options"])); o != "[{class_name sai} {target keys(m)}]" {
		t.Errorf("SAI index options: %s", o)
	}
	c.query("DROP INDEX ks.mk", nil)
	if ix := c.rows("SELECT index_name FROM system_schema.indexes WHERE keyspace_name = 'ks'", nil); len(ix.Data) != 1 {
		t.Errorf("after DROP INDEX: %v", ix.Data)
	}
}

func TestVirtualQueryShapes(t *testing.T) {
	ts := newTestServer(t, nil)
	c := readyClient(t, ts, 4)
	count := func(q string) int64 {
		t.Helper()
		r := c.rows(q, nil)
		if len(r.Data) != 1 || r.Metadata.Columns[0].Name != "count" {
			t.Fatalf("%s: %v", q, r)
		}
		return decode(t, "bigint", r.Data[0][0]).(int64)
	}
	n := count("SELECT COUNT(*) FROM system_schema.columns WHERE keyspace_name = 'ks'")
	if n != 6 { // t: k, v; wide: p, c, s, m
		t.Errorf("count = %d", n)
	}
	// Paging over a virtual table.
	var got int
	var state []byte
	for i := 0; ; i++ {
		r := c.rows("SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ks'",
			&message.QueryOptions{Consistency: 1, PageSize: 4, PagingState: state})
		got += len(r.Data)
		if r.Metadata.PagingState == nil {
			break
		}
		state = r.Metadata.PagingState
		if i > 3 {
			t.Fatal("paging does not end")
		}
	}
	if got != 6 {
		t.Errorf("paged rows %d", got)
	}
	r := c.rows("SELECT keyspace_name AS ks FROM system_schema.keyspaces WHERE keyspace_name > 'l' ORDER BY keyspace_name DESC LIMIT 1", nil)
	if len(r.Data) != 1 || str(r.Data[0][0]) != "system_traces" || r.Metadata.Columns[0].Name != "ks" {
		t.Errorf("order/limit/alias: %v %v", r.Metadata.Columns, r.Data)
	}
	r = c.rows("SELECT DISTINCT keyspace_name FROM system_schema.columns", nil)
	if len(r.Data) != 5 {
		t.Errorf("distinct: %v", r.Data)
	}
	if r := c.rows("SELECT * FROM system_auth.roles", nil); len(r.Data) != 0 { // no role manager
		t.Errorf("system_auth.roles without roles: %v", r.Data)
	}
	if m := c.query("USE system", nil); m.(message.Result).GetResultType() != primitive.ResultTypeSetKeyspace {
		t.Fatalf("USE system: %v", m)
	}
	if r := c.rows("SELECT key FROM local", nil); len(r.Data) != 1 {
		t.Errorf("unqualified local: %v", r.Data)
	}
	for q, code := range map[string]primitive.ErrorCode{
		"SELECT nope FROM system.local":                                          primitive.ErrorCodeInvalid,
		"INSERT INTO system.local (key) VALUES ('x')":                            primitive.ErrorCodeUnauthorized,
		"CREATE TABLE system_schema.x (k int PRIMARY KEY)":                       primitive.ErrorCodeUnauthorized,
		"SELECT * FROM system_auth.nope":                                         primitive.ErrorCodeInvalid,
		"SELECT * FROM system.local WHERE key = 'local' AND tokens CONTAINS 'x'": primitive.ErrorCodeInvalid,
	} {
		if m := c.query(q, nil); m.(message.Error).GetErrorCode() != code {
			t.Errorf("%s: %v", q, m)
		}
	}
	// Prepared statements on system tables.
	p := c.do(&message.Prepare{Query: "SELECT * FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?"}).Body.Message
	pr, ok := p.(*message.PreparedResult)
	if !ok || len(pr.VariablesMetadata.Columns) != 2 || pr.VariablesMetadata.Columns[1].Name != "table_name" ||
		len(pr.VariablesMetadata.PkIndices) != 1 || pr.VariablesMetadata.PkIndices[0] != 0 {
		t.Fatalf("prepare: %v", p)
	}
	m := c.do(&message.Execute{QueryId: pr.PreparedQueryId, Options: &message.QueryOptions{Consistency: 1,
		PositionalValues: []*primitive.Value{primitive.NewValue([]byte("ks")), primitive.NewValue([]byte("t"))}}}).Body.Message
	if rr, ok := m.(*message.RowsResult); !ok || len(rr.Data) != 1 || len(rr.Metadata.Columns) != len(pr.ResultMetadata.Columns) {
		t.Errorf("execute: %v", m)
	}
}
