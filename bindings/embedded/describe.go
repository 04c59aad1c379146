package embedded

import (
	"cmp"
	"context"
	"runtime/debug"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

var (
	_ bindings.ServerDescriber   = (*Store)(nil)
	_ bindings.SystemNamer       = (*Store)(nil)
	_ bindings.MetaStoreProvider = (*Store)(nil)
	_ kv.Defaulter               = (*Store)(nil)
)

// MetaStore is the store's metadata space (kept with the data: roles and
// permissions of this process's keyspaces).
func (s *Store) MetaStore() bindings.MetaStore { return s }

// EngineDefaults hands the engine the salt the store was configured with.
func (s *Store) EngineDefaults() kv.Defaults { return kv.Defaults{Salt: s.cfg.Salt} }

// DescribeServer implements bindings.ServerDescriber: the storage, salt
// and sync settings of this process's store, and the Pebble version.
func (s *Store) DescribeServer(context.Context, []string) (bindings.ServerDescription, error) {
	layout := s.Format().String()
	return bindings.ServerDescription{
		Product: "dohyo embedded store (pebble " + moduleVersion("github.com/cockroachdb/pebble/v2") + ")",
		Settings: map[string]string{
			"storage":     cmp.Or(s.cfg.Dir, "memory"),
			"layout":      layout,
			"salt":        strconv.Itoa(s.cfg.Salt),
			"sync":        strconv.FormatBool(s.cfg.Sync),
			"consistency": "n/a (single process)",
			"replication": "none (one copy)",
		},
	}, nil
}

// moduleVersion is the version of a module linked into this binary.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
