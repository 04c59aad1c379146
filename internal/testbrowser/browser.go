package testbrowser

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is where scripts/install-chromium.sh puts the browser.
const ChromiumPath = "/usr/bin/chromium"

// Require skips the test without Chromium, except in CI (CI=true), where
// its absence is a failure.
func Require(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium not found at %s (run scripts/install-chromium.sh): %v", ChromiumPath, err)
		}
		t.Skipf("chromium not found at %s (run scripts/install-chromium.sh)", ChromiumPath)
	}
}

// Start launches a headless Chromium with a window of width × height, a
// fresh profile and no background networking, and returns its chromedp
// context, bounded to 90 s and ended with the test.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	Require(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// RecordRequests records the URL of every request the browser of bctx
// sends from now on; the returned function lists them so far.
func RecordRequests(t testing.TB, bctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var urls []string
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			urls = append(urls, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), urls...)
	}
}
