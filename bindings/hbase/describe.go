package hbase

import (
	"cmp"
	"context"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
)

var (
	_ bindings.ServerDescriber = (*Backend)(nil)
	_ bindings.SystemNamer     = (*Backend)(nil)
	_ bindings.ServerVersioner = (*Backend)(nil)
)

// DescribeServer implements bindings.ServerDescriber: salt, regions,
// compression and encoding of dohyo's tables, and what consistency and
// replication mean on HBase.
func (b *Backend) DescribeServer(context.Context, []string) (bindings.ServerDescription, error) {
	cfg := b.cfg
	set := map[string]string{
		"salt":        strconv.Itoa(cfg.Salt),
		"compression": cmp.Or(cfg.Table.Compression, DefaultCompression),
		"encoding":    cmp.Or(cfg.Table.Encoding, DefaultEncoding),
		"consistency": "strong (HBase row operations; CQL levels are not applied)",
		"replication": "the cluster's HDFS replication (not visible to dohyo)",
	}
	switch {
	case cfg.Table.Regions > 0:
		set["regions"] = strconv.Itoa(cfg.Table.Regions) + " per table (pre-split)"
	case cfg.Salt > 0:
		set["regions"] = strconv.Itoa(cfg.Salt) + " per table (one per salt bucket)"
	default:
		set["regions"] = "1 per table (not pre-split)"
	}
	return bindings.ServerDescription{Product: "Apache HBase", Settings: set}, nil
}
