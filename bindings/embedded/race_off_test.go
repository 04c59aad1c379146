//go:build !race

package embedded

const raceEnabled = false
