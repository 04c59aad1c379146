package main

import (
	"strings"
	"testing"
	"time"
)

func TestProgressKeepsClosingLinesAndFailures(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"a"}`,
		`{"Action":"run","Package":"a","Test":"TestOK"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"chatty log line\n"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestOK"}`,
		`{"Action":"output","Package":"a","Test":"TestBad","Output":"    x_test.go:9: boom\n"}`,
		`{"Action":"output","Package":"a","Test":"TestBad","Output":"--- FAIL: TestBad (0.01s)\n"}`,
		`{"Action":"fail","Package":"a","Test":"TestBad"}`,
		`{"Action":"output","Package":"a","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"a","Output":"FAIL\ta\t0.02s\n"}`,
		`{"Action":"fail","Package":"a"}`,
		`{"Action":"start","Package":"b"}`,
		`{"Action":"output","Package":"b","Output":"PASS\n"}`,
		`{"Action":"output","Package":"b","Output":"ok  \tb\t1.5s\n"}`,
		`{"Action":"pass","Package":"b"}`,
		`not json: copied`,
	}, "\n") + "\n"
	var out strings.Builder
	clock := func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }
	failed, err := run(strings.NewReader(in), &out, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !failed {
		t.Error("a failed package was not reported as a failure")
	}
	got := out.String()
	for _, want := range []string{
		"[12:00:00] running a (1 running, 0 done)\n",
		"    x_test.go:9: boom\n--- FAIL: TestBad (0.01s)\n",
		"FAIL\ta\t0.02s\n",
		"[12:00:00] running b (1 running, 1 done)\n",
		"ok  \tb\t1.5s\n",
		"not json: copied\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"chatty log line", "--- PASS", "\nPASS\n"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, got)
		}
	}
}

func TestProgressPassingRunSucceeds(t *testing.T) {
	in := `{"Action":"start","Package":"b"}` + "\n" + `{"Action":"output","Package":"b","Output":"ok  \tb\t1.5s\n"}` + "\n" + `{"Action":"pass","Package":"b"}` + "\n"
	var out strings.Builder
	failed, err := run(strings.NewReader(in), &out, time.Now)
	if err != nil || failed {
		t.Fatalf("failed=%v err=%v\n%s", failed, err, out.String())
	}
}
