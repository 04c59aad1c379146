//go:build cassandra_ref

package bindingtest_test

// Validates the conformance scenarios against a real Cassandra through
// cassandra.NativeBackend: raw native-protocol v4 frames (QUERY, PREPARE,
// EXECUTE and BATCH with raw values) and no driver in between, so that where
// Cassandra disagrees with a scenario, the scenario is known to be wrong.
//
//	DOHYO_TEST_CASSANDRA=127.0.0.1:9042 go test -tags cassandra_ref \
//	    -run TestConformanceAgainstCassandra ./bindings/bindingtest/

import (
	"os"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/bindingtest"
	"github.com/dohyo/dohyo/bindings/cassandra"
)

const cassandraEnv = "DOHYO_TEST_CASSANDRA"

func TestConformanceAgainstCassandra(t *testing.T) {
	addr := os.Getenv(cassandraEnv)
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set (required in CI)", cassandraEnv)
		}
		t.Skipf("%s not set", cassandraEnv)
	}
	cfg := cassandra.DefaultConfig()
	cfg.Hosts = strings.Split(addr, ",")
	bindingtest.Run(t, func(t *testing.T) bindings.Backend {
		b, err := cassandra.OpenNative(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}
