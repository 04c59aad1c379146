package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ProcSample is one dohyo process as its /metrics reported it (Up false:
// the scrape failed, e.g. while a fault restarts it).
type ProcSample struct {
	URL        string  `json:"url"`
	Up         bool    `json:"up"`
	RSS        float64 `json:"rss_bytes,omitempty"`
	Heap       float64 `json:"heap_inuse_bytes,omitempty"`
	Goroutines float64 `json:"goroutines,omitempty"`
	FDs        float64 `json:"open_fds,omitempty"`
	CPU        float64 `json:"cpu_seconds,omitempty"` // total, since the process started
	Started    float64 `json:"start_time_seconds,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// procMetrics are the /metrics names read, by the field they fill.
var procMetrics = map[string]func(*ProcSample, float64){
	"process_resident_memory_bytes": func(p *ProcSample, v float64) { p.RSS = v },
	"go_memstats_heap_inuse_bytes":  func(p *ProcSample, v float64) { p.Heap = v },
	"go_goroutines":                 func(p *ProcSample, v float64) { p.Goroutines = v },
	"process_open_fds":              func(p *ProcSample, v float64) { p.FDs = v },
	"process_cpu_seconds_total":     func(p *ProcSample, v float64) { p.CPU = v },
	"process_start_time_seconds":    func(p *ProcSample, v float64) { p.Started = v },
}

// scrape reads one /metrics page (Prometheus text format, unlabelled
// samples of the names above; at most 16 MiB read).
func scrape(ctx context.Context, c *http.Client, url string) ProcSample {
	p := ProcSample{URL: url}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	resp, err := c.Do(req)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		p.Error = "HTTP " + resp.Status
		return p
	}
	if err := parseMetrics(io.LimitReader(resp.Body, 16<<20), &p); err != nil {
		p.Error = err.Error()
		return p
	}
	p.Up = p.RSS > 0
	if !p.Up {
		p.Error = "no process_resident_memory_bytes in the page"
	}
	return p
}

func parseMetrics(r io.Reader, p *ProcSample) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		set := procMetrics[name]
		if !ok || set == nil {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return fmt.Errorf("metric %s: %w", name, err)
		}
		set(p, v)
	}
	return sc.Err()
}

// Sample is one sampling instant: the clients' interval and each dohyo.
type Sample struct {
	T      float64      `json:"t"` // seconds since the run's start
	Client ClientSample `json:"client"`
	Procs  []ProcSample `json:"procs,omitempty"`
}

// scrapeAll samples every metrics URL concurrently, each bounded by timeout.
func scrapeAll(ctx context.Context, c *http.Client, urls []string, timeout time.Duration) []ProcSample {
	out := make([]ProcSample, len(urls))
	done := make(chan struct{}, len(urls))
	for i, u := range urls {
		go func() {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			out[i] = scrape(cctx, c, u)
			done <- struct{}{}
		}()
	}
	for range urls {
		<-done
	}
	return out
}
