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
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// svgChart draws series as an inline SVG line chart with axes; logX puts
// the x axis on a log10 scale (for CDF tails it is the y that matters, so
// callers pass transformed values instead).
func svgChart(title, xlabel, ylabel string, ss []series, points bool) template.HTML {
	const w, h, ml, mr, mt, mb = 640.0, 300.0, 70.0, 150.0, 30.0, 40.0
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range ss {
		for i := range s.X {
			minX, maxX = math.Min(minX, s.X[i]), math.Max(maxX, s.X[i])
			maxY = math.Max(maxY, s.Y[i])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, w, h)
	fmt.Fprintf(&b, `<text x="%g" y="16" font-size="13" font-weight="bold">%s</text>`, ml, template.HTMLEscapeString(title))
	if math.IsInf(minX, 1) {
		b.WriteString(`<text x="80" y="120">no data</text></svg>`)
		return template.HTML(b.String())
	}
	if maxX == minX {
		maxX = minX + 1
	}
	if maxY <= minY {
		maxY = minY + 1
	}
	pw, ph := w-ml-mr, h-mt-mb
	px := func(x float64) float64 { return ml + (x-minX)/(maxX-minX)*pw }
	py := func(y float64) float64 { return mt + ph - (y-minY)/(maxY-minY)*ph }
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, ml, mt, pw, ph)
	for i := 0; i <= 4; i++ {
		yv := minY + (maxY-minY)*float64(i)/4
		xv := minX + (maxX-minX)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%s</text>`, ml-4, py(yv)+4, num(yv))
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#eee"/>`, ml, ml+pw, py(yv), py(yv))
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, px(xv), mt+ph+14, num(xv))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, ml+pw/2, h-6, template.HTMLEscapeString(xlabel))
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`, mt+ph/2, mt+ph/2, template.HTMLEscapeString(ylabel))
	for si, s := range ss {
		col := palette[si%len(palette)]
		var pts []string
		for i := range s.X {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(s.Y[i])))
			if points {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, px(s.X[i]), py(s.Y[i]), col)
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, col, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="10" height="10" fill="%s"/><text x="%g" y="%g">%s</text>`,
			w-mr+10, mt+float64(si)*16, col, w-mr+24, mt+float64(si)*16+9, template.HTMLEscapeString(s.Name))
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
	}
	return fmt.Sprintf("%.2f", v)
}

type htmlRow struct {
	Run, Target                           string
	Ops                                   int64
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

type htmlData struct {
	C       Conditions
	Span    string
	Rows    []htmlRow
	Classes []htmlClass
	Charts  []template.HTML
}

func ms(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e6) }

