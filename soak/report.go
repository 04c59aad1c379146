package soak

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dohyo/dohyo/internal/svgchart"
)

// Report is a finished soak: the verdict first, then everything it was
// judged on.
type Report struct {
	Verdict       Verdict           `json:"verdict"`
	Config        ReportConfig      `json:"config"`
	Started       time.Time         `json:"started"`
	Elapsed       float64           `json:"elapsed_s"` // measured run, seconds
	Ops           map[string]int64  `json:"ops"`
	ErrorClasses  map[string]int64  `json:"error_classes,omitempty"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	Stale         int64             `json:"stale_reads"`
	Faults        []FaultRun        `json:"faults"`
	Warmup        *FaultRun         `json:"warmup,omitempty"` // the warm-up as a window of expected errors, with its cost
	Samples       []Sample          `json:"samples"`
	Periods       []PeriodLatency   `json:"latency_periods"`
	ReadBack      []ReadBack        `json:"read_back"`
	Errors        []ErrorEvent      `json:"errors,omitempty"`
	ErrorsDropped int64             `json:"errors_dropped,omitempty"`
}

// ReportConfig is the run's configuration as the report states it.
type ReportConfig struct {
	Targets     []string      `json:"targets"`
	Keyspaces   []string      `json:"keyspaces"`
	Rate        float64       `json:"rate"`
	Duration    time.Duration `json:"duration_ns"`
	Warmup      time.Duration `json:"warmup_ns,omitempty"`
	Workers     int           `json:"workers"`
	Sample      time.Duration `json:"sample_ns"`
	Period      time.Duration `json:"period_ns"`
	Metrics     []string      `json:"metrics"`
	Timeout     time.Duration `json:"timeout_ns"`
	Mix         Mix           `json:"mix"`
	Consistency string        `json:"consistency"`
	Replication int           `json:"replication"`
	ValueSize   int           `json:"value_size"`
	Rules       Rules         `json:"rules"`
}

func reportConfig(c Config) ReportConfig {
	return ReportConfig{Targets: c.Targets, Keyspaces: c.Keyspaces, Rate: c.Rate, Duration: c.Duration, Warmup: c.Warmup, Workers: c.Workers,
		Sample: c.Sample, Period: c.Period, Metrics: c.Metrics, Timeout: c.Timeout, Mix: c.Mix, Consistency: c.Consistency,
		Replication: c.Replication, ValueSize: c.ValueSize, Rules: c.Rules}
}

func (r *Report) procURLs() []string { return r.Config.Metrics }

// windows are the stretches in which errors are expected: the warm-up
// (if any) and each fault's window.
func (r *Report) windows() []FaultRun {
	if r.Warmup == nil {
		return r.Faults
	}
	return append([]FaultRun{*r.Warmup}, r.Faults...)
}

// warmupRun is the warm-up of a run as a window (nil without one).
func warmupRun(warmup time.Duration) *FaultRun {
	if warmup <= 0 {
		return nil
	}
	return &FaultRun{Name: "warm-up", Window: warmup.Seconds()}
}

// rateOutsideFaults is the clients' completed rate over the samples whose
// interval touches no fault window, and the offered rate (0: no such sample).
func (r *Report) rateOutsideFaults() (held, offered float64) {
	var ops, secs float64
	step := r.Config.Sample.Seconds()
	for _, s := range r.Samples {
		in := false
		for _, f := range r.windows() {
			from, to := f.Covers()
			if s.T >= from && s.T-step <= to {
				in = true
			}
		}
		if !in && s.T >= step {
			ops, secs = ops+float64(s.Client.Ops), secs+step
		}
	}
	if secs == 0 {
		return 0, 0
	}
	return ops / secs, r.Config.Rate
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(r)
}

// Summary is the verdict in a few lines of text (the command prints it).
func (r *Report) Summary() string {
	var b strings.Builder
	state := "PASS"
	if !r.Verdict.Pass {
		state = "FAIL: " + strings.Join(r.Verdict.Fails(), ", ")
	}
	fmt.Fprintf(&b, "soak verdict: %s\n", state)
	for _, c := range r.Verdict.Checks {
		mark := "ok  "
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %-40s %s", mark, c.Name, c.Value)
		if c.Detail != "" {
			fmt.Fprintf(&b, " (%s)", c.Detail)
		}
		b.WriteByte('\n')
	}
	for _, n := range r.Verdict.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if w := r.Warmup; w != nil {
		fmt.Fprintf(&b, "  warm-up (first %.0f s, errors not judged): %s\n", w.Window, w.Cost())
	}
	for _, f := range r.Faults {
		fmt.Fprintf(&b, "  fault %s at %.1f s (ran %.1f s): %s\n", f.Name, f.Start, f.End-f.Start, f.Cost())
	}
	for _, p := range r.Periods {
		fmt.Fprintf(&b, "  %5.0f–%5.0f s: %d ops, p50 %.2f ms, p99 %.2f ms\n", p.From, p.To, p.Ops, p.P50, p.P99)
	}
	return b.String()
}

type htmlData struct {
	R      *Report
	Fails  string
	Charts []template.HTML
}

// WriteHTML writes one self-contained page: the verdict, the conditions,
// the fault schedule as it ran, the end checks, the latency per period,
// and time-series charts with the fault windows shaded.
func (r *Report) WriteHTML(w io.Writer) error {
	return htmlTmpl.Execute(w, htmlData{R: r, Fails: strings.Join(r.Verdict.Fails(), ", "), Charts: r.charts()})
}

func (r *Report) charts() []template.HTML {
	var bands []svgchart.Band
	for _, f := range r.windows() {
		from, to := f.Covers()
		bands = append(bands, svgchart.Band{From: from, To: to, Label: f.Name})
	}
	client := func(name string, y func(ClientSample) float64) svgchart.Series {
		s := svgchart.Series{Name: name}
		for _, x := range r.Samples {
			s.X, s.Y = append(s.X, x.T), append(s.Y, y(x.Client))
		}
		return s
	}
	proc := func(y func(ProcSample) float64) []svgchart.Series {
		var out []svgchart.Series
		for _, u := range r.procURLs() {
			s := svgchart.Series{Name: shortURL(u)}
			for _, x := range r.Samples {
				for _, p := range x.Procs {
					if p.URL == u && p.Up {
						s.X, s.Y = append(s.X, x.T), append(s.Y, y(p))
					}
				}
			}
			out = append(out, s)
		}
		return out
	}
	opt := func(title, ylabel string) svgchart.Options {
		return svgchart.Options{Title: title, XLabel: "seconds (shaded: fault windows)", YLabel: ylabel, W: 640, H: 240, Legend: true, Bands: bands}
	}
	cpu := proc(func(p ProcSample) float64 { return p.CPU })
	for i := range cpu { // CPU seconds → % of one core between samples
		s := &cpu[i]
		var x, y []float64
		for j := 1; j < len(s.X); j++ {
			if dt := s.X[j] - s.X[j-1]; dt > 0 && s.Y[j] >= s.Y[j-1] {
				x, y = append(x, s.X[j]), append(y, 100*(s.Y[j]-s.Y[j-1])/dt)
			}
		}
		s.X, s.Y = x, y
	}
	mibOf := func(f func(ProcSample) float64) func(ProcSample) float64 {
		return func(p ProcSample) float64 { return f(p) / (1 << 20) }
	}
	return []template.HTML{
		svgchart.Line(opt("client throughput", "requests/s"), []svgchart.Series{client("completed", func(c ClientSample) float64 { return c.Rate })}),
		svgchart.Line(opt("client latency from the intended send time", "ms"), []svgchart.Series{
			client("p99", func(c ClientSample) float64 { return c.P99 }), client("p50", func(c ClientSample) float64 { return c.P50 })}),
		svgchart.Line(opt("client errors per interval", "errors"), []svgchart.Series{
			client("errors", func(c ClientSample) float64 { return float64(c.Errors) }), client("stale reads", func(c ClientSample) float64 { return float64(c.Stale) })}),
		svgchart.Line(opt("dohyo RSS", "MiB"), proc(mibOf(func(p ProcSample) float64 { return p.RSS }))),
		svgchart.Line(opt("dohyo Go heap in use", "MiB"), proc(mibOf(func(p ProcSample) float64 { return p.Heap }))),
		svgchart.Line(opt("dohyo goroutines", "goroutines"), proc(func(p ProcSample) float64 { return p.Goroutines })),
		svgchart.Line(opt("dohyo open file descriptors", "fds"), proc(func(p ProcSample) float64 { return p.FDs })),
		svgchart.Line(opt("dohyo CPU", "% of one core"), cpu),
	}
}

func shortURL(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	return strings.TrimSuffix(u, "/metrics")
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

var htmlTmpl = template.Must(template.New("soak").Funcs(template.FuncMap{
	"f1":   func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"f2":   func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"keys": func(m map[string]int64) []string { return sortedKeys(m) },
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>dohyo soak report</title>
<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin-bottom:1.2em}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;text-align:right}td.l,th.l{text-align:left}
.pass{color:#060;font-weight:bold}.fail{color:#b00;font-weight:bold}.verdict{background:#f6f8fa;border:1px solid #ddd;padding:0.5em 1em;margin-bottom:1em}
.charts svg{display:inline-block;margin:0 8px 8px 0}</style></head><body>
<h1>dohyo soak report</h1>
<section class="verdict" id="verdict"><h2>Verdict: {{if .R.Verdict.Pass}}<span class="pass">PASS</span>{{else}}<span class="fail">FAIL</span> ({{.Fails}}){{end}}</h2>
<table><tr><th class="l">check</th><th class="l">rule</th><th class="l">value</th><th class="l">result</th><th class="l">detail</th></tr>
{{range .R.Verdict.Checks}}<tr><td class="l">{{.Name}}</td><td class="l">{{.Rule}}</td><td class="l">{{.Value}}</td><td class="l">{{if .Pass}}<span class="pass">pass</span>{{else}}<span class="fail">FAIL</span>{{end}}</td><td class="l">{{.Detail}}</td></tr>
{{end}}</table>
{{range .R.Verdict.Notes}}<p>{{.}}</p>{{end}}</section>
<h2>Conditions</h2>
<table>
<tr><th class="l">started</th><td class="l">{{.R.Started.UTC.Format "2006-01-02 15:04:05 UTC"}}, measured for {{f1 .R.Elapsed}} s</td></tr>
<tr><th class="l">targets (contact points)</th><td class="l">{{range .R.Config.Targets}}{{.}} {{end}}</td></tr>
<tr><th class="l">keyspaces</th><td class="l">{{range .R.Config.Keyspaces}}{{.}} {{end}}</td></tr>
<tr><th class="l">offered rate</th><td class="l">{{.R.Config.Rate}} requests/s, at most {{.R.Config.Workers}} in flight, timeout {{.R.Config.Timeout}}, consistency {{.R.Config.Consistency}}</td></tr>
<tr><th class="l">mix (weights)</th><td class="l">read {{.R.Config.Mix.Read}}, write {{.R.Config.Mix.Write}}, LWT {{.R.Config.Mix.LWT}}, counter {{.R.Config.Mix.Counter}}</td></tr>
<tr><th class="l">sampled dohyo</th><td class="l">{{range .R.Config.Metrics}}{{.}} {{else}}none{{end}} every {{.R.Config.Sample}}</td></tr>
<tr><th class="l">operations</th><td class="l">{{range $k, $v := .R.Ops}}{{$k}} {{$v}} {{end}}</td></tr>
<tr><th class="l">errors by class</th><td class="l">{{range $k := keys .R.ErrorClasses}}{{$k}} {{index $.R.ErrorClasses $k}} (e.g. {{index $.R.ErrorExamples $k}})<br>{{else}}none{{end}}</td></tr>
</table>
<h2>Faults</h2>
{{with .R.Warmup}}<p>Warm-up: the first {{f1 .Window}} s, whose errors are reported here and not judged: {{.Cost}}.</p>
{{end}}{{if .R.Faults}}<table><tr><th class="l">fault</th><th>due s</th><th>ran s</th><th>ended s</th><th>window s</th><th class="l">cost to the clients</th><th class="l">command</th><th class="l">result</th></tr>
{{range .R.Faults}}<tr><td class="l">{{.Name}}</td><td>{{f1 .At}}</td><td>{{f1 .Start}}</td><td>{{f1 .End}}</td><td>{{f1 .Window}}</td><td class="l">{{.Cost}}</td><td class="l">{{.Command}}</td><td class="l">{{if .Err}}<span class="fail">{{.Err}}</span>{{else}}ok{{end}}</td></tr>
{{end}}</table>{{else}}<p>No faults scheduled.</p>{{end}}
<h2>End checks</h2>
<table><tr><th class="l">keyspace</th><th>writes attempted</th><th>acknowledged</th><th>rows found</th><th>lost</th><th>wrong value</th><th>phantom</th><th class="l">counters (value / acked / unknown)</th><th class="l">LWT (value / applied / unknown)</th><th class="l">error</th></tr>
{{range .R.ReadBack}}<tr><td class="l">{{.Keyspace}}</td><td>{{.Written}}</td><td>{{.Acked}}</td><td>{{.Found}}</td><td{{if .Lost}} class="fail"{{end}}>{{.Lost}}</td><td>{{.Wrong}}</td><td>{{.Phantom}}</td><td class="l">{{range .Counters}}{{.Value}}/{{.Acked}}/{{.Unknown}} {{end}}</td><td class="l">{{range .LWT}}{{.Value}}/{{.Acked}}/{{.Unknown}} {{end}}</td><td class="l">{{.Err}}</td></tr>
{{end}}</table>
<h2>Latency per period (from the intended send time, successful requests)</h2>
<table><tr><th>from s</th><th>to s</th><th>requests</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th></tr>
{{range .R.Periods}}<tr><td>{{f1 .From}}</td><td>{{f1 .To}}</td><td>{{.Ops}}</td><td>{{f2 .P50}}</td><td>{{f2 .P99}}</td><td>{{f2 .P999}}</td></tr>
{{end}}</table>
<h2>Over time</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>
</body></html>
`))
