package replay

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// series is one line of a chart.
type series struct {
	Name string
	X, Y []float64
	Grey []bool // per point: drawn grey (warm-up)
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// axis maps values to pixels, linearly or on a log10 scale.
type axis struct {
	lo, hi   float64
	p0, p1   float64
	log      bool
	reversed bool
}

func (a axis) px(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log {
		v, lo, hi = math.Log10(math.Max(v, a.lo)), math.Log10(lo), math.Log10(hi)
	}
	f := (v - lo) / (hi - lo)
	if a.reversed {
		f = 1 - f
	}
	return a.p0 + f*(a.p1-a.p0)
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

type chartOpts struct {
	title, xlabel, ylabel string
	w, h                  float64
	logX                  bool
	points                bool
	yMax                  float64 // shared scale (small multiples); 0: from the data
	legend                bool    // direct labels at the end of each line
	color                 string  // one colour for every series ("" : palette)
}

// svgChart draws series as an inline SVG line chart with axes. Lines are
// labelled directly at their last point, so overlapping lines can still be
// told apart; grey points (warm-up) are drawn grey.
func svgChart(o chartOpts, ss []series) template.HTML {
	w, h := o.w, o.h
	if w == 0 {
		w, h = 640, 300
	}
	const ml, mt, mb = 60.0, 26.0, 36.0
	mr := 20.0
	if o.legend {
		mr = 130
	}
	minX, maxX, maxY := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range ss {
		for i := range s.X {
			if o.logX && s.X[i] <= 0 {
				continue
			}
			minX, maxX = math.Min(minX, s.X[i]), math.Max(maxX, s.X[i])
			maxY = math.Max(maxY, s.Y[i])
		}
	}
	if o.yMax > 0 {
		maxY = o.yMax
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, w, h)
	fmt.Fprintf(&b, `<text x="%g" y="15" font-size="12" font-weight="bold">%s</text>`, ml, template.HTMLEscapeString(o.title))
	if math.IsInf(minX, 1) {
		b.WriteString(`<text x="80" y="80">no data</text></svg>`)
		return template.HTML(b.String())
	}
	if maxX == minX {
		maxX = minX + 1
		if o.logX {
			maxX = minX * 10
		}
	}
	if maxY <= 0 {
		maxY = 1
	}
	xa := axis{lo: minX, hi: maxX, p0: ml, p1: w - mr, log: o.logX}
	ya := axis{lo: 0, hi: maxY, p0: h - mb, p1: mt}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, ml, mt, w-ml-mr, h-mt-mb)
	for _, yv := range ya.ticks() {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%s</text><line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#eee"/>`,
			ml-4, ya.px(yv)+4, num(yv), ml, w-mr, ya.px(yv), ya.px(yv))
	}
	for _, xv := range xa.ticks() {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, xa.px(xv), h-mb+14, num(xv))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, (ml+w-mr)/2, h-6, template.HTMLEscapeString(o.xlabel))
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`, (mt+h-mb)/2, (mt+h-mb)/2, template.HTMLEscapeString(o.ylabel))
	for si, s := range ss {
		col := o.color
		if col == "" {
			col = palette[si%len(palette)]
		}
		var pts []string
		flush := func(c string) {
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, c, strings.Join(pts, " "))
			}
		}
		grey := false
		lastX, lastY := 0.0, 0.0
		for i := range s.X {
			if o.logX && s.X[i] <= 0 {
				continue
			}
			g := i < len(s.Grey) && s.Grey[i]
			if g != grey && len(pts) > 0 {
				c := col
				if grey {
					c = "#bbb"
				}
				flush(c)
				pts = pts[len(pts)-1:] // join the segments
			}
			grey = g
			x, y := xa.px(s.X[i]), ya.px(math.Min(s.Y[i], maxY))
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			lastX, lastY = x, y
			if o.points {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, x, y, col)
			}
		}
		c := col
		if grey {
			c = "#bbb"
		}
		flush(c)
		if o.legend {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`, lastX+4, lastY+4+float64(si%3-1)*10, col, template.HTMLEscapeString(s.Name))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws grouped horizontal bars: one group per class, one bar per
