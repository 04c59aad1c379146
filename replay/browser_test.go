package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dohyo/dohyo/internal/testbrowser"
)

// TestReplayReportInBrowser opens a report in headless Chromium: it
// renders (the verdict and its charts), fetches nothing but itself, and
// its verdict names every target. It skips without Chromium, except in CI.
func TestReplayReportInBrowser(t *testing.T) {
	testbrowser.Require(t)
	base := syntheticTarget("t1:cassandra", []float64{1000, 1020, 980}, []float64{2, 2.1, 1.9})
	other := syntheticTarget("t2:hbase", []float64{800, 820, 790}, []float64{4, 4.2, 3.8})
	emb := syntheticTarget("t3:embedded", []float64{990, 1030, 1000}, []float64{2.05, 1.95, 2})
	for _, st := range []*TargetStats{base, other, emb} {
		st.Timeline = []Bucket{{Sec: 0, Round: 0, Ops: 100, SumNs: 1e8, MaxNs: 3e6}, {Sec: 1, Round: 1, Ops: 900, SumNs: 9e8, MaxNs: 5e6}}
	}
	rep := &Report{Runs: []*Run{{Label: "max", Rounds: 3, Targets: []*TargetStats{base, other, emb}}}}
	path := filepath.Join(t.TempDir(), "report.html")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(fh); err != nil {
		t.Fatal(err)
	}
	fh.Close()

	bctx := testbrowser.Start(t, 1400, 900)
	requests := testbrowser.RecordRequests(t, bctx)
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS(`#verdict`))); err != nil {
		t.Fatalf("load the report: %v", err)
	}
	verdict, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`#verdict`)))
	if err != nil {
		t.Fatal(err)
	}
	svgs, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('svg').length`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('#verdict table tr').length`))
	if err != nil {
		t.Fatal(err)
	}
	// Every chart has a drawn size (it rendered).
	drawn, err := chromedp.Run(bctx, chromedp.Evaluate[int](`[...document.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 100).length`))
	if err != nil || drawn != svgs {
		t.Errorf("%d of %d charts have a drawn size (%v)", drawn, svgs, err)
	}
	for _, name := range []string{"t1:cassandra", "t2:hbase", "t3:embedded"} {
		if !strings.Contains(verdict, name) {
			t.Errorf("the verdict does not name %s:\n%s", name, verdict)
		}
	}
	if !strings.Contains(verdict, "0.80×") || !strings.Contains(verdict, "within noise") {
		t.Errorf("the verdict lacks hbase's 0.80× or a within-noise label:\n%s", verdict)
	}
	if svgs < 5 || rows < 7 {
		t.Errorf("%d charts and %d verdict rows rendered, want >= 5 and >= 7", svgs, rows)
	}
	seen := requests()
	for _, u := range seen {
		if u != "file://"+path {
			t.Errorf("the report made an external request: %s", u)
		}
	}
	if len(seen) == 0 {
		t.Error("no request seen at all: the network listener does not work")
	}
}
