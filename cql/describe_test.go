package cql

import "testing"

func TestParseDescribe(t *testing.T) {
	cases := []struct {
		q    string
		want Describe
	}{
		{"DESCRIBE KEYSPACES", Describe{Kind: DescribeKeyspaces}},
		{"desc tables;", Describe{Kind: DescribeTables}},
		{"DESCRIBE COLUMNFAMILIES", Describe{Kind: DescribeTables}},
		{"DESCRIBE CLUSTER", Describe{Kind: DescribeCluster}},
		{"DESCRIBE SCHEMA", Describe{Kind: DescribeSchema}},
		{"DESCRIBE FULL SCHEMA", Describe{Kind: DescribeFullSchema}},
		{"DESCRIBE KEYSPACE", Describe{Kind: DescribeKeyspace}},
		{"DESCRIBE KEYSPACE Ks", Describe{Kind: DescribeKeyspace, Keyspace: "ks"}},
		{`DESCRIBE ONLY KEYSPACE "Ks" WITH INTERNALS`, Describe{Kind: DescribeKeyspace, Keyspace: "Ks", Only: true, WithInternals: true}},
		{`DESCRIBE TABLE ks."Wide"`, Describe{Kind: DescribeTable, Keyspace: "ks", Name: "Wide"}},
		{"DESCRIBE COLUMNFAMILY t", Describe{Kind: DescribeTable, Name: "t"}},
		{"DESCRIBE TYPE ks.addr", Describe{Kind: DescribeType, Keyspace: "ks", Name: "addr"}},
		{"DESCRIBE FUNCTION f", Describe{Kind: DescribeFunction, Name: "f"}},
		{"DESCRIBE AGGREGATE ks.a", Describe{Kind: DescribeAggregate, Keyspace: "ks", Name: "a"}},
		{"DESCRIBE INDEX ks.i", Describe{Kind: DescribeIndex, Keyspace: "ks", Name: "i"}},
		{"DESCRIBE MATERIALIZED VIEW ks.v", Describe{Kind: DescribeView, Keyspace: "ks", Name: "v"}},
		{"DESC t", Describe{Kind: DescribeName, Name: "t"}},
		{"DESC ks.t", Describe{Kind: DescribeName, Keyspace: "ks", Name: "t"}},
		{`DESC "tables"`, Describe{Kind: DescribeName, Name: "tables"}},
		{"DESC type", Describe{Kind: DescribeName, Name: "type"}},
	}
	for _, c := range cases {
		p, err := Parse(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		d, ok := p.Stmt.(*Describe)
		if !ok || *d != c.want {
			t.Errorf("%s: %+v, want %+v", c.q, p.Stmt, c.want)
		}
		if ks, ok := KeyspaceOf(p.Stmt); !ok || ks != "system_schema" {
			t.Errorf("%s: KeyspaceOf = %q, %v", c.q, ks, ok)
		}
	}
	for _, q := range []string{"DESCRIBE", "DESCRIBE SOMETHING ELSE", "DESCRIBE FULL", "DESCRIBE MATERIALIZED ks.v", "DESCRIBE TABLE", "DESCRIBE KEYSPACE a b", "DESCRIBE TABLES WITH"} {
		if p, err := Parse(q); err == nil {
			t.Errorf("%s: parsed as %+v, want a syntax error", q, p.Stmt)
		}
	}
}
