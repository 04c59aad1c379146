package fql

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// docWriter builds BinaryWire documents for tests, the way Chronicle Wire
// writes them (compact numbers, short strings inline).
type docWriter struct{ b []byte }

func (w *docWriter) field(name string) *docWriter {
	w.b = append(w.b, byte(codeFieldName0+len(name)))
	w.b = append(w.b, name...)
	return w
}

func (w *docWriter) text(s string) *docWriter {
	if len(s) < 32 {
		w.b = append(w.b, byte(codeString0+len(s)))
	} else {
		w.b = append(w.b, codeStringAny)
		w.b = appendStopBit(w.b, uint64(len(s)))
	}
	w.b = append(w.b, s...)
	return w
}

func (w *docWriter) null() *docWriter { w.b = append(w.b, codeNull); return w }

func (w *docWriter) int64v(v int64) *docWriter {
	switch {
	case v >= 0 && v < 256:
		w.b = append(w.b, codeUint8, byte(v))
	case v >= -1<<31 && v < 1<<31:
		w.b = append(w.b, codeInt32)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v))
	default:
		w.b = append(w.b, codeInt64)
		w.b = binary.LittleEndian.AppendUint64(w.b, uint64(v))
	}
	return w
}

func (w *docWriter) bytes(v []byte) *docWriter {
	w.b = append(w.b, codeBytesLength32)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(len(v)+1))
	w.b = append(w.b, codeU8Array)
	w.b = append(w.b, v...)
	return w
}

func appendStopBit(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// queueBytes frames documents as a cycle file: a meta-data header (with
// dataFormat 1), then each document 4-byte aligned.
func queueBytes(docs ...[]byte) []byte {
	hdr := (&docWriter{}).field("dataFormat").int64v(1).b
	var out []byte
	add := func(doc []byte, flags uint32) {
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(doc))|flags)
		out = append(out, doc...)
	}
	add(hdr, hdrMetaData)
	for _, d := range docs {
		add(d, 0)
	}
	return out
}

// singleDoc is a well-formed single-query entry (protocol v4, ONE, one
// int value).
func singleDoc(start int64, query string) *docWriter {
	opts := []byte{0, 1, 0x01 | 0x20, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 42}
	return (&docWriter{}).field(fieldVersion).int64v(0).field(fieldType).text(TypeSingle).
		field(fieldStartTime).int64v(start).field(fieldProtocolVersion).int64v(4).
		field(fieldQueryOptions).bytes(opts).field(fieldGeneratedTS).int64v(noValue).
		field(fieldGeneratedNow).int64v(1).field(fieldKeyspace).null().field(fieldQuery).text(query)
}

// readAll reads every entry of path.
func readAll(t *testing.T, path string) ([]*Entry, *Stats) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, r.Stats()
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

// writeFile writes b as a cycle file in a new directory and returns the
// directory.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFileBytes(path string) ([]byte, error) { return os.ReadFile(path) }