// target, each labelled with its value.
func barChart(title, unit string, groups []string, targets []string, val func(g, t int) float64) template.HTML {
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
		fmt.Fprintf(&b, `<text x="4" y="%g">%s</text>`, y+bh, template.HTMLEscapeString(short40(name)))
		for t, tn := range targets {
			v := val(g, t)
			bw := 0.0
			label := "–"
			if !math.IsNaN(v) {
				bw, label = v/maxV*(w-ml-150), num3(v)+" "+unit
			}
			fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%.1f" height="%g" fill="%s"><title>%s</title></rect><text x="%.1f" y="%g">%s %s</text>`,
				ml, y, bw, bh-2, palette[t%len(palette)], template.HTMLEscapeString(tn), ml+bw+4, y+bh-3, template.HTMLEscapeString(tn), label)
			y += bh
		}
		y += gap
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func num(v float64) string {
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

type htmlRow struct {
	Run, Target                           string
	Ops, Warmup                           int64
	Tput                                  string
	P50, P95, P99, P999, Max, IP99, Lag99 string
	Errors, Unexpected                    string
	Mismatches, Cross, Noise              int64
	Late                                  string
}

type htmlClass struct {
	Run, Target, FP string
	Ops             int64
	P50, P99, IP99  string
	Errors          string
	Mismatches      int64
	Examples        []Example
}

type htmlSchema struct {
	Run, Target string
	SchemaOutcome
	Ms string
}

type htmlCol struct{ Name, Help string }

type htmlData struct {
	C        Conditions
	Span     string
	Phases   string
	Verdicts []*Verdict
	Help     map[string]string
	Legend   []htmlCol
	Rows     []htmlRow
	Classes  []htmlClass
	Schema   []htmlSchema
	Charts   []template.HTML
}

func ms(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e6) }

func errString(m map[string]int64) string {
	var p []string
	for _, k := range sortedKeys(m) {
		p = append(p, fmt.Sprintf("%s=%d", k, m[k]))
	}
	if len(p) == 0 {
		return "none"
	}
	return strings.Join(p, " ")
}

