// Command testprogress turns `go test -json` on standard input into a
// readable, talkative log for long runs (make test): a line when a package
// starts and when it ends, the go test closing lines ("ok  pkg 12.3s",
// "FAIL pkg", "--- FAIL: TestX", panics, build errors) exactly as go test
// prints them so CI recognises the runner, and the full output of every
// failing test. Passing tests' output is dropped. Lines that are not JSON
// are copied through. Exits 1 when anything failed, so a pipeline fails
// even without pipefail.
//
//	go test -json ./... | go run ./scripts/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output, build-fail
}

func main() {
	failed, err := run(os.Stdin, os.Stdout, time.Now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// printer keeps the output of running tests until their verdict.
type printer struct {
	w       io.Writer
	now     func() time.Time
	held    map[string][]string // package + "\x00" + test → output lines
	running map[string]bool     // packages started and not ended
	done    int
	failed  bool
}

func run(r io.Reader, w io.Writer, now func() time.Time) (failed bool, err error) {
	p := &printer{w: w, now: now, held: map[string][]string{}, running: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
			fmt.Fprintln(w, line)
			continue
		}
		p.handle(e)
	}
	return p.failed, sc.Err()
}

func (p *printer) stamp() string { return p.now().Format("15:04:05") }

func (p *printer) handle(e event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		fmt.Fprint(p.w, e.Output)
	case "build-fail":
		p.failed = true
	case "start":
		p.running[e.Package] = true
		fmt.Fprintf(p.w, "[%s] running %s (%d running, %d done)\n", p.stamp(), e.Package, len(p.running), p.done)
	case "output":
		if e.Test == "" {
			// Package-level lines: the closing "ok"/"FAIL" lines, panics,
			// "no test files". "PASS" alone is noise.
			if strings.TrimSpace(e.Output) != "PASS" {
				fmt.Fprint(p.w, e.Output)
			}
			return
		}
		p.held[key] = append(p.held[key], e.Output)
	case "pass", "skip":
		if e.Test == "" {
			p.end(e.Package)
		}
		delete(p.held, key)
	case "fail":
		p.failed = true
		if e.Test == "" {
			p.end(e.Package)
			return
		}
		for _, l := range p.held[key] {
			fmt.Fprint(p.w, l)
		}
		delete(p.held, key)
	}
}

func (p *printer) end(pkg string) {
	if p.running[pkg] {
		delete(p.running, pkg)
		p.done++
	}
	// A package that ended with tests still held (a timeout or panic) shows
	// their output: it is the only trace of what hung.
	for k, lines := range p.held {
		if strings.HasPrefix(k, pkg+"\x00") {
			for _, l := range lines {
				fmt.Fprint(p.w, l)
			}
			delete(p.held, k)
		}
	}
}
