package cassandra

import (
	"cmp"
	"context"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/schema"
)

var (
	_ bindings.ServerDescriber = (*Backend)(nil)
	_ bindings.ServerVersioner = (*Backend)(nil)
)

// DescribeServer implements bindings.ServerDescriber: the consistency and
// protocol dohyo uses, and each keyspace's replication and its tables'
// compression as the cluster has them.
func (b *Backend) DescribeServer(ctx context.Context, keyspaces []string) (bindings.ServerDescription, error) {
	d := bindings.ServerDescription{Product: "Apache Cassandra", Settings: map[string]string{
		"consistency":        cmp.Or(b.cfg.Consistency, "as captured"),
		"serial_consistency": cmp.Or(b.cfg.SerialConsistency, "as captured"),
		"protocol":           "v" + strconv.Itoa(b.cfg.ProtoVersion),
	}}
	cat, err := b.Catalog(ctx)
	if err != nil {
		return d, err
	}
	for _, name := range keyspaces {
		ks := cat.Keyspace(name)
		if ks == nil {
			continue
		}
		d.Settings["replication "+name] = schema.FormatReplication(ks.Replication)
		for tn, tb := range ks.Tables {
			d.Settings["compression "+name+"."+tn] = schema.FormatCompression(tb.Params.Compression)
		}
	}
	return d, nil
}
