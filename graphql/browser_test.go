package graphql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dohyo/dohyo/internal/testbrowser"
)

// TestPlaygroundInBrowser drives the embedded playground in headless
// Chromium: pick a keyspace endpoint, type a query, run it, read the
// result panel. It skips without Chromium, except in CI (CI=true), where
// scripts/install-chromium.sh must have installed it.
func TestPlaygroundInBrowser(t *testing.T) {
	requireChromium(t)
	e := newEnv(t, testBackends()[0], nil)
	e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, year int)`,
		`INSERT INTO books (title, author, year) VALUES ('Dune', 'Frank Herbert', 1965)`,
		`INSERT INTO books (title, author, year) VALUES ('Solaris', 'Stanisław Lem', 1961)`)
	b := newBrowser(t)
	bctx, errorsText := b.ctx, b.errorsText
	pageErrors := func() []string { return b.pageErrors() }

	endpoint := "/graphql/" + e.ks
	query := "query {\n  books(filter: {title: {in: [\"Dune\", \"Solaris\"]}}) {\n    values { title author year }\n  }\n}\n"
	err := chromedp.Do(bctx,
		chromedp.Navigate(e.http.URL+"/playground"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		// Pick the keyspace endpoint as a user does: the select fires "change".
		chromedp.SetValue(chromedp.ID("endpoint"), endpoint),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('endpoint').dispatchEvent(new Event('change'))`),
		chromedp.WaitVisible(chromedp.CSS(`.graphiql-query-editor .CodeMirror`)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
			`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(%q)`, query)),
		chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)),
	)
	if err != nil {
		t.Fatalf("playground: %v\npage errors: %s", err, errorsText())
	}
	result, err := chromedp.Run(bctx, chromedp.Poll[string](`(() => {
			const r = document.querySelector('.result-window');
			return r && r.innerText.includes('Frank Herbert') && r.innerText.includes('Lem') ? r.innerText : false;
		})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("result panel: %v\npage errors: %s", err, errorsText())
	}
	for _, want := range []string{`"title": "Dune"`, `"year": 1965`, `"author": "Stanisław Lem"`} {
		if !strings.Contains(result, want) {
			t.Errorf("result panel lacks %s:\n%s", want, result)
		}
	}
	// The introspected schema reached the docs: the explorer lists the table.
	err = chromedp.Do(bctx, chromedp.Click(chromedp.CSS(`button[aria-label="Show Documentation Explorer"]`)))
	if err == nil {
		_, err = chromedp.Run(bctx, chromedp.Poll[bool](`(() => {
			const d = document.querySelector('.graphiql-doc-explorer');
			return !!d && d.innerText.includes('Mutation');
		})()`, chromedp.WithPollingTimeout(10*time.Second)))
	}
	if err != nil {
		t.Errorf("doc explorer: %v\npage errors: %s", err, errorsText())
	}
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("DOHYO_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "graphql-playground.png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", file, len(shot))
	for _, pe := range pageErrors() {
		if strings.Contains(pe, "Content Security Policy") {
			t.Errorf("page violated its CSP: %s", pe)
		}
	}
}

// requireChromium skips without Chromium, except in CI.
func requireChromium(t *testing.T) { testbrowser.Require(t) }

// browser is a headless Chromium for one test, collecting page errors
// (exceptions, CSP violations) to report them with a failure.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	errs []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	bctx := testbrowser.Start(t, 1400, 860)
	b := &browser{ctx: bctx}
	consoleCtx, stopConsole := context.WithCancel(bctx)
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for m, err := range chromedp.Console(consoleCtx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errs = append(b.errs, m.Text)
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		stopConsole()
		<-consoleDone
	})
	return b
}

func (b *browser) pageErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

func (b *browser) errorsText() string { return strings.Join(b.pageErrors(), "\n") }
