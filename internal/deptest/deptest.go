package deptest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Forbid fails t for every package the package in the current directory
// depends on (itself and its imports, transitively) whose import path
// starts with one of the prefixes. sure names a package the list must
// contain, so that an empty or wrong listing cannot pass.
func Forbid(t testing.TB, sure string, prefixes ...string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
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
