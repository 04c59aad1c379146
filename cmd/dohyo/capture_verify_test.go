package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureVerifyCommand: `dohyo capture verify` names each problem in
// words and exits non-zero for an empty segment file.
func TestCaptureVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "empty.seg")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"capture", "verify", p})
	err := cmd.ExecuteContext(context.Background())
	if err == nil || exitCode(err) == 0 {
		t.Fatalf("verify of an empty file: err %v, want a non-zero exit", err)
	}
	if s := out.String(); !strings.Contains(s, "PROBLEM") || !strings.Contains(s, "empty file: no segment header") || strings.Contains(s, "{}") {
		t.Errorf("output does not name the problem:\n%s", s)
	}
}
