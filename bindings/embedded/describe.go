package embedded

import (
	"cmp"
	"context"
	"runtime/debug"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
)

var (
	_ bindings.ServerDescriber = (*Backend)(nil)
	_ bindings.SystemNamer     = (*Backend)(nil)
)

// DescribeServer implements bindings.ServerDescriber: the storage, salt
// and sync settings of this process's store, and the Pebble version.
func (b *Backend) DescribeServer(context.Context, []string) (bindings.ServerDescription, error) {
	layout := "unknown"
	if b.store != nil {
		layout = b.store.Format().String()
	}
	return bindings.ServerDescription{
		Product: "dohyo embedded store (pebble " + moduleVersion("github.com/cockroachdb/pebble/v2") + ")",
		Settings: map[string]string{
			"storage":     cmp.Or(b.cfg.Dir, "memory"),
			"layout":      layout,
			"salt":        strconv.Itoa(b.cfg.Engine.Salt),
			"sync":        strconv.FormatBool(b.cfg.Sync),
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
