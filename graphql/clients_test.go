package graphql

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientTool returns a real client's path from env; under CI a missing
// one fails (scripts/with-backends.sh exports them), elsewhere it skips.
func clientTool(t *testing.T, env, what string) string {
	t.Helper()
	if v := os.Getenv(env); v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set: CI runs %s (make test exports it)", env, what)
	}
	t.Skipf("%s not set: run via make test (scripts/with-backends.sh) to use %s", env, what)
	return ""
}

func runClient(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPythonGQLClient runs PyPI gql (it/python/requirements.txt) with the
// schema fetched from dohyo: its default introspection query, a client
// schema built from the answer, documents validated client-side.
func TestPythonGQLClient(t *testing.T) {
	py := clientTool(t, "DOHYO_TEST_PYTHON", "PyPI gql (it/python/setup.sh's venv)")
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int)`)
		runClient(t, py, "testdata/gql_client.py", e.http.URL, e.ks)
	})
}

// TestGraphQLJSClient runs graphql-js (it/node/package.json):
// getIntrospectionQuery with and without every option, buildClientSchema,
// client-side validation, execution.
func TestGraphQLJSClient(t *testing.T) {
	mods := clientTool(t, "DOHYO_TEST_NODE_MODULES", "graphql-js (it/node/setup.sh)")
	node := "node"
	if v := os.Getenv("DOHYO_TEST_NODE"); v != "" {
		node = v
	}
	script, err := filepath.Abs("testdata/graphqljs_client.cjs")
	if err != nil {
		t.Fatal(err)
	}
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int)`)
		runClient(t, node, script, mods, e.http.URL, e.ks)
	})
}
