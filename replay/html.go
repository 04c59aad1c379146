package replay

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/dohyo/dohyo/internal/svgchart"
)

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
		ts := svgchart.Series{Name: t.Name}
		p50, p99 := svgchart.Series{Name: "p50"}, svgchart.Series{Name: "p99"}
		for _, b := range t.Timeline {
			ts.X, ts.Y, ts.Grey = append(ts.X, float64(b.Sec)), append(ts.Y, float64(b.Ops)), append(ts.Grey, b.Round == 0)
			if b.Ops > 0 {
				x, g := float64(b.Sec), b.Round == 0
				p50.X, p50.Y, p50.Grey = append(p50.X, x), append(p50.Y, b.Quantile(.5)/1e6), append(p50.Grey, g)
				p99.X, p99.Y, p99.Grey = append(p99.X, x), append(p99.Y, b.Quantile(.99)/1e6), append(p99.Grey, g)
			}
		}
		col := svgchart.Color(i)
		tput.WriteString(string(svgchart.Line(svgchart.Options{Title: t.Name, XLabel: "seconds (grey: warm-up)", YLabel: "ops/s", W: 330, H: 200, YMax: maxT, Color: col}, []svgchart.Series{ts})))
		lat.WriteString(string(svgchart.Line(svgchart.Options{Title: t.Name, XLabel: "seconds (grey: warm-up)", YLabel: "ms", W: 330, H: 200, YMax: maxL, Legend: true, Color: col}, []svgchart.Series{p99, p50})))
	}
	out = append(out,
		template.HTML(`<h3>`+template.HTMLEscapeString(run.Label)+`: throughput over time, per target (same scale)</h3><div class="sm">`+tput.String()+`</div>`),
		template.HTML(`<h3>`+template.HTMLEscapeString(run.Label)+`: intended latency per second (p50 and p99), per target (same scale)</h3><div class="sm">`+strings.ReplaceAll(lat.String(), "ms, log? no: linear", "ms")+`</div>`))
	var cdf []svgchart.Series
	for _, t := range run.Targets {
		cs := svgchart.Series{Name: t.Name}
		for _, p := range t.Intended.CDF() {
			cs.X, cs.Y = append(cs.X, p[0]/1e6), append(cs.Y, p[1]*100)
		}
		cdf = append(cdf, cs)
	}
	out = append(out, svgchart.Line(svgchart.Options{Title: run.Label + ": intended latency CDF (log x)", XLabel: "ms (log scale)", YLabel: "% of ops", LogX: true, Legend: true}, cdf))
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
		out = append(out, svgchart.Bars(run.Label+": "+q.n+" per statement class (median over rounds)", "ms", groups, names, func(g, t int) float64 {
			for _, f := range v.Figures[t].Classes {
				if f.Class == groups[g] && f.Ops > 0 {
					return q.f(f).Median
				}
			}
			return math.NaN()
		}, short40, num3))
	}
	return out
}

// sweepCharts are the saturation curves of a sweep: throughput and p99
// against the offered rate.
func sweepCharts(runs []*Run) []template.HTML {
	byName := map[string]*[2]svgchart.Series{}
	var names []string
	for _, run := range runs {
		for _, t := range run.Targets {
			s := byName[t.Name]
			if s == nil {
				s = &[2]svgchart.Series{{Name: t.Name}, {Name: t.Name}}
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
	var tp, p99 []svgchart.Series
	for _, n := range names {
		tp, p99 = append(tp, byName[n][0]), append(p99, byName[n][1])
	}
	return []template.HTML{
		svgchart.Line(svgchart.Options{Title: "sweep: throughput vs offered rate", XLabel: "offered ops/s (ops / schedule span)", YLabel: "achieved ops/s", Points: true, Legend: true}, tp),
		svgchart.Line(svgchart.Options{Title: "sweep: intended p99 vs offered rate", XLabel: "offered ops/s", YLabel: "p99 ms", Points: true, Legend: true}, p99),
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
