package cqlserver

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// TestGocqlMaterializedViewMetadata checks what gocql v1.7.0's own
// TestMaterializedViewMetadata checks (same DDL, same expected values, read
// through KeyspaceMetadata), plus the views' columns, base tables and
// DESCRIBE, on the embedded store and on HBase (when configured).
func TestGocqlMaterializedViewMetadata(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) {
			addr := newTestServerWith(t, sb.open(t), nil, nil).listen(t)
			sess := gocqlSession(t, addr, 4)
			checkViewMetadata(t, sess)
		})
	}
}

func checkViewMetadata(t *testing.T, sess *gocql.Session) {
	t.Helper()
	const ks = "gocql_mv_meta"
	mustExec(t, sess, "DROP KEYSPACE IF EXISTS "+ks)
	mustExec(t, sess, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = sess.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	for _, n := range []string{"view_table", "view_table2"} {
		mustExec(t, sess, "CREATE TABLE IF NOT EXISTS "+ks+"."+n+" (userid text, year int, month int, PRIMARY KEY (userid))")
	}
	mustExec(t, sess, `CREATE MATERIALIZED VIEW IF NOT EXISTS `+ks+`.view_view AS SELECT year, month, userid
		FROM `+ks+`.view_table WHERE year IS NOT NULL AND month IS NOT NULL AND userid IS NOT NULL PRIMARY KEY (userid, year)`)
	mustExec(t, sess, `CREATE MATERIALIZED VIEW IF NOT EXISTS `+ks+`.view_view2 AS SELECT userid, month
		FROM `+ks+`.view_table2 WHERE month IS NOT NULL AND userid IS NOT NULL PRIMARY KEY (userid, month)`)

	md, err := sess.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.MaterializedViews) != 2 {
		t.Fatalf("views %v, want view_view and view_view2", md.MaterializedViews)
	}
	for name, base := range map[string]string{"view_view": "view_table", "view_view2": "view_table2"} {
		v := md.MaterializedViews[name]
		if v == nil {
			t.Fatalf("view %s missing from %v", name, md.MaterializedViews)
		}
		want := gocql.MaterializedViewMetadata{
			Keyspace: ks, Name: name, BaseTableId: v.BaseTableId, Id: v.Id, BaseTable: md.Tables[base],
			BloomFilterFpChance: 0.01,
			Caching:             map[string]string{"keys": "ALL", "rows_per_partition": "NONE"},
			Compaction: map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
				"max_threshold": "32", "min_threshold": "4"},
			Compression:    map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"},
			CrcCheckChance: 1, Extensions: map[string]string{}, GcGraceSeconds: 864000,
			MaxIndexInterval: 2048, MinIndexInterval: 128, SpeculativeRetry: "99p",
		}
		// baseTableName is unexported: compare the rest field by field.
		got := *v
		if !reflect.DeepEqual(stripUnexported(got), stripUnexported(want)) {
			t.Errorf("view %s:\n got %+v\nwant %+v", name, got, want)
		}
		if v.BaseTable == nil || v.BaseTable.Name != base {
			t.Errorf("view %s base table %+v, want %s", name, v.BaseTable, base)
		}
		var baseID gocql.UUID
		if err := sess.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, base).Scan(&baseID); err != nil || baseID != v.BaseTableId {
			t.Errorf("view %s base_table_id %v, want the id of %s (%v, %v)", name, v.BaseTableId, base, baseID, err)
		}
		// gocql lists views among the tables too (from system_schema.views),
		// with their columns from system_schema.columns.
		if vt := md.Tables[name]; vt == nil || len(vt.PartitionKey) != 1 || vt.PartitionKey[0].Name != "userid" {
			t.Errorf("view %s as a table: %+v", name, vt)
		}
	}
	var tables []string
	var tn string
	tit := sess.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", ks).Iter()
	for tit.Scan(&tn) {
		tables = append(tables, tn)
	}
	if err := tit.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"view_table", "view_table2"}; !reflect.DeepEqual(tables, want) {
		t.Errorf("system_schema.tables: %v, want %v (views are in system_schema.views)", tables, want)
	}
	var where string
	var all bool
	if err := sess.Query("SELECT where_clause, include_all_columns FROM system_schema.views WHERE keyspace_name = ? AND view_name = ?",
		ks, "view_view").Scan(&where, &all); err != nil {
		t.Fatal(err)
	}
	if where != "year IS NOT NULL AND month IS NOT NULL AND userid IS NOT NULL" || all {
		t.Errorf("where_clause %q include_all_columns %v", where, all)
	}
	iter := sess.Query("SELECT column_name, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		ks, "view_view").Iter()
	var cols []string
	var name, kind string
	var pos int
	for iter.Scan(&name, &kind, &pos) {
		cols = append(cols, name+":"+kind)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"month:regular", "userid:partition_key", "year:clustering"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("view columns %v, want %v", cols, want)
	}
	var typ, create string
	if err := sess.Query("DESCRIBE MATERIALIZED VIEW "+ks+".view_view").Scan(new(string), &typ, new(string), &create); err != nil {
		t.Fatal(err)
	}
	if typ != "materialized_view" || !strings.HasPrefix(create, "CREATE MATERIALIZED VIEW "+ks+".view_view AS\n    SELECT userid, year, month\n    FROM "+ks+".view_table\n    WHERE year IS NOT NULL AND month IS NOT NULL AND userid IS NOT NULL\n    PRIMARY KEY (userid, year)\n WITH CLUSTERING ORDER BY (year ASC)\n    AND additional_write_policy = '99p'") {
		t.Errorf("DESCRIBE: %s %q", typ, create)
	}
	// The view is read like a table and follows the base.
	mustExec(t, sess, "INSERT INTO "+ks+".view_table (userid, year, month) VALUES ('u', 2020, 1)")
	mustExec(t, sess, "UPDATE "+ks+".view_table SET year = 2021 WHERE userid = 'u'")
	var year, month int
	if err := sess.Query("SELECT year, month FROM "+ks+".view_view WHERE userid = 'u'").Scan(&year, &month); err != nil || year != 2021 || month != 1 {
		t.Errorf("view row: %d %d %v", year, month, err)
	}
	if n := sess.Query("SELECT * FROM " + ks + ".view_view").Iter().NumRows(); n != 1 {
		t.Errorf("view rows: %d, want 1", n)
	}
}