// WriteHTML writes a single self-contained HTML page (inline SVG, no
// scripts, nothing fetched): the verdict first, then conditions, the
// schema phase, figures and charts.
func (r *Report) WriteHTML(w io.Writer) error {
	d := htmlData{C: r.Conditions, Span: r.Conditions.CaptureEnd.Sub(r.Conditions.CaptureStart).Round(time.Millisecond).String(),
		Phases: r.Conditions.Phases(), Verdicts: r.ComputeVerdicts(), Help: map[string]string{}}
	for _, c := range Columns {
		d.Help[c.Name] = c.Help
		d.Legend = append(d.Legend, htmlCol(c))
	}
	for ri, run := range r.Runs {
		for _, t := range run.Targets {
			d.Rows = append(d.Rows, htmlRow{Run: run.Label, Target: t.Name, Ops: t.Ops, Warmup: t.WarmupOps, Tput: fmt.Sprintf("%.1f", t.Throughput()),
				P50: ms(t.Actual.Quantile(.5)), P95: ms(t.Actual.Quantile(.95)), P99: ms(t.Actual.Quantile(.99)),
				P999: ms(t.Actual.Quantile(.999)), Max: ms(t.Actual.Max()), IP99: ms(t.Intended.Quantile(.99)),
				Lag99: ms(t.Lag.Quantile(.99)), Errors: errString(t.Errors), Unexpected: fmt.Sprint(t.Unexpected + t.WarmupUnexpected),
				Mismatches: t.Mismatches, Cross: t.CrossMismatches, Noise: t.Noise, Late: cmpOr(t.LateReason, "no")})
			fps := make([]string, 0, len(t.Classes))
			for fp := range t.Classes {
				fps = append(fps, fp)
			}
			sort.Strings(fps)
			for _, fp := range fps {
				c := t.Classes[fp]
				d.Classes = append(d.Classes, htmlClass{Run: run.Label, Target: t.Name, FP: fp, Ops: c.Ops,
					P50: ms(c.Actual.Quantile(.5)), P99: ms(c.Actual.Quantile(.99)), IP99: ms(c.Intended.Quantile(.99)),
					Errors: errString(c.Errors), Mismatches: c.Mismatches, Examples: c.Examples})
			}
			for _, so := range t.Schema {
				d.Schema = append(d.Schema, htmlSchema{Run: run.Label, Target: t.Name, SchemaOutcome: so, Ms: durMs(so.Duration)})
			}
		}
		d.Charts = append(d.Charts, runCharts(run, d.Verdicts[ri])...)
	}
	if len(r.Runs) > 1 {
		d.Charts = append(d.Charts, sweepCharts(r.Runs)...)
	}
	return htmlTmpl.Execute(w, d)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runCharts are one run's charts: throughput and latency over time as
// small multiples (one per target, shared scale, warm-up grey), the
// latency CDF on a log axis, and per-class percentile bars.
func runCharts(run *Run, v *Verdict) []template.HTML {
	var out []template.HTML
	maxT, maxL := 0.0, 0.0
	for _, t := range run.Targets {
		for _, b := range t.Timeline {
			maxT = math.Max(maxT, float64(b.Ops))
			maxL = math.Max(maxL, b.Quantile(.99)/1e6)
		}
	}
	var tput, lat strings.Builder
	for i, t := range run.Targets {
		ts := series{Name: t.Name}
		p50, p99 := series{Name: "p50"}, series{Name: "p99"}
		for _, b := range t.Timeline {
			ts.X, ts.Y, ts.Grey = append(ts.X, float64(b.Sec)), append(ts.Y, float64(b.Ops)), append(ts.Grey, b.Round == 0)
			if b.Ops > 0 {
				x, g := float64(b.Sec), b.Round == 0
				p50.X, p50.Y, p50.Grey = append(p50.X, x), append(p50.Y, b.Quantile(.5)/1e6), append(p50.Grey, g)
				p99.X, p99.Y, p99.Grey = append(p99.X, x), append(p99.Y, b.Quantile(.99)/1e6), append(p99.Grey, g)
			}
		}
		col := palette[i%len(palette)]
		tput.WriteString(string(svgChart(chartOpts{title: t.Name, xlabel: "seconds (grey: warm-up)", ylabel: "ops/s", w: 330, h: 200, yMax: maxT, color: col}, []series{ts})))
		lat.WriteString(string(svgChart(chartOpts{title: t.Name, xlabel: "seconds (grey: warm-up)", ylabel: "ms", w: 330, h: 200, yMax: maxL, legend: true, color: col}, []series{p99, p50})))
	}
	out = append(out,
		template.HTML(`<h3>`+template.HTMLEscapeString(run.Label)+`: throughput over time, per target (same scale)</h3><div class="sm">`+tput.String()+`</div>`),
		template.HTML(`<h3>`+template.HTMLEscapeString(run.Label)+`: intended latency per second (p50 and p99), per target (same scale)</h3><div class="sm">`+strings.ReplaceAll(lat.String(), "ms, log? no: linear", "ms")+`</div>`))
	var cdf []series
	for _, t := range run.Targets {
		cs := series{Name: t.Name}
		for _, p := range t.Intended.CDF() {
			cs.X, cs.Y = append(cs.X, p[0]/1e6), append(cs.Y, p[1]*100)
		}
		cdf = append(cdf, cs)
	}
	out = append(out, svgChart(chartOpts{title: run.Label + ": intended latency CDF (log x)", xlabel: "ms (log scale)", ylabel: "% of ops", logX: true, legend: true}, cdf))
	var groups []string
	for _, tf := range v.Figures[:min(1, len(v.Figures))] {
		for _, f := range tf.Classes {
			groups = append(groups, f.Class)
		}
	}
	if len(groups) > 12 {
		groups = groups[:12]
	}
	var names []string
	for _, tf := range v.Figures {
		names = append(names, tf.Target)
	}
	for _, q := range []struct {
		n string
		f func(Figures) Spread
	}{{"p50", func(f Figures) Spread { return f.P50 }}, {"p99", func(f Figures) Spread { return f.P99 }}} {
		out = append(out, barChart(run.Label+": "+q.n+" per statement class (median over rounds)", "ms", groups, names, func(g, t int) float64 {
			for _, f := range v.Figures[t].Classes {
				if f.Class == groups[g] && f.Ops > 0 {
					return q.f(f).Median
				}
			}
			return math.NaN()
		}))
	}
	return out
}

// sweepCharts are the saturation curves of a sweep: throughput and p99
// against the offered rate.
func sweepCharts(runs []*Run) []template.HTML {
	byName := map[string]*[2]series{}
	var names []string
	for _, run := range runs {
		for _, t := range run.Targets {
			s := byName[t.Name]
			if s == nil {
				s = &[2]series{{Name: t.Name}, {Name: t.Name}}
				byName[t.Name] = s
				names = append(names, t.Name)
			}
			offered := 0.0
			if t.ScheduleSpan > 0 {
				offered = float64(t.Ops) / t.ScheduleSpan.Seconds()
			}
			f := t.figures("")
			s[0].X, s[0].Y = append(s[0].X, offered), append(s[0].Y, f.Throughput.Median)
			s[1].X, s[1].Y = append(s[1].X, offered), append(s[1].Y, f.P99.Median)
		}
	}
	var tp, p99 []series
	for _, n := range names {
		tp, p99 = append(tp, byName[n][0]), append(p99, byName[n][1])
	}
	return []template.HTML{
		svgChart(chartOpts{title: "sweep: throughput vs offered rate", xlabel: "offered ops/s (ops / schedule span)", ylabel: "achieved ops/s", points: true, legend: true}, tp),
		svgChart(chartOpts{title: "sweep: intended p99 vs offered rate", xlabel: "offered ops/s", ylabel: "p99 ms", points: true, legend: true}, p99),
	}
}

var htmlTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>dohyo replay report</title>
<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin-bottom:1.2em}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;text-align:right}td.l,th.l{text-align:left}th[title]{cursor:help;text-decoration:underline dotted}
.bad{color:#b00;font-weight:bold}.noise{color:#777}.verdict{background:#f6f8fa;border:1px solid #ddd;padding:0.5em 1em;margin-bottom:1em}
.verdict p{font-size:15px;margin:0.4em 0}.sm svg{display:inline-block;margin-right:8px}.warn{color:#a60;font-weight:bold}
dl.legend{font-size:12px;display:grid;grid-template-columns:max-content auto;gap:2px 12px}dl.legend dt{font-weight:bold}dl.legend dd{margin:0}</style></head><body>
<h1>dohyo replay report</h1>
{{range .C.Warnings}}<p class="warn">⚠ not equal conditions: {{.}}</p>{{end}}
{{range .Verdicts}}<section class="verdict" id="verdict">
<h2>Verdict</h2><p style="font-size:12px">{{.Run}}: baseline <b>{{.Baseline}}</b>, {{.Rounds}} measured round(s) per target; ratios are medians over rounds with a 95% bootstrap interval.</p>
{{range .Sentences}}<p>{{.}}</p>{{end}}
{{if .Rows}}<table><tr><th class="l" title="{{index $.Help "target"}}">target</th><th class="l" title="{{index $.Help "class"}}">class</th><th title="{{index $.Help "ops/s ×"}}">ops/s ×</th><th title="{{index $.Help "p50 ×"}}">p50 ×</th><th title="{{index $.Help "p99 ×"}}">p99 ×</th><th title="{{index $.Help "p99.9 ×"}}">p99.9 ×</th><th title="{{index $.Help "errors"}}">errors</th><th title="{{index $.Help "unexpected"}}">unexpected</th><th title="{{index $.Help "mismatches"}}">mismatches</th><th title="{{index $.Help "lag p99"}}">lag p99 ms</th><th class="l" title="{{index $.Help "could not keep up"}}">could not keep up</th></tr>
{{range .Rows}}<tr><td class="l">{{.Target}}</td><td class="l">{{.Class}}</td><td{{if .Throughput.Noise}} class="noise"{{end}}>{{.Throughput}}</td><td{{if .P50.Noise}} class="noise"{{end}}>{{.P50}}</td><td{{if .P99.Noise}} class="noise"{{end}}>{{.P99}}</td><td{{if .P999.Noise}} class="noise"{{end}}>{{.P999}}</td><td>{{.Errors}}</td><td>{{.UnexpectedCell}}</td><td{{if or .Mismatches .Cross}} class="bad"{{end}}>{{.MismatchCell}}</td><td>{{.LagCell}}</td><td class="l{{if .Late}} bad{{end}}">{{.LateCell}}</td></tr>
{{end}}</table>{{if .Omitted}}<p style="font-size:12px">{{.Omitted}} less busy statement classes are not compared here: see Statement classes below.</p>{{end}}{{end}}
<h3>Figures (median [min–max] over rounds; latency from the intended send time, ms)</h3>
<table><tr><th class="l" title="{{index $.Help "target"}}">target</th><th class="l" title="{{index $.Help "class"}}">class</th><th title="operations in all measured rounds">ops</th><th title="operations per second of a round">ops/s</th><th title="median latency">p50</th><th title="99th percentile latency">p99</th><th title="99.9th percentile latency">p99.9</th></tr>
{{range .Figures}}{{$t := .Target}}<tr><td class="l"><b>{{$t}}</b></td><td class="l">{{.Overall.Class}}</td><td>{{.Overall.Ops}}</td><td>{{.Overall.TputCell}}</td><td>{{.Overall.P50Cell}}</td><td>{{.Overall.P99Cell}}</td><td>{{.Overall.P999Cell}}</td></tr>
{{range .Classes}}<tr><td class="l">{{$t}}</td><td class="l">{{.Class}}</td><td>{{.Ops}}</td><td>{{.TputCell}}</td><td>{{.P50Cell}}</td><td>{{.P99Cell}}</td><td>{{.P999Cell}}</td></tr>
{{end}}{{end}}</table>
</section>{{end}}
<details open><summary>Legend</summary><dl class="legend">{{range .Legend}}<dt>{{.Name}}</dt><dd>{{.Help}}</dd>{{end}}</dl></details>
<h2>Conditions</h2>
<table>
<tr><th class="l">machine</th><td class="l">{{.C.Machine}}</td></tr>
<tr><th class="l">phases</th><td class="l">{{.Phases}}</td></tr>
<tr><th class="l">captures</th><td class="l">{{range .C.Captures}}{{.}} {{else}}none named{{end}}</td></tr>
<tr><th class="l">provenance</th><td class="l">{{.C.Provenance}}</td></tr>
<tr><th class="l">capture span</th><td class="l">{{.C.CaptureStart}} → {{.C.CaptureEnd}} ({{.Span}})</td></tr>
<tr><th class="l">records / bytes / sessions</th><td class="l">{{.C.Records}} / {{.C.CaptureBytes}} / {{.C.Sessions}}</td></tr>
<tr><th class="l">mode</th><td class="l">{{or .C.Mode "unknown"}} {{if .C.Speeds}}speeds {{.C.Speeds}}{{end}}{{if .C.Rate}} rate {{.C.Rate}} ops/s{{end}}{{if .C.Concurrency}} concurrency {{.C.Concurrency}}{{end}}{{if .C.Duration}} duration {{.C.Duration}}{{end}}</td></tr>
<tr><th class="l">shards</th><td class="l">{{range .C.Shards}}{{.}} {{else}}none (one replayer){{end}}</td></tr>
<tr><th class="l">dohyo version</th><td class="l">{{or .C.DohyoVersion "unknown"}} (capture written by {{range .C.CaptureDohyos}}{{.}} {{else}}unknown{{end}})</td></tr>
<tr><th class="l">could-not-keep-up rule</th><td class="l">a measured round with lag p99 &gt; {{.C.LagThreshold}} or finishing &gt; {{.C.LateFraction}} later than its schedule</td></tr>
{{range .C.Targets}}<tr><th class="l">target {{.Name}}</th><td class="l">{{.URL}}{{if .Server}}<br>server: <b>{{.Server}}</b>{{end}}{{range $k, $v := .Settings}}<br>{{$k}}: {{$v}}{{end}}</td></tr>
{{end}}</table>
<h2>Schema phase (untimed, in no figure)</h2>
{{if .Schema}}<table><tr><th class="l">run</th><th class="l">target</th><th class="l" title="schema: --create-schema before the clock; captured: a schema change in the stream, replayed in place with the schedule paused">phase</th><th title="wall time of the statement">ms</th><th class="l">result</th><th class="l">statement</th></tr>
{{range .Schema}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Target}}</td><td class="l">{{.Phase}}</td><td>{{.Ms}}</td><td class="l">{{.Result}}</td><td class="l">{{.Statement}}</td></tr>
{{end}}</table>{{else}}<p>No schema statements (no --create-schema, none captured).</p>{{end}}
<h2>All measured rounds together (latency in ms; actual unless noted)</h2>
<table><tr><th class="l">run</th><th class="l">target</th><th title="operations in all measured rounds">ops</th><th title="warm-up operations (in no figure)">warm-up ops</th><th title="ops over the measured time of all rounds">ops/s</th><th>p50</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th title="99th percentile from the intended send time">intended p99</th><th title="{{index $.Help "lag p99"}}">lag p99</th><th class="l">errors</th><th title="{{index $.Help "unexpected"}}">unexpected</th><th title="reads that differed from the capture">mismatches</th><th title="reads that differed from the baseline target">vs baseline</th><th title="reads whose captured result was nondeterministic (now(), racing writes...): compared with nothing">noise</th><th class="l" title="{{index $.Help "could not keep up"}}">could not keep up</th></tr>
{{range .Rows}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Target}}</td><td>{{.Ops}}</td><td>{{.Warmup}}</td><td>{{.Tput}}</td><td>{{.P50}}</td><td>{{.P95}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td><td>{{.IP99}}</td><td>{{.Lag99}}</td><td class="l">{{.Errors}}</td><td>{{.Unexpected}}</td><td{{if .Mismatches}} class="bad"{{end}}>{{.Mismatches}}</td><td>{{.Cross}}</td><td>{{.Noise}}</td><td class="l">{{.Late}}</td></tr>
{{end}}</table>
<h2>Charts</h2>
{{range .Charts}}<div>{{.}}</div>{{end}}
<h2>Statement classes</h2>
<table><tr><th class="l">run</th><th class="l">target</th><th class="l">fingerprint</th><th>ops</th><th>p50</th><th>p99</th><th>intended p99</th><th class="l">errors</th><th>mismatches</th></tr>
{{range .Classes}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Target}}</td><td class="l">{{.FP}}</td><td>{{.Ops}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.IP99}}</td><td class="l">{{.Errors}}</td><td>{{.Mismatches}}</td></tr>
{{range .Examples}}<tr><td class="l">↳</td><td class="l">example</td><td class="l" colspan="7">vs {{.Against}}: {{.Statement}} [{{.Values}}] want {{.WantRows}} rows, got {{.GotRows}}</td></tr>{{end}}
{{end}}</table>
</body></html>
`))
