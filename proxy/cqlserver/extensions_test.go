package cqlserver

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

// checkSystemSchemaExtensions sets a table's and a view's extensions the
// way drivers' tests do (UPDATE system_schema.tables|views SET extensions,
// prepared and with a literal) and reads them back from system_schema,
// on addr. Cassandra 5.0.9 accepts these writes.
func checkSystemSchemaExtensions(t *testing.T, addr, ks string) {
	t.Helper()
	sess := gocqlSession(t, addr, 4)
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int, c int, v int, PRIMARY KEY (k, c))",
		"CREATE MATERIALIZED VIEW " + ks + ".mv AS SELECT * FROM " + ks + ".t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = sess.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	read := func(table, col, name string) map[string][]byte {
		t.Helper()
		var got map[string][]byte
		q := fmt.Sprintf("SELECT extensions FROM system_schema.%s WHERE keyspace_name = ? AND %s = ?", table, col)
		if err := sess.Query(q, ks, name).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return got
	}
	same := func(what string, got, want map[string][]byte) {
		t.Helper()
		ok := len(got) == len(want)
		for k, v := range want {
			ok = ok && bytes.Equal(got[k], v)
		}
		if !ok {
			t.Errorf("%s: extensions %v, want %v", what, got, want)
		}
	}
	if err := sess.Query("UPDATE system_schema.tables SET extensions = ? WHERE keyspace_name = ? AND table_name = ?",
		map[string][]byte{"a": {1, 2}}, ks, "t").Exec(); err != nil {
		t.Fatalf("prepared UPDATE: %v", err)
	}
	same("after the prepared UPDATE", read("tables", "table_name", "t"), map[string][]byte{"a": {1, 2}})
	if err := sess.Query("UPDATE system_schema.tables SET extensions = {'b': 0x03, 'c': 0x} WHERE keyspace_name = '" +
		ks + "' AND table_name = 't'").Exec(); err != nil {
		t.Fatalf("UPDATE with a literal: %v", err)
	}
	same("after the literal UPDATE", read("tables", "table_name", "t"), map[string][]byte{"b": {3}, "c": {}})
	if err := sess.Query("UPDATE system_schema.views SET extensions = {'v': 0x09} WHERE keyspace_name = ? AND view_name = ?",
		ks, "mv").Exec(); err != nil {
		t.Fatalf("UPDATE of a view: %v", err)
	}
	same("the view's", read("views", "view_name", "mv"), map[string][]byte{"v": {9}})
	same("the table's after the view's", read("tables", "table_name", "t"), map[string][]byte{"b": {3}, "c": {}})
}

// TestSystemSchemaExtensions: on the embedded store (and HBase when
// configured) the extensions are kept with the table in the catalog.
func TestSystemSchemaExtensions(t *testing.T) {
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) {
			addr := newTestServerWith(t, sb.open(t), nil, nil).listen(t)
			checkSystemSchemaExtensions(t, addr, "ext_"+sb.name)
		})
	}
}

// TestSystemSchemaExtensionsCassandra runs the same steps on the reference
// Cassandra named by DOHYO_TEST_CASSANDRA (skipped without it).
func TestSystemSchemaExtensionsCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" || testing.Short() {
		t.Skip("DOHYO_TEST_CASSANDRA is not set")
	}
	checkSystemSchemaExtensions(t, addr, fmt.Sprintf("ext_%d", time.Now().UnixNano()%1e6))
}
