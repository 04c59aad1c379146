package hbase

import (
	"cmp"
	"context"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

var (
	_ bindings.ServerDescriber   = (*Store)(nil)
	_ bindings.SystemNamer       = (*Store)(nil)
	_ bindings.ServerVersioner   = (*Store)(nil)
	_ bindings.MetaStoreProvider = (*Store)(nil)
	_ bindings.TierProvider      = (*Store)(nil)
	_ bindings.Pinger            = (*Store)(nil)
	_ kv.Defaulter               = (*Store)(nil)
	_ metaCAS                    = (*Store)(nil)
)

// metaCAS is the metadata space with compare-and-set (tier membership and
// roles shared by every dohyo instance on this HBase).
type metaCAS interface {
	bindings.MetaStore
	CompareAndSetMeta(ctx context.Context, key string, old, value []byte) (bool, error)
}

// MetaStore is the store's metadata space, shared by the instances of a
// tier.
func (s *Store) MetaStore() bindings.MetaStore { return s }

// TierRegistry is where the instances of a tier sharing this HBase find
// each other.
func (s *Store) TierRegistry() bindings.TierRegistry { return s }

// EngineDefaults hands the engine the settings of the store's URL (salt,
// the physical options of new tables) and asks it to drop tables in the
// background: an HBase table drop (disable + delete) takes ~0.5 s, so DROP
// TABLE and DROP KEYSPACE answer after the catalog commit, which hides the
// tables from every instance at once (a re-created table has a new id,
// hence a new HBase table), and the HBase tables are removed later.
func (s *Store) EngineDefaults() kv.Defaults {
	return kv.Defaults{Salt: s.cfg.Salt, TableOptions: s.cfg.Table.toMap(), DropInBackground: true}
}

// DescribeServer implements bindings.ServerDescriber: salt, regions,
// compression and encoding of dohyo's tables, and what consistency and
// replication mean on HBase.
func (s *Store) DescribeServer(context.Context, []string) (bindings.ServerDescription, error) {
	cfg := s.cfg
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
