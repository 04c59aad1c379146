// Package stats holds the small summary statistics that dohyo's replay
// verdicts, benchmark commands and benchmark harnesses share (one median,
// not one per caller).
package stats
