package cql

import "testing"

var indexCases = []parseCase{
	{"create index", "CREATE INDEX ON t (v)", &CreateIndex{Table: "t", Targets: []IndexTarget{{Column: "v"}}}},
	{"create named index", "create index if not exists vi on ks.t (keys(m))",
		&CreateIndex{IfNotExists: true, Name: "vi", Keyspace: "ks", Table: "t", Targets: []IndexTarget{{Column: "m", Kind: IndexKeys}}}},
	{"create sai", "CREATE INDEX ON t (values(l)) USING 'sai'",
		&CreateIndex{Table: "t", Targets: []IndexTarget{{Column: "l", Kind: IndexValues}}, Using: "sai", HasUsing: true}},
	{"create custom index", "CREATE CUSTOM INDEX idx ON t (entries(m)) USING 'StorageAttachedIndex' WITH OPTIONS = {'case_sensitive': 'false'}",
		&CreateIndex{Custom: true, Name: "idx", Table: "t", Targets: []IndexTarget{{Column: "m", Kind: IndexEntries}},
			Using: "StorageAttachedIndex", HasUsing: true, Options: map[string]string{"case_sensitive": "false"}}},
	{"create full index", `CREATE INDEX "Idx" ON t (full(f))`, &CreateIndex{Name: "Idx", Table: "t", Targets: []IndexTarget{{Column: "f", Kind: IndexFull}}}},
	{"drop index", "DROP INDEX ks.idx", &DropIndex{Keyspace: "ks", Name: "idx"}},
	{"drop index if exists", "DROP INDEX IF EXISTS idx", &DropIndex{IfExists: true, Name: "idx"}},
}

func TestParseIndex(t *testing.T) { runParseCases(t, indexCases) }
