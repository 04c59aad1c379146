package svgchart

import (
	"math"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	if got := string(Line(Options{Title: "t"}, nil)); !strings.Contains(got, "no data") {
		t.Fatalf("empty chart: %s", got)
	}
	s := Series{Name: "a<b", X: []float64{0, 1, 2}, Y: []float64{1, 2, 3}, Grey: []bool{true, true}}
	got := string(Line(Options{Title: "x", Legend: true, Bands: []Band{{From: 0.5, To: 1.5, Label: "kill"}}}, []Series{s}))
	if strings.Count(got, "<polyline") != 2 { // grey warm-up segment, then the line
		t.Errorf("want 2 polylines: %s", got)
	}
	if !strings.Contains(got, `fill="#fde8c8"`) || !strings.Contains(got, ">kill</text>") {
		t.Errorf("band missing: %s", got)
	}
	if !strings.Contains(got, "a&lt;b") {
		t.Errorf("labels are escaped: %s", got)
	}
}

func TestBars(t *testing.T) {
	got := string(Bars("b", "ms", []string{"g"}, []string{"t1", "t2"}, func(g, t int) float64 {
		if t == 1 {
			return math.NaN()
		}
		return 2
	}, strings.ToUpper, Num))
	if !strings.Contains(got, ">G</text>") || !strings.Contains(got, "t1 2 ms") || !strings.Contains(got, "t2 –") {
		t.Errorf("bars: %s", got)
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{2.5e6: "2.5M", 15000: "15k", 340: "340", 3: "3", 0.25: "0.25", 0.003: "0.003"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}
