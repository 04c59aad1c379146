package metrics

import "testing"

func TestClassify(t *testing.T) {
	cases := []struct {
		query, op, ks string
	}{
		{"SELECT v FROM ks.t WHERE k = ?", OpSelect, "ks"},
		{"select count(*) from \"MyKS\".\"T\"", OpSelect, "MyKS"},
		{"SELECT (int) x, f(a, b) FROM Ks.t", OpSelect, "ks"},
		{"SELECT \"from\" FROM t WHERE k = 1", OpSelect, ""},
		{"SELECT * FROM system.local WHERE key='local'", OpSelect, "system"},
		{"  /* hint */ -- c\n INSERT INTO ks2.t (k) VALUES (1)", OpInsert, "ks2"},
		{"INSERT INTO t (k) VALUES ('it''s ks.t')", OpInsert, ""},
		{"UPDATE ks.t SET v = 1 WHERE k = 2", OpUpdate, "ks"},
		{"UPDATE t USING TTL 5 SET v = 1 WHERE k = 2", OpUpdate, ""},
		{"DELETE v, m['a'] FROM ks.t WHERE k = 1", OpDelete, "ks"},
		{"BEGIN UNLOGGED BATCH USING TIMESTAMP 5 INSERT INTO b.t (k) VALUES (1); APPLY BATCH", OpBatch, "b"},
		{"BEGIN BATCH UPDATE t SET v = 1 WHERE k = 1 APPLY BATCH", OpBatch, ""},
		{"USE \"Quoted\"", OpUse, "Quoted"},
		{"DESCRIBE KEYSPACES", OpDescribe, "system_schema"},
		{"desc table ks.t", OpDescribe, "system_schema"},
		{"use ks", OpUse, "ks"},
		{"CREATE KEYSPACE IF NOT EXISTS nk WITH replication = {'class': 'SimpleStrategy'}", OpDDL, "nk"},
		{"DROP KEYSPACE nk", OpDDL, "nk"},
		{"ALTER KEYSPACE nk WITH durable_writes = false", OpDDL, "nk"},
		{"CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)", OpDDL, "ks"},
		{"CREATE TABLE t (k int PRIMARY KEY)", OpDDL, ""},
		{"CREATE INDEX IF NOT EXISTS idx ON ks.t (v)", OpDDL, "ks"},
		{"CREATE CUSTOM INDEX ON ks.t (v) USING 'x.y'", OpDDL, "ks"},
		{"DROP INDEX ks.idx", OpDDL, "ks"},
		{"CREATE MATERIALIZED VIEW IF NOT EXISTS ks.v AS SELECT * FROM ks.t", OpDDL, "ks"},
		{"CREATE OR REPLACE FUNCTION ks.f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return a; $$", OpDDL, "ks"},
		{"TRUNCATE TABLE ks.t", OpDDL, "ks"},
		{"truncate t", OpDDL, ""},
		{"CREATE ROLE alice WITH PASSWORD = 'x'", OpDDL, ""},
		{"GRANT SELECT ON ks.t TO alice", OpOther, ""},
		{"LIST ROLES", OpOther, ""},
		{"", OpOther, ""},
		{"'unterminated", OpOther, ""},
		{"SELECT * FROM", OpSelect, ""},
		{"SELECT \"unterminated FROM x", OpSelect, ""},
	}
	for _, tc := range cases {
		op, ks := Classify(tc.query)
		if op != tc.op || ks != tc.ks {
			t.Errorf("Classify(%q) = %s, %q; want %s, %q", tc.query, op, ks, tc.op, tc.ks)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"SELECT * FROM ks.t", "BEGIN BATCH INSERT INTO a.b", "\"x\"\"y\".z", "$$", "/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		op, _ := Classify(q) // must not panic or loop
		if op == "" {
			t.Errorf("empty op for %q", q)
		}
	})
}

func BenchmarkClassify(b *testing.B) {
	q := "SELECT field0, field1, field2, field3, field4, field5 FROM ycsb.usertable WHERE y_id = ?"
	b.ReportAllocs()
	for b.Loop() {
		Classify(q)
	}
}
