package cql

// SetExtensions replaces a table's (or view's) extensions map, as a
// client does with UPDATE system_schema.tables SET extensions = ... (the
// way drivers' tests and some tools attach table extensions; Cassandra
// 5.0 accepts that write). The parser never produces it: dohyo's system
// keyspaces build it from such an UPDATE for the executed backends.
type SetExtensions struct {
	Keyspace, Name string
	View           bool              // system_schema.views
	Extensions     map[string][]byte // nil: none
}

func (*SetExtensions) statement() {}
