package deptest

import (
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/dohyo/dohyo/"

// layoutRule says what a package (and everything it imports) must not
// depend on. A forbidden entry ending in "/..." covers the package and every
// package under it; otherwise it is one package. sure names a dependency the
// listing must contain, so that an empty or wrong listing cannot pass.
type layoutRule struct {
	pkg, sure string
	forbid    []string
	why       string
}

// layoutRules are the seams of docs/ARCHITECTURE.md, as import rules.
var layoutRules = []layoutRule{
	{pkg: "engine", sure: "engine/kv",
		forbid: []string{"bindings/embedded/...", "bindings/hbase/...", "bindings/cassandra/...", "proxy/...", "graphql/...", "capture/...", "replay/...", "mirror/..."},
		why:    "the engine runs on any store through engine/kv and knows no front end"},
	{pkg: "engine/kv", sure: "context",
		forbid: []string{"engine", "engine/udf/...", "bindings/...", "schema/...", "cql/..."},
		why:    "the KV seam is bytes and capabilities: a store implementing it needs nothing of the engine"},
	{pkg: "engine/udf/java", sure: "cql",
		forbid: []string{"engine", "engine/kv/...", "schema/...", "bindings/..."},
		why:    "the UDF runtime runs function bodies on serialized values; it knows no catalog or store"},
	{pkg: "schema", sure: "cql",
		forbid: []string{"engine/...", "bindings/..."},
		why:    "the catalog keeps function bodies as text; the engine compiles them (schema.Options.CheckFunction)"},
	{pkg: "proxy/cqlserver", sure: "bindings",
		forbid: []string{"engine/...", "bindings/embedded/...", "bindings/hbase/...", "bindings/cassandra/..."},
		why:    "the CQL endpoint talks to backends through bindings only"},
	{pkg: "graphql", sure: "bindings",
		forbid: []string{"engine/...", "bindings/embedded/...", "bindings/hbase/...", "bindings/cassandra/...", "proxy/cqlserver/..."},
		why:    "the GraphQL endpoint talks to backends through the coordinator (proxy) only"},
	{pkg: "proxy", sure: "bindings",
		forbid: []string{"engine/...", "bindings/embedded/...", "bindings/hbase/...", "bindings/cassandra/...", "proxy/cqlserver/...", "graphql/..."},
		why:    "the coordinator routes to bindings.Backend values; it knows no store and no endpoint"},
	{pkg: "bindings/cassandra", sure: "bindings",
		forbid: []string{"engine/...", "bindings/embedded/...", "bindings/hbase/...", "proxy/..."},
		why:    "the Cassandra binding and relay forward to Cassandra: they share no code with the engine (the partitioner is internal/murmur3)"},
	{pkg: "internal/conncore", sure: "cql/wire",
		forbid: []string{"proxy/...", "bindings/...", "engine/...", "graphql/...", "schema/..."},
		why:    "the connection core is sockets and frames: it knows neither of the ends that use it"},
	{pkg: "proxy/cqlserver", sure: "internal/conncore",
		forbid: []string{"bindings/cassandra/relay/..."},
		why:    "the CQL server writes its connections through the one connection core (it shares it with the relay, not the relay's code)"},
	{pkg: "bindings/cassandra/relay", sure: "internal/conncore",
		forbid: []string{"proxy/..."},
		why:    "the relay writes its connections to Cassandra through the one connection core"},
	{pkg: "bindings/stores", sure: "engine",
		forbid: []string{"proxy/...", "graphql/...", "capture/...", "replay/...", "mirror/..."},
		why:    "opening the engine on a store is below the coordinator"},
	{pkg: "bindings/faulty", sure: "bindings",
		forbid: []string{"engine/...", "bindings/embedded/...", "bindings/hbase/...", "proxy/..."},
		why:    "the test wrapper wraps any backend"},
	{pkg: "cmd/dohyo", sure: "engine",
		forbid: []string{"bindings/faulty/...", "engine/kv/kvfault/...", "engine/faulttest/...", "bindings/bindingtest/...", "engine/kv/kvtest/..."},
		why:    "fault injection and conformance suites are for tests: nothing test-only is in the product"},
	{pkg: "mirror", sure: "replay",
		forbid: []string{"proxy/...", "engine/...", "bindings/embedded/...", "bindings/hbase/..."},
		why:    "the mirror is a Tap that replays live traffic: it imports neither the coordinator nor the server"},
	{pkg: "bindings/embedded", sure: "engine/kv",
		forbid: []string{"engine", "engine/udf/...", "bindings/hbase/...", "bindings/stores/...", "proxy/...", "graphql/...", "capture/...", "replay/...", "mirror/..."},
		why:    "a store implements the KV seam only: the engine (planner, UDF runtime) and the front ends are above it"},
	{pkg: "bindings/hbase", sure: "engine/kv",
		forbid: []string{"engine", "engine/udf/...", "bindings/embedded/...", "bindings/stores/...", "proxy/...", "graphql/...", "capture/...", "replay/...", "mirror/..."},
		why:    "a store implements the KV seam only: the engine (planner, UDF runtime) and the front ends are above it"},
}

// TestLayout checks every layout rule against `go list -deps`.
func TestLayout(t *testing.T) {
	for _, r := range layoutRules {
		t.Run(r.pkg, func(t *testing.T) {
			deps := Deps(t, "../..", "./"+r.pkg)
			sure := r.sure
			if strings.Contains(sure, "/") || !isStd(sure) {
				sure = mod + sure
			}
			if !slices.Contains(deps, sure) {
				t.Fatalf("go list -deps ./%s lists no %s", r.pkg, sure)
			}
			for _, d := range deps {
				for _, f := range r.forbid {
					if matches(d, f) {
						t.Errorf("%s depends on %s: %s", r.pkg, strings.TrimPrefix(d, mod), r.why)
					}
				}
			}
		})
	}
}

func isStd(p string) bool { return p == "context" }

func matches(dep, forbid string) bool {
	if base, ok := strings.CutSuffix(forbid, "/..."); ok {
		return dep == mod+base || strings.HasPrefix(dep, mod+base+"/")
	}
	return dep == mod+forbid
}

// TestLayoutRulesFail checks that a rule can fail: the engine does
// depend on engine/kv and bindings, so forbidding them must match.
func TestLayoutRulesFail(t *testing.T) {
	deps := Deps(t, "../..", "./engine")
	for _, f := range []string{"engine/kv", "bindings", "engine/udf/..."} {
		if !slices.ContainsFunc(deps, func(d string) bool { return matches(d, f) }) {
			t.Errorf("forbidding %s would not catch the engine's own dependency", f)
		}
	}
	if matches(mod+"engine/kv", "engine") || !matches(mod+"engine/kv", "engine/...") {
		t.Error("a plain entry must name one package; /... the subtree")
	}
}
