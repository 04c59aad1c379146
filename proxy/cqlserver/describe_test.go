package cqlserver

import (
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

func TestDescribe(t *testing.T) {
	ts := newTestServer(t, nil)
	c := readyClient(t, ts, 5)
	col := func(r *message.RowsResult, name string) []string {
		t.Helper()
		var out []string
		for _, m := range rowMaps(r) {
			out = append(out, str(m[name]))
		}
		return out
	}
	r := c.rows("DESCRIBE KEYSPACES", nil)
	if got := strings.Join(col(r, "name"), ","); got != "ks,system,system_auth,system_schema,system_traces" || len(r.Metadata.Columns) != 3 {
		t.Errorf("keyspaces: %s (%d columns)", got, len(r.Metadata.Columns))
	}
	r = c.rows("DESC TABLES;", nil)
	if got := strings.Join(col(r, "name"), ","); !strings.HasPrefix(got, "t,wide,local,peers,peers_v2,role_members,role_permissions,roles,aggregates") {
		t.Errorf("tables: %s", got)
	}
	r = c.rows("DESCRIBE KEYSPACE ks", nil)
	if got := strings.Join(col(r, "type"), ","); got != "keyspace,table,table" {
		t.Errorf("keyspace elements: %s", got)
	}
	if cs := col(r, "create_statement"); !strings.HasPrefix(cs[0], "CREATE KEYSPACE ks WITH replication") ||
		!strings.Contains(cs[2], "CLUSTERING ORDER BY (c DESC)") || !strings.Contains(cs[2], "s int static") {
		t.Errorf("create statements: %q", cs)
	}
	r = c.rows("DESCRIBE ONLY KEYSPACE ks", nil)
	if len(r.Data) != 1 {
		t.Errorf("only keyspace: %d rows", len(r.Data))
	}
	r = c.rows(`DESCRIBE TABLE ks."wide"`, nil)
	if got := col(r, "create_statement"); len(got) != 1 || !strings.HasPrefix(got[0], "CREATE TABLE ks.wide (") {
		t.Errorf("table: %q", got)
	}
	r = c.rows("DESCRIBE SCHEMA", nil)
	if got := strings.Join(col(r, "keyspace_name"), ","); got != "ks,ks,ks" {
		t.Errorf("schema without system keyspaces: %s", got)
	}
	if r := c.rows("DESCRIBE FULL SCHEMA", &message.QueryOptions{Consistency: 1, PageSize: 5}); r.Metadata.PagingState == nil || len(r.Data) != 5 {
		t.Errorf("full schema first page: %d rows, state %v", len(r.Data), r.Metadata.PagingState)
	}
	r = c.rows("DESCRIBE CLUSTER", nil)
	if got := strings.Join(col(r, "partitioner"), ""); got != "Murmur3Partitioner" || str(rowMaps(r)[0]["cluster"]) != "test cluster" {
		t.Errorf("cluster: %v", rowMaps(r))
	}
	c.query("USE ks", nil)
	if r := c.rows("DESCRIBE CLUSTER", nil); len(r.Metadata.Columns) != 4 || r.Metadata.Columns[3].Name != "range_ownership" {
		t.Errorf("cluster with a keyspace: %v", r.Metadata.Columns)
	}
	if got := strings.Join(col(c.rows("DESCRIBE TABLES", nil), "name"), ","); got != "t,wide" {
		t.Errorf("tables of the current keyspace: %s", got)
	}
	if got := col(c.rows("DESC t", nil), "name"); len(got) != 1 || got[0] != "t" {
		t.Errorf("generic describe: %v", got)
	}
	for q, want := range map[string]string{
		"DESCRIBE TABLE ks.nope":  "Table 'nope' not found in keyspace 'ks'",
		"DESCRIBE KEYSPACE nope":  "'nope' not found in keyspaces",
		"DESCRIBE TYPE ks.addr":   "User defined type 'addr' not found in 'ks'",
		"DESCRIBE nope.t":         "'nope' not found in keyspaces",
		"DESCRIBE SOMETHING ELSE": "",
	} {
		m := c.query(q, nil)
		e, ok := m.(message.Error)
		if !ok || (want != "" && e.GetErrorMessage() != want) {
			t.Errorf("%s: %v", q, m)
		}
		if want != "" && e.GetErrorCode() != primitive.ErrorCodeInvalid {
			t.Errorf("%s: code %v", q, e.GetErrorCode())
		}
	}
}
