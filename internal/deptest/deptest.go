package deptest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Deps lists the packages pkg (a path relative to the module root, e.g.
// "./engine", or an import path) depends on, itself included, from
// `go list -deps` run in dir ("" for the current directory).
func Deps(t testing.TB, dir, pkg string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", pkg)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// Packages lists the module's packages (`go list ./...` in dir).
func Packages(t testing.TB, dir string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	cmd := exec.Command(gobin, "list", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	return strings.Fields(string(out))
}

// Forbid fails t for every package the package in the current directory
// depends on (itself and its imports, transitively) whose import path
// starts with one of the prefixes. sure names a package the list must
// contain, so that an empty or wrong listing cannot pass.
func Forbid(t testing.TB, sure string, prefixes ...string) {
	t.Helper()
	deps := Deps(t, "", ".")
	if !slices.Contains(deps, sure) {
		t.Fatalf("go list -deps lists no %s: %q", sure, deps)
	}
	for _, p := range deps {
		for _, f := range prefixes {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("depends on %s", p)
			}
		}
	}
}
