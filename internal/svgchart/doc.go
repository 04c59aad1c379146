// Package svgchart draws the inline SVG charts of dohyo's offline HTML
// reports (replay verdicts, soak reports): line charts with direct labels,
// optional shaded bands on the x axis (fault windows), and grouped bars.
// The output is a self-contained <svg> element: no scripts, nothing fetched.
package svgchart
