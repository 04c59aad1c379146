package testtools

import (
	"os"
	"os/exec"
	"testing"
)

// Tcpdump returns tcpdump's path (scripts/install-tools.sh installs it)
// when the test may capture packets with it (as root).
func Tcpdump(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("tcpdump")
	if err == nil && os.Geteuid() == 0 {
		return path
	}
	why := "tcpdump is not installed (scripts/install-tools.sh installs it)"
	if err == nil {
		why = "capturing needs root"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}
