// Package deptest checks package layering in tests: what a package and
// everything it imports depend on, from `go list -deps`, so that a test can
// fail when a package reaches one it must not (docs/ARCHITECTURE.md).
package deptest
