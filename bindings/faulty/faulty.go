package faulty

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Backend wraps a backend for tests: statements matching an installed
// Fault are delayed, fail or have their results altered before or after
// they reach it. Everything else is the wrapped backend's: capabilities
// are found through Unwrap (bindings.Capability).
type Backend struct {
	inner bindings.Backend

	faultMu sync.Mutex                  // serialises InjectFault and removals
	faults  atomic.Pointer[[]*faultRef] // nil when no fault is installed
}

var (
	_ bindings.Backend   = (*Backend)(nil)
	_ bindings.Unwrapper = (*Backend)(nil)
)

// Wrap returns b with fault injection (no fault installed).
func Wrap(b bindings.Backend) *Backend { return &Backend{inner: b} }

// Unwrap returns the wrapped backend.
func (b *Backend) Unwrap() any { return b.inner }

// Execute runs one statement under the matching faults.
func (b *Backend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	if fs := b.faults.Load(); fs != nil {
		return b.executeFaulty(ctx, *fs, req)
	}
	return b.inner.Execute(ctx, req)
}

// Batch runs a batch under the matching faults.
func (b *Backend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	if fs := b.faults.Load(); fs != nil {
		return b.batchFaulty(ctx, *fs, req)
	}
	return b.inner.Batch(ctx, req)
}

// Close closes the wrapped backend.
func (b *Backend) Close() error { return b.inner.Close() }

// Fault makes statements misbehave, for tests: a delay, an error or altered
// results. It applies to Execute and Batch (a batch matches when any of its
// statements does).
type Fault struct {
	// Match selects statements: a substring of the query text or of its
	// fingerprint (cql.Fingerprint), or a regular expression matched against
	// either. "" matches every statement.
	Match string
	// Delay holds the call back before it runs. If ctx ends first the call
	// fails with a ReadTimeout/WriteTimeout that also wraps ctx.Err().
	Delay time.Duration
	// Err, if set, is returned instead of running the statement (after Delay).
	Err error
	// Alter, if set, mutates the result of a successful call (a "wrong
	// target" for replay tests).
	Alter func(*bindings.Result)
	// Hit, if set, is called when a matching statement arrives, before the
	// delay: tests use it to know a call is really being held.
	Hit func()
	// Done, if set, is called when the delay of a matching statement
	// ends: with ctx's error when ctx ended it (the caller's deadline or
	// cancellation reached the backend), nil when it ran its course.
	Done func(err error)
}

// faultRef is an installed fault; its pointer identifies it for removal.
type faultRef struct {
	f  Fault
	re *regexp.Regexp // nil when Match does not compile
}

// InjectFault installs f and returns a function that removes it (safe to
// call more than once). Several faults may be installed: all that match a
// statement apply, in installation order (delays add up, the first Err
// wins, every Alter runs). With no fault installed the cost is one atomic
// load per call.
func (b *Backend) InjectFault(f Fault) (remove func()) {
	ref := &faultRef{f: f}
	if f.Match != "" {
		ref.re, _ = regexp.Compile(f.Match) // plain substrings need not compile
	}
	b.faultMu.Lock()
	var cur []*faultRef
	if p := b.faults.Load(); p != nil {
		cur = *p
	}
	next := append(slices.Clip(cur), ref)
	b.faults.Store(&next)
	b.faultMu.Unlock()
	return func() {
		b.faultMu.Lock()
		defer b.faultMu.Unlock()
		p := b.faults.Load()
		if p == nil {
			return
		}
		i := slices.Index(*p, ref)
		if i < 0 {
			return
		}
		rest := slices.Delete(slices.Clone(*p), i, i+1)
		if len(rest) == 0 {
			b.faults.Store(nil)
			return
		}
		b.faults.Store(&rest)
	}
}

// matching returns the faults matching any of the texts.
func matching(faults []*faultRef, texts ...string) []*faultRef {
	var out []*faultRef
	fps := make([]string, len(texts)) // fingerprints, computed on demand
	for _, ref := range faults {
		if ref.matches(texts, fps) {
			out = append(out, ref)
		}
	}
	return out
}

