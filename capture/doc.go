// Package capture records every request and its outcome into compressed,
// self-describing segment files, and reads and merges them back.
package capture
