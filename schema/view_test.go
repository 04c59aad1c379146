package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func TestViewRoundTripAndFollowsBase(t *testing.T) {
	c := NewWithOptions(testOptions())
	c = run(t, c,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, w int, PRIMARY KEY (k, c))",
		"CREATE MATERIALIZED VIEW ks.all AS SELECT * FROM ks.t WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL AND c IN (1,2) PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC)",
		"CREATE MATERIALIZED VIEW ks.some AS SELECT k, c FROM ks.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
		"ALTER TABLE ks.t ADD z int",
	)
	all, some := c.Table("ks", "all"), c.Table("ks", "some")
	if !all.IsView() || all.View.BaseTable != "t" || all.View.BaseID != c.Table("ks", "t").ID || !all.View.IncludeAll {
		t.Fatalf("view all: %+v", all.View)
	}
	if all.View.Where != "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL AND c IN (1, 2)" {
		t.Errorf("where %q", all.View.Where)
	}
	if k := all.Column("k"); k.Kind != Clustering || !k.Desc {
		t.Errorf("view key: %+v", all.Columns)
	}
	if all.Column("z") == nil || some.Column("z") != nil {
		t.Errorf("ADD z: in all %v, in some %v (want only in the SELECT * view)", all.Column("z") != nil, some.Column("z") != nil)
	}
	if got := len(c.Keyspace("ks").ViewsOf("t")); got != 2 {
		t.Errorf("ViewsOf: %d", got)
	}
	c = run(t, c, "ALTER TABLE ks.t RENAME c TO cc")
	all, some = c.Table("ks", "all"), c.Table("ks", "some")
	if all.Column("cc") == nil || all.Column("c") != nil || some.PartitionKey[0].Name != "cc" ||
		all.View.Where != "v IS NOT NULL AND k IS NOT NULL AND cc IS NOT NULL AND cc IN (1, 2)" {
		t.Errorf("after RENAME: %+v %q", all.Columns, all.View.Where)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	if v := back.Table("ks", "all").View; v == nil || *v != *all.View {
		t.Errorf("round trip: %+v, want %+v", v, all.View)
	}
	if back.Table("ks", "t").IsView() {
		t.Error("base became a view")
	}
	stmt := all.CreateViewStatement()
	if !strings.HasPrefix(stmt, "CREATE MATERIALIZED VIEW ks.all AS\n    SELECT *\n    FROM ks.t\n") ||
		!strings.Contains(stmt, "PRIMARY KEY (v, k, cc)\n WITH CLUSTERING ORDER BY (k DESC, cc ASC)\n") ||
		strings.Contains(stmt, "default_time_to_live") {
		t.Errorf("DESCRIBE:\n%s", stmt)
	}
}

func TestViewGuards(t *testing.T) {
	c := NewWithOptions(testOptions())
	c = run(t, c,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int, w int)",
		"CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)",
	)
	for q, want := range map[string]string{
		"DROP TABLE ks.t":             "Cannot drop a table when materialized views still depend on it",
		"DROP TABLE ks.mv":            "Cannot use DROP TABLE on a materialized view",
		"ALTER TABLE ks.mv ADD x int": "Cannot use ALTER TABLE on a materialized view",
		"ALTER TABLE ks.t DROP w":     "Cannot drop column w on base table t with materialized views",
		"CREATE INDEX ON ks.mv (w)":   "Secondary indexes on materialized views aren't supported",
		"DROP MATERIALIZED VIEW ks.t": "Materialized view 'ks.t' doesn't exist",
		"CREATE MATERIALIZED VIEW ks.t AS SELECT * FROM ks.t WHERE k IS NOT NULL PRIMARY KEY (k)": "a table with the same name already exists",
	} {
		p, err := cql.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, _, err := c.Apply(p.Stmt, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
	c = run(t, c, "DROP MATERIALIZED VIEW ks.mv", "DROP TABLE ks.t")
	if c.Keyspace("ks").Tables["mv"] != nil {
		t.Error("view still there")
	}
}
