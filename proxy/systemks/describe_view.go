package systemks

import "github.com/dohyo/dohyo/schema"

// withViews is a table's DESCRIBE elements: the table, then its
// materialized views by name (as Cassandra's DESCRIBE TABLE).
func withViews(ks *schema.Keyspace, t *schema.Table) []element {
	out := []element{tableElement(t)}
	for _, v := range ks.ViewsOf(t.Name) {
		out = append(out, tableElement(v))
	}
	return out
}
