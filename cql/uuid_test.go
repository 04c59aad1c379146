package cql

import (
	"sync"
	"testing"
	"time"
)

func TestParseUUID(t *testing.T) {
	u, err := ParseUUID("123E4567-e89b-12d3-A456-426614174000")
	if err != nil {
		t.Fatal(err)
	}
	if got := u.String(); got != "123e4567-e89b-12d3-a456-426614174000" {
		t.Errorf("String() = %s", got)
	}
	if u.Version() != 1 {
		t.Errorf("Version() = %d, want 1", u.Version())
	}
	for _, s := range []string{"", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g",
		"123e4567-e89b-12d3-a456_426614174000", "{123e4567-e89b-12d3-a456-426614174000}"} {
		if _, err := ParseUUID(s); err == nil || err.Error() != "Unable to make UUID from '"+s+"'" {
			t.Errorf("ParseUUID(%q) error = %v", s, err)
		}
	}
}

func TestTimeUUID(t *testing.T) {
	at := time.Date(2015, 7, 16, 12, 34, 56, 789123400, time.UTC)
	node := [6]byte{0xfe, 0xff, 0x81, 0x9c, 0xdc, 0x9f}
	u := NewTimeUUID(at, 0x3345, node)
	if u.Version() != 1 || u[8]&0xc0 != 0x80 {
		t.Errorf("version/variant wrong: %s", u)
	}
	if got := TimeUUIDTime(u); !got.Equal(at) {
		t.Errorf("TimeUUIDTime = %v, want %v", got, at)
	}
	if u.String()[19:] != "b345-feff819cdc9f" {
		t.Errorf("clock seq/node = %s", u.String()[19:])
	}
	// A known Cassandra timeuuid: 50554d6e-29bb-11e5-b345-feff819cdc9f.
	known, _ := ParseUUID("50554d6e-29bb-11e5-b345-feff819cdc9f")
	if got := TimeUUIDTime(known).Format(time.RFC3339); got != "2015-07-14T00:00:18Z" {
		t.Errorf("TimeUUIDTime(known) = %s", got)
	}
	if got := NewTimeUUID(TimeUUIDTime(known), 0x3345, node); got != known {
		t.Errorf("NewTimeUUID(TimeUUIDTime(x)) = %s, want %s", got, known)
	}
	if got := TimeUUIDTime(NewTimeUUID(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), 0, node)); got.Year() != 1582 {
		t.Errorf("time before the UUID epoch not clamped: %v", got)
	}
	ms := time.UnixMilli(1_600_000_000_123)
	if TimeUUIDTime(MinTimeUUID(ms)) != ms.UTC() || TimeUUIDTime(MaxTimeUUID(ms)) != ms.UTC().Add(999900*time.Nanosecond) {
		t.Errorf("min/max timeuuid times: %v %v", TimeUUIDTime(MinTimeUUID(ms)), TimeUUIDTime(MaxTimeUUID(ms)))
	}
}

func TestTimeUUIDGenerator(t *testing.T) {
	fixed := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewTimeUUIDGenerator(func() time.Time { return fixed })
	var mu sync.Mutex
	seen := map[UUID]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				u := g.Next()
				mu.Lock()
				seen[u] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 1000 {
		t.Fatalf("generator produced %d distinct UUIDs, want 1000", len(seen))
	}
	a, b := g.Next(), g.Next()
	if Compare(Scalar(KindTimeuuid), a[:], b[:]) >= 0 {
		t.Errorf("consecutive UUIDs not increasing: %s %s", a, b)
	}
	if d := TimeUUIDTime(b).Sub(fixed); d < 0 || d > time.Millisecond {
		t.Errorf("generated time drifted by %v", d)
	}
}

func TestRandomUUID(t *testing.T) {
	a, b := RandomUUID(), RandomUUID()
	if a == b || a.Version() != 4 || a[8]&0xc0 != 0x80 {
		t.Errorf("RandomUUID: %s %s", a, b)
	}
}
