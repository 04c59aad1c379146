package testlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Lock blocks until this process holds the lock called name, and returns
// the function that releases it. Names are file names: letters, digits,
// '-', '_' and '.'.
func Lock(name string) (unlock func() error, err error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("testlock: bad name %q", name)
	}
	path := filepath.Join(os.TempDir(), "dohyo-testlock-"+name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("testlock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("testlock: lock %s: %w", path, err)
	}
	return func() error {
		// Closing the file releases the lock.
		if err := f.Close(); err != nil {
			return fmt.Errorf("testlock: unlock %s: %w", path, err)
		}
		return nil
	}, nil
}
