package svgchart

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Series is one line of a chart.
type Series struct {
	Name string
	X, Y []float64
	Grey []bool // per point: drawn grey (e.g. warm-up)
}

// Band is a shaded stretch of the x axis, labelled at its top (e.g. a
// fault window).
type Band struct {
	From, To float64
	Label    string
}

// Palette is the colour of the n-th series.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// Color is the palette colour of series i.
func Color(i int) string { return Palette[i%len(Palette)] }

// axis maps values to pixels, linearly or on a log10 scale.
type axis struct {
	lo, hi float64
	p0, p1 float64
	log    bool
}

func (a axis) px(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log {
		v, lo, hi = math.Log10(math.Max(v, a.lo)), math.Log10(lo), math.Log10(hi)
	}
	return a.p0 + (v-lo)/(hi-lo)*(a.p1-a.p0)
}

// ticks are 5 linear ticks, or one per power of ten on a log axis.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		for e := math.Floor(math.Log10(a.lo)); e <= math.Ceil(math.Log10(a.hi)); e++ {
			if v := math.Pow(10, e); v >= a.lo && v <= a.hi {
				out = append(out, v)
			}
		}
		return out
	}
	for i := 0; i <= 4; i++ {
		out = append(out, a.lo+(a.hi-a.lo)*float64(i)/4)
	}
	return out
}

// Options shape a line chart.
type Options struct {
	Title, XLabel, YLabel string
	W, H                  float64 // 0: 640×300
	LogX                  bool
	Points                bool
	YMax                  float64 // shared scale (small multiples); 0: from the data
	Legend                bool    // direct labels at the end of each line
	Color                 string  // one colour for every series ("": the palette)
	Bands                 []Band  // shaded x ranges, drawn under the lines
}

// Line draws series as an inline SVG line chart with axes. Lines are
// labelled directly at their last point, so overlapping lines can still be
// told apart; grey points are drawn grey.
func Line(o Options, ss []Series) template.HTML {
	w, h := o.W, o.H
	if w == 0 {
		w, h = 640, 300
	}
	const ml, mt, mb = 60.0, 26.0, 36.0
	mr := 20.0
	if o.Legend {
		mr = 130
	}
	minX, maxX, maxY := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range ss {
		for i := range s.X {
			if o.LogX && s.X[i] <= 0 {
				continue
			}
			minX, maxX = math.Min(minX, s.X[i]), math.Max(maxX, s.X[i])
			maxY = math.Max(maxY, s.Y[i])
		}
	}
	if o.YMax > 0 {
		maxY = o.YMax
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, w, h)
	fmt.Fprintf(&b, `<text x="%g" y="15" font-size="12" font-weight="bold">%s</text>`, ml, template.HTMLEscapeString(o.Title))
	if math.IsInf(minX, 1) {
		b.WriteString(`<text x="80" y="80">no data</text></svg>`)
		return template.HTML(b.String())
	}
	if maxX == minX {
		maxX = minX + 1
		if o.LogX {
			maxX = minX * 10
		}
	}
	if maxY <= 0 {
		maxY = 1
	}
	xa := axis{lo: minX, hi: maxX, p0: ml, p1: w - mr, log: o.LogX}
	ya := axis{lo: 0, hi: maxY, p0: h - mb, p1: mt}
	for _, bd := range o.Bands {
		x0, x1 := xa.px(math.Max(bd.From, minX)), xa.px(math.Min(bd.To, maxX))
		if x1 <= x0 {
			x1 = x0 + 1
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%g" width="%.1f" height="%g" fill="#fde8c8"><title>%s</title></rect><text x="%.1f" y="%g" fill="#b05a00">%s</text>`,
			x0, mt, x1-x0, h-mt-mb, template.HTMLEscapeString(bd.Label), x0+2, mt+11, template.HTMLEscapeString(bd.Label))
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, ml, mt, w-ml-mr, h-mt-mb)
	for _, yv := range ya.ticks() {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%s</text><line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#eee"/>`,
			ml-4, ya.px(yv)+4, Num(yv), ml, w-mr, ya.px(yv), ya.px(yv))
	}
	for _, xv := range xa.ticks() {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, xa.px(xv), h-mb+14, Num(xv))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, (ml+w-mr)/2, h-6, template.HTMLEscapeString(o.XLabel))
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`, (mt+h-mb)/2, (mt+h-mb)/2, template.HTMLEscapeString(o.YLabel))
	for si, s := range ss {
		col := o.Color
		if col == "" {
			col = Color(si)
		}
		drawSeries(&b, o, s, col, si, xa, ya, maxY)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// drawSeries draws one line (grey stretches grey) and its direct label.
func drawSeries(b *strings.Builder, o Options, s Series, col string, si int, xa, ya axis, maxY float64) {
	var pts []string
	flush := func(c string) {
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, c, strings.Join(pts, " "))
		}
	}
	greyOr := func(grey bool) string {
		if grey {
			return "#bbb"
		}
		return col
	}
	grey := false
	lastX, lastY := 0.0, 0.0
	for i := range s.X {
		if o.LogX && s.X[i] <= 0 {
			continue
		}
		g := i < len(s.Grey) && s.Grey[i]
		if g != grey && len(pts) > 0 {
			flush(greyOr(grey))
			pts = pts[len(pts)-1:] // join the segments
		}
		grey = g
		x, y := xa.px(s.X[i]), ya.px(math.Min(s.Y[i], maxY))
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		lastX, lastY = x, y
		if o.Points {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, x, y, col)
		}
	}
	flush(greyOr(grey))
	if o.Legend {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`, lastX+4, lastY+4+float64(si%3-1)*10, col, template.HTMLEscapeString(s.Name))
	}
}

// Bars draws grouped horizontal bars: one group per class, one bar per
// target, each labelled with its value (NaN: no bar, "–"). label shortens
// a group's name; format prints a value.
func Bars(title, unit string, groups, targets []string, val func(g, t int) float64, label func(string) string, format func(float64) string) template.HTML {
	const ml, bh, gap, w = 300.0, 12.0, 10.0, 760.0
	h := 30 + float64(len(groups))*(float64(len(targets))*bh+gap) + 20
	maxV := 0.0
	for g := range groups {
		for t := range targets {
			if v := val(g, t); !math.IsNaN(v) {
				maxV = math.Max(maxV, v)
			}
		}
	}
	if maxV <= 0 {
		maxV = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, w, h)
	fmt.Fprintf(&b, `<text x="4" y="15" font-size="12" font-weight="bold">%s</text>`, template.HTMLEscapeString(title))
	y := 28.0
	for g, name := range groups {
		fmt.Fprintf(&b, `<text x="4" y="%g">%s</text>`, y+bh, template.HTMLEscapeString(label(name)))
		for t, tn := range targets {
			v := val(g, t)
			bw := 0.0
			text := "–"
			if !math.IsNaN(v) {
				bw, text = v/maxV*(w-ml-150), format(v)+" "+unit
			}
			fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%.1f" height="%g" fill="%s"><title>%s</title></rect><text x="%.1f" y="%g">%s %s</text>`,
				ml, y, bw, bh-2, Color(t), template.HTMLEscapeString(tn), ml+bw+4, y+bh-3, template.HTMLEscapeString(tn), text)
			y += bh
		}
		y += gap
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// Num prints an axis value compactly (1.2M, 15k, 340, 0.25, 0.003).
func Num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a < 0.1:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