func errString(m map[string]int64) string {
	var p []string
	for _, k := range sortedKeys(m) {
		p = append(p, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(p, " ")
}

// WriteHTML writes a single self-contained HTML page (inline SVG, no
// scripts): conditions, a summary table, throughput and latency over time,
// latency CDFs and, for sweeps, throughput against p99.
func (r *Report) WriteHTML(w io.Writer) error {
	d := htmlData{C: r.Conditions, Span: r.Conditions.CaptureEnd.Sub(r.Conditions.CaptureStart).Round(time.Millisecond).String()}
	sweep := map[string]*series{}
	var sweepNames []string
	for _, run := range r.Runs {
		var tput, lat, cdf []series
		for _, t := range run.Targets {
			d.Rows = append(d.Rows, htmlRow{Run: run.Label, Target: t.Name, Ops: t.Ops, Tput: fmt.Sprintf("%.1f", t.Throughput()),
				P50: ms(t.Actual.Quantile(.5)), P95: ms(t.Actual.Quantile(.95)), P99: ms(t.Actual.Quantile(.99)),
				P999: ms(t.Actual.Quantile(.999)), Max: ms(t.Actual.Max()), IP99: ms(t.Intended.Quantile(.99)),
				Lag99: ms(t.Lag.Quantile(.99)), Errors: errString(t.Errors), Unexpected: fmt.Sprint(t.Unexpected),
				Mismatches: t.Mismatches, Cross: t.CrossMismatches, Noise: t.Noise, Late: t.LateReason})
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
			ts := series{Name: t.Name}
			ls := series{Name: t.Name}
			for _, b := range t.Timeline {
				ts.X, ts.Y = append(ts.X, float64(b.Sec)), append(ts.Y, float64(b.Ops))
				if b.Ops > 0 {
					ls.X, ls.Y = append(ls.X, float64(b.Sec)), append(ls.Y, float64(b.SumNs)/float64(b.Ops)/1e6)
				}
			}
			tput, lat = append(tput, ts), append(lat, ls)
			cs := series{Name: t.Name}
			for _, p := range t.Intended.CDF() {
				cs.X, cs.Y = append(cs.X, p[0]/1e6), append(cs.Y, p[1]*100)
			}
			cdf = append(cdf, cs)
			sw := sweep[t.Name]
			if sw == nil {
				sw = &series{Name: t.Name}
				sweep[t.Name] = sw
				sweepNames = append(sweepNames, t.Name)
			}
			sw.X, sw.Y = append(sw.X, t.Throughput()), append(sw.Y, float64(t.Intended.Quantile(.99))/1e6)
		}
		d.Charts = append(d.Charts,
			svgChart(run.Label+": throughput over time", "seconds", "ops/s", tput, false),
			svgChart(run.Label+": mean intended latency over time", "seconds", "ms", lat, false),
			svgChart(run.Label+": intended latency CDF", "ms", "% of ops", cdf, false))
	}
	if len(r.Runs) > 1 {
		var ss []series
		for _, n := range sweepNames {
			ss = append(ss, *sweep[n])
		}
		d.Charts = append(d.Charts, svgChart("sweep: throughput vs intended p99", "ops/s", "p99 ms", ss, true))
	}
	return htmlTmpl.Execute(w, d)
}

var htmlTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>dohyo replay report</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;text-align:right}td.l,th.l{text-align:left}
.bad{color:#b00;font-weight:bold}</style></head><body>
<h1>dohyo replay report</h1>
<h2>Conditions</h2>
<table>
<tr><th class="l">captures</th><td class="l">{{range .C.Captures}}{{.}} {{end}}</td></tr>
<tr><th class="l">capture span</th><td class="l">{{.C.CaptureStart}} → {{.C.CaptureEnd}} ({{.Span}})</td></tr>
<tr><th class="l">records / bytes / sessions</th><td class="l">{{.C.Records}} / {{.C.CaptureBytes}} / {{.C.Sessions}}</td></tr>
<tr><th class="l">mode</th><td class="l">{{.C.Mode}} {{if .C.Speeds}}speeds {{.C.Speeds}}{{end}}{{if .C.Rate}} rate {{.C.Rate}} ops/s{{end}}{{if .C.Concurrency}} concurrency {{.C.Concurrency}}{{end}}{{if .C.Duration}} duration {{.C.Duration}}{{end}}</td></tr>
<tr><th class="l">shards</th><td class="l">{{range .C.Shards}}{{.}} {{end}}</td></tr>
<tr><th class="l">dohyo version</th><td class="l">{{.C.DohyoVersion}} (capture written by {{range .C.CaptureDohyos}}{{.}} {{end}})</td></tr>
<tr><th class="l">could-not-keep-up rule</th><td class="l">lag p99 &gt; {{.C.LagThreshold}} or finished &gt; {{.C.LateFraction}} late</td></tr>
{{range .C.Targets}}<tr><th class="l">target {{.Name}}</th><td class="l">{{.URL}}{{if .Server}}<br>server: <b>{{.Server}}</b>{{end}}{{range $k, $v := .Settings}}<br>{{$k}}: {{$v}}{{end}}</td></tr>
{{end}}</table>
<h2>Summary (latency in ms; actual unless noted)</h2>
<table><tr><th class="l">run</th><th class="l">target</th><th>ops</th><th>ops/s</th><th>p50</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>intended p99</th><th>lag p99</th><th class="l">errors</th><th>unexpected</th><th>mismatches</th><th>vs first target</th><th>noise</th><th class="l">could not keep up</th></tr>
{{range .Rows}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Target}}</td><td>{{.Ops}}</td><td>{{.Tput}}</td><td>{{.P50}}</td><td>{{.P95}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td><td>{{.IP99}}</td><td>{{.Lag99}}</td><td class="l">{{.Errors}}</td><td>{{.Unexpected}}</td><td{{if .Mismatches}} class="bad"{{end}}>{{.Mismatches}}</td><td>{{.Cross}}</td><td>{{.Noise}}</td><td class="l bad">{{.Late}}</td></tr>
{{end}}</table>
<h2>Charts</h2>
{{range .Charts}}<div>{{.}}</div>{{end}}
<h2>Statement classes</h2>
<table><tr><th class="l">run</th><th class="l">target</th><th class="l">fingerprint</th><th>ops</th><th>p50</th><th>p99</th><th>intended p99</th><th class="l">errors</th><th>mismatches</th></tr>
{{range .Classes}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Target}}</td><td class="l">{{.FP}}</td><td>{{.Ops}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.IP99}}</td><td class="l">{{.Errors}}</td><td>{{.Mismatches}}</td></tr>
{{range .Examples}}<tr><td></td><td></td><td class="l" colspan="7">vs {{.Against}}: {{.Statement}} [{{.Values}}] want {{.WantRows}} rows, got {{.GotRows}}</td></tr>{{end}}
{{end}}</table>
</body></html>
`))
