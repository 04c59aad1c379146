package schema

import (
	"encoding/hex"
	"maps"

	"github.com/dohyo/dohyo/cql"
)

// setExtensions applies UPDATE system_schema.tables|views SET extensions
// (cql.SetExtensions): the table's extensions become the given map. A
// table or view that does not exist changes nothing (Cassandra writes the
// row all the same; dohyo's system_schema lists existing tables only).
func (c *Catalog) setExtensions(s *cql.SetExtensions) (*Keyspace, *Change, *Error) {
	ks := c.Keyspaces[s.Keyspace]
	if ks == nil {
		return nil, nil, nil
	}
	old := ks.Tables[s.Name]
	if old == nil || old.IsView() != s.View {
		return nil, nil, nil
	}
	ext := make(map[string]string, len(s.Extensions))
	for k, v := range s.Extensions {
		ext[k] = "0x" + hex.EncodeToString(v)
	}
	if maps.Equal(ext, old.Params.Extensions) {
		return nil, nil, nil
	}
	t := old.clone()
	t.Params.Extensions = ext
	t.Options = t.Params.OptionsCQL()
	return withTable(ks, s.Name, t), &Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: s.Keyspace, Table: s.Name}, nil
}
