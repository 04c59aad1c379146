package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dohyo/dohyo/internal/testbrowser"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/replay"
)

// checkMirrorReport checks the live comparison of a dohyo serve whose one
// mirror is in st: `dohyo mirror report` writes it as a replay report
// whose mirror side counts exactly the applied requests, reads compared
// and mismatches of the status, whose verdict names the primary and the
// mirror; the text form has the verdict; /admin/mirror/live is the HTML
// report reloading itself, which headless Chromium renders (verdict and
// charts) fetching nothing but the page.
func checkMirrorReport(t *testing.T, httpAddr, mirrorName string, st mirror.Status) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "mirror.json")
	if out, err := runCLI(t, "", "mirror", "report", "--http", "http://"+httpAddr, "--out", file); err != nil {
		t.Fatalf("dohyo mirror report: %v\n%s", err, out)
	}
	rep, err := replay.ReadReportFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Targets) != 2 || rep.Runs[0].Rounds < 1 {
		t.Fatalf("report: want one run (the mirror) of 2 targets and at least one round (minute), got %+v", rep.Runs)
	}
	p, m := rep.Runs[0].Targets[0], rep.Runs[0].Targets[1]
	if p.Name != "primary" || m.Name != mirrorName {
		t.Errorf("targets %q, %q: want primary and %s", p.Name, m.Name, mirrorName)
	}
	if m.Ops != st.Applied || p.Ops != st.Applied || m.Compared != st.Compared || m.CrossMismatches != st.Mismatches {
		t.Errorf("report ops %d/%d, compared %d, mismatches %d; status applied %d, compared %d, mismatches %d",
			p.Ops, m.Ops, m.Compared, m.CrossMismatches, st.Applied, st.Compared, st.Mismatches)
	}
	if len(rep.Verdicts) != 1 || rep.Verdicts[0].Baseline != "primary" || len(rep.Verdicts[0].Sentences) != 1 ||
		!strings.Contains(rep.Verdicts[0].Sentences[0], mirrorName) {
		t.Errorf("verdict %+v: want the mirror compared with the primary", rep.Verdicts)
	}
	text, err := runCLI(t, "", "mirror", "report", "--http", "http://"+httpAddr, "--window", "10m")
	if err != nil || !strings.Contains(text, "# mode: live mirroring") || !strings.Contains(strings.ToLower(text), "verdict") {
		t.Errorf("text report (%v):\n%.2000s", err, text)
	}
	live := httpGet(t, "http://"+httpAddr+"/admin/mirror/live")
	if !strings.Contains(live, `<meta http-equiv="refresh"`) || !strings.Contains(live, "Verdict") || strings.Contains(live, "http://") && strings.Contains(live, "<script src=") {
		t.Errorf("/admin/mirror/live is not the self-reloading, self-contained report:\n%.1500s", live)
	}
	checkLivePageInBrowser(t, "http://"+httpAddr+"/admin/mirror/live", mirrorName)
}

func checkLivePageInBrowser(t *testing.T, pageURL, mirrorName string) {
	testbrowser.Require(t)
	bctx := testbrowser.Start(t, 1400, 900)
	requests := testbrowser.RecordRequests(t, bctx)
	if err := chromedp.Do(bctx, chromedp.Navigate(pageURL), chromedp.WaitVisible(chromedp.CSS(`#verdict`))); err != nil {
		t.Fatalf("load the live page: %v", err)
	}
	verdict, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`#verdict`)))
	if err != nil || !strings.Contains(verdict, mirrorName) || !strings.Contains(verdict, "primary") {
		t.Errorf("the live verdict does not compare %s with the primary (%v):\n%s", mirrorName, err, verdict)
	}
	svgs, err := chromedp.Run(bctx, chromedp.Evaluate[int](`[...document.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 100).length`))
	if err != nil || svgs < 1 {
		t.Errorf("%d charts drawn on the live page (%v)", svgs, err)
	}
	refresh, err := chromedp.Run(bctx, chromedp.Evaluate[string](`(document.querySelector('meta[http-equiv=refresh]') || {}).content || ''`))
	if err != nil || refresh == "" {
		t.Errorf("the live page does not reload itself (meta refresh %q, %v)", refresh, err)
	}
	for _, u := range requests() {
		if u != pageURL {
			t.Errorf("the live page fetched %s (want nothing but itself)", u)
		}
	}
}

// TestMirrorNames: a mirror is named by its URL without secrets (the name
// is in /admin/mirror, metrics and reports); URLs that differ only in
// their secrets are refused rather than merged.
func TestMirrorNames(t *testing.T) {
	names, err := mirrorNames([]string{"a=cassandra://app:s3cret@10.0.0.1:9042?consistency=ONE",
		"b=hbase://zk:2181?salt=4", "c=cassandra://app:s3cret@10.0.0.1:9042?consistency=ONE"})
	if err != nil {
		t.Fatal(err)
	}
	for u, name := range names {
		if strings.Contains(name, "s3cret") {
			t.Errorf("mirror %s is named %s: the password shows", u, name)
		}
	}
	if len(names) != 2 || names["hbase://zk:2181?salt=4"] != "hbase://zk:2181?salt=4" {
		t.Errorf("names %v: want two mirrors, a URL without secrets named as itself", names)
	}
	if _, err := mirrorNames([]string{"a=cassandra://app:one@h:9042", "b=cassandra://app:two@h:9042"}); err == nil ||
		!strings.Contains(err.Error(), "differ only in their secrets") {
		t.Errorf("two URLs differing in their password: %v", err)
	}
}
