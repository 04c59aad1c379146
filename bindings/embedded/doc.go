// Package embedded is dohyo's default backend: the widecolumn engine on
// Pebble, on disk or in memory, with a fault-injection hook for tests.
package embedded
