package testlock

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLockExcludes: while one holder has the lock, a second flock on the
// same file fails; once released it succeeds.
func TestLockExcludes(t *testing.T) {
	name := "test-" + filepath.Base(t.TempDir())
	unlock, err := Lock(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(os.TempDir(), "dohyo-testlock-"+name)
	defer os.Remove(path)
	other, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != syscall.EWOULDBLOCK {
		t.Fatalf("flock while held: %v, want EWOULDBLOCK", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("flock after unlock: %v", err)
	}
	if _, err := Lock("a/b"); err == nil {
		t.Error("a name with a slash was accepted")
	}
}