// stripUnexported copies the exported fields of a view's metadata.
func stripUnexported(v gocql.MaterializedViewMetadata) gocql.MaterializedViewMetadata {
	return gocql.MaterializedViewMetadata{Keyspace: v.Keyspace, Name: v.Name, BaseTableId: v.BaseTableId, BaseTable: nil,
		BloomFilterFpChance: v.BloomFilterFpChance, Caching: v.Caching, Comment: v.Comment, Compaction: v.Compaction,
		Compression: v.Compression, CrcCheckChance: v.CrcCheckChance, DcLocalReadRepairChance: v.DcLocalReadRepairChance,
		DefaultTimeToLive: v.DefaultTimeToLive, Extensions: v.Extensions, GcGraceSeconds: v.GcGraceSeconds, Id: v.Id,
		IncludeAllColumns: v.IncludeAllColumns, MaxIndexInterval: v.MaxIndexInterval, MemtableFlushPeriodInMs: v.MemtableFlushPeriodInMs,
		MinIndexInterval: v.MinIndexInterval, ReadRepairChance: v.ReadRepairChance, SpeculativeRetry: v.SpeculativeRetry}
}

// TestGocqlMaterializedViewMetadataCassandra runs the same checks against
// the reference Cassandra named by DOHYO_TEST_CASSANDRA (skipped without
// it), so the expectations above are Cassandra's.
func TestGocqlMaterializedViewMetadataCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" || testing.Short() {
		t.Skip("DOHYO_TEST_CASSANDRA is not set")
	}
	checkViewMetadata(t, gocqlSession(t, addr, 4))
}
