package main

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// libLogWindow is how often one library log message may repeat: a down
// HBase makes gohbase log the same failed region lookup at every step of
// its backoff.
const libLogWindow = 10 * time.Second

// routeLibraryLogs sends what gohbase logs (through logrus's standard
// logger, its only log output) to log — in dohyo's format, text or JSON,
// with component=gohbase — at most once per message per libLogWindow,
// counting the repeats it held back. logrus's own output is discarded.
// The standard library's log package (ZooKeeper's default logger, the one
// gohbase's ZooKeeper connections use) is pointed at log too.
func routeLibraryLogs(log *slog.Logger, now func() time.Time) {
	std := logrus.StandardLogger()
	std.SetOutput(io.Discard)
	std.SetLevel(logrus.InfoLevel) // below Info, gohbase logs every RPC
	std.ReplaceHooks(logrus.LevelHooks{})
	slog.SetDefault(log)
	std.AddHook(&logrusBridge{log: log.With("component", "gohbase"), now: now, last: map[string]time.Time{}, held: map[string]int{}})
}

// logrusBridge is a logrus hook writing entries to slog.
type logrusBridge struct {
	log  *slog.Logger
	now  func() time.Time
	mu   sync.Mutex
	last map[string]time.Time // message → when it was last written
	held map[string]int       // message → repeats not written since
}

func (b *logrusBridge) Levels() []logrus.Level { return logrus.AllLevels }

func (b *logrusBridge) Fire(e *logrus.Entry) error {
	now := b.now()
	b.mu.Lock()
	if t, ok := b.last[e.Message]; ok && now.Sub(t) < libLogWindow {
		b.held[e.Message]++
		b.mu.Unlock()
		return nil
	}
	repeats := b.held[e.Message]
	b.last[e.Message] = now
	delete(b.held, e.Message)
	b.mu.Unlock()

	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make([]any, 0, 2*len(keys)+2)
	for _, k := range keys {
		v := e.Data[k]
		if err, ok := v.(error); ok {
			v = err.Error()
		}
		attrs = append(attrs, k, v)
	}
	if repeats > 0 {
		attrs = append(attrs, "repeats_not_logged", repeats)
	}
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	b.log.Log(ctx, slogLevel(e.Level), e.Message, attrs...)
	return nil
}

func slogLevel(l logrus.Level) slog.Level {
	switch {
	case l <= logrus.ErrorLevel:
		return slog.LevelError
	case l == logrus.WarnLevel:
		return slog.LevelWarn
	case l == logrus.InfoLevel:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}
