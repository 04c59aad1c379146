package cql

// IndexTargetKind says what of a column an index covers.
type IndexTargetKind int

// Index target kinds, as Cassandra's IndexTarget.Type.
const (
	IndexSimple  IndexTargetKind = iota // the column itself (values() of a non-frozen collection)
	IndexValues                         // values(c)
	IndexKeys                           // keys(m)
	IndexEntries                        // entries(m)
	IndexFull                           // full(frozen c)
)

// String is the target function name ("" for a plain column).
func (k IndexTargetKind) String() string {
	return [...]string{"", "values", "keys", "entries", "full"}[k]
}

// IndexTarget is one column of CREATE INDEX ... ON t (target).
type IndexTarget struct {
	Column string
	Kind   IndexTargetKind
}

// CreateIndex is CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON t (targets)
// [USING 'class'] [WITH OPTIONS = {...}].
type CreateIndex struct {
	Custom      bool
	IfNotExists bool
	Keyspace    string // of the table ("" unless qualified)
	Table       string
	Name        string // "" when not given
	Targets     []IndexTarget
	Using       string // class name, "" when not given
	HasUsing    bool
	Options     map[string]string
}

// DropIndex is DROP INDEX [IF EXISTS] [ks.]name.
type DropIndex struct {
	IfExists bool
	Keyspace string
	Name     string
}

func (*CreateIndex) statement() {}
func (*DropIndex) statement()   {}