func (ref *faultRef) matches(texts, fps []string) bool {
	m := ref.f.Match
	if m == "" {
		return true
	}
	for i, text := range texts {
		if strings.Contains(text, m) || (ref.re != nil && ref.re.MatchString(text)) {
			return true
		}
		if fps[i] == "" {
			fps[i] = cql.Fingerprint(text)
		}
		if strings.Contains(fps[i], m) || (ref.re != nil && ref.re.MatchString(fps[i])) {
			return true
		}
	}
	return false
}

// apply runs call under the matching faults. timeout builds the error for
// a delay cut short by ctx.
func applyFaults(ctx context.Context, fs []*faultRef, timeout func() *bindings.Error,
	call func() (*bindings.Result, error)) (*bindings.Result, error) {
	var delay time.Duration
	for _, ref := range fs {
		delay += ref.f.Delay
		if ref.f.Hit != nil {
			ref.f.Hit()
		}
	}
	if delay > 0 {
		err := wait(ctx, delay)
		for _, ref := range fs {
			if ref.f.Done != nil {
				ref.f.Done(err)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("embedded: injected delay: %w (%w)", timeout(), err)
		}
	}
	for _, ref := range fs {
		if ref.f.Err != nil {
			return nil, ref.f.Err
		}
	}
	res, err := call()
	if err != nil {
		return res, err
	}
	for _, ref := range fs {
		if ref.f.Alter != nil && res != nil {
			ref.f.Alter(res)
		}
	}
	return res, nil
}

// wait sleeps for d or until ctx ends, without leaving a goroutine behind.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Backend) executeFaulty(ctx context.Context, faults []*faultRef, req *bindings.Request) (*bindings.Result, error) {
	text := req.Query
	if text == "" && req.Parsed != nil {
		text = req.Parsed.Text
	}
	fs := matching(faults, text)
	if len(fs) == 0 {
		return b.inner.Execute(ctx, req)
	}
	timeout := func() *bindings.Error {
		if isRead(req, text) {
			return &bindings.Error{Code: bindings.CodeReadTimeout, Message: "injected delay exceeded the deadline",
				Consistency: req.Consistency}
		}
		return &bindings.Error{Code: bindings.CodeWriteTimeout, Message: "injected delay exceeded the deadline",
			Consistency: req.Consistency, WriteType: "SIMPLE"}
	}
	return applyFaults(ctx, fs, timeout, func() (*bindings.Result, error) { return b.inner.Execute(ctx, req) })
}

func (b *Backend) batchFaulty(ctx context.Context, faults []*faultRef, req *bindings.BatchRequest) (*bindings.Result, error) {
	texts := make([]string, len(req.Entries))
	for i, e := range req.Entries {
		texts[i] = e.Query
		if texts[i] == "" && e.Parsed != nil {
			texts[i] = e.Parsed.Text
		}
	}
	fs := matching(faults, texts...)
	if len(fs) == 0 {
		return b.inner.Batch(ctx, req)
	}
	timeout := func() *bindings.Error {
		wt := "BATCH"
		switch req.Type {
		case cql.BatchUnlogged:
			wt = "UNLOGGED_BATCH"
		case cql.BatchCounter:
			wt = "COUNTER"
		}
		return &bindings.Error{Code: bindings.CodeWriteTimeout, Message: "injected delay exceeded the deadline",
			Consistency: req.Consistency, WriteType: wt}
	}
	return applyFaults(ctx, fs, timeout, func() (*bindings.Result, error) { return b.inner.Batch(ctx, req) })
}

// isRead tells reads from writes, for the kind of timeout to report.
func isRead(req *bindings.Request, text string) bool {
	if req.Parsed != nil {
		_, ok := req.Parsed.Stmt.(*cql.Select)
		return ok
	}
	word, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	return strings.EqualFold(word, "select")
}
