package fql

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzFQLEntry feeds arbitrary bytes to the entry decoder and, framed as
// a cycle file and raw, to the queue reader: never a panic, and counts
// that add up. Seeds are real entries of the testdata logs plus the
// short files under testdata/fuzz/FuzzFQLEntry.
func FuzzFQLEntry(f *testing.F) {
	for _, dir := range []string{cqlshDir, mixDir} {
		b, err := filepathGlobFirst(dir)
		if err != nil {
			f.Fatal(err)
		}
		q := newQueueFile(bytes.NewReader(b), int64(len(b)))
		for i := 0; i < 6; i++ {
			doc, _, err := q.next()
			if err != nil {
				break
			}
			f.Add(append([]byte(nil), doc...))
		}
	}
	f.Add(singleDoc(1, "SELECT 1").b)
	f.Fuzz(func(t *testing.T, doc []byte) {
		if e, err := decodeEntry(doc); err == nil {
			_ = e.Records()
		} else {
			var se *SkipError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a SkipError", err)
			}
		}
		for _, file := range [][]byte{queueBytes(doc), doc} {
			q := newQueueFile(bytes.NewReader(file), int64(len(file)))
			for n := 0; ; n++ {
				d, _, err := q.next()
				if err != nil {
					if !errors.Is(err, errEndOfDocs) {
						t.Fatalf("queue: %v", err)
					}
					break
				}
				_, _ = decodeEntry(d)
				if n > len(file) {
					t.Fatal("more documents than bytes")
				}
			}
		}
	})
}

func filepathGlobFirst(dir string) ([]byte, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.cq4"))
	if err != nil || len(m) == 0 {
		return nil, errors.New("no .cq4 file in " + dir)
	}
	return readFileBytes(m[0])
}
