//go:build !nohbase

package difftest_test

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// HBase joins the differential test when DOHYO_TEST_HBASE_ZK is set. Build
// with -tags nohbase to leave the package out while it does not compile.
func init() {
	optionalTargets = append(optionalTargets, optionalTarget{
		name: "hbase", env: "DOHYO_TEST_HBASE_ZK",
		open: func(ctx context.Context, addr string) (bindings.Backend, error) {
			return stores.OpenURL(ctx, "hbase://"+addr, engine.Options{})
		},
	})
}
