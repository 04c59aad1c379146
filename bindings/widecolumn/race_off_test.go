//go:build !race

package widecolumn

const raceEnabled = false
