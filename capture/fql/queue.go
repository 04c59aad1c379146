package fql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Chronicle Queue cycle files (.cq4). A file is a sequence of documents,
// each behind a 4-byte little-endian header: the low 30 bits are the
// length, bit 30 marks meta-data (the queue's own header and its index
// arrays) and bit 31 a document still being written. A header of 0 is
// where nothing was written yet (the files are pre-allocated and sparse);
// 0xC0000000 (meta-data | not complete, length 0) marks the end of a
// rolled file. With the queue's data format 1 (every Chronicle Queue that
// Cassandra 4.0+ ships) each header starts at a multiple of 4.
const (
	hdrNotComplete = 0x8000_0000
	hdrMetaData    = 0x4000_0000
	hdrLengthMask  = 0x3FFF_FFFF
	hdrEndOfData   = hdrNotComplete | hdrMetaData
)

// tailState says how a file's documents ended.
type tailState int

const (
	tailClean      tailState = iota // end-of-data marker or unwritten space
	tailIncomplete                  // a document still being written (a live log, or a crash)
	tailTruncated                   // the file ends inside a document (copied mid-write, or cut)
)

func (t tailState) String() string {
	switch t {
	case tailIncomplete:
		return "an entry still being written"
	case tailTruncated:
		return "the file ends inside an entry"
	}
	return "clean"
}

// queueFile iterates over the data documents of one cycle file.
type queueFile struct {
	r       io.ReaderAt
	size    int64
	pos     int64
	padding bool
	started bool
	buf     []byte
	tail    tailState
	tailAt  int64
	done    bool
}

func newQueueFile(r io.ReaderAt, size int64) *queueFile {
	return &queueFile{r: r, size: size, padding: true}
}

// errEndOfDocs is next's end: see tail for how the file ended.
var errEndOfDocs = errors.New("end of documents")

// next returns the next data document and its file offset (of the
// header). The document is valid until the next call. It returns
// errEndOfDocs at the end and another error only for a read failure.
func (q *queueFile) next() ([]byte, int64, error) {
	for !q.done {
		if q.padding {
			q.pos = (q.pos + 3) &^ 3
		}
		if q.pos+4 > q.size {
			// Nothing more was written (or the header itself was cut:
			// a header never straddles the end of a complete file).
			q.finish(tailClean)
			if q.pos < q.size && !q.zeros(q.pos, q.size) {
				q.finish(tailTruncated)
			}
			break
		}
		var h [4]byte
		if err := readFull(q.r, h[:], q.pos); err != nil {
			return nil, 0, fmt.Errorf("read header at %d: %w", q.pos, err)
		}
		hdr := binary.LittleEndian.Uint32(h[:])
		switch {
		case hdr == 0:
			q.finish(tailClean)
			continue
		case hdr == hdrEndOfData:
			q.finish(tailClean)
			continue
		case hdr&hdrNotComplete != 0:
			q.finish(tailIncomplete)
			continue
		}
		n := int64(hdr & hdrLengthMask)
		at := q.pos
		if at+4+n > q.size {
			q.finish(tailTruncated)
			continue
		}
		meta := hdr&hdrMetaData != 0
		first := !q.started
		q.started = true
		q.pos = at + 4 + n
		if meta && !first {
			continue // index arrays and padding: not needed for a full scan
		}
		if int64(cap(q.buf)) < n {
			q.buf = make([]byte, n)
		}
		doc := q.buf[:n]
		if err := readFull(q.r, doc, at+4); err != nil {
			return nil, 0, fmt.Errorf("read document at %d: %w", at, err)
		}
		if meta {
			q.padding = dataFormat(doc) > 0
			continue
		}
		return doc, at, nil
	}
	return nil, 0, errEndOfDocs
}

// readFull fills b from off. io.ReaderAt may return io.EOF together with
// a full buffer (bytes.Reader does for an empty document at the file's
// end); that is a complete read, not a failure.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if err == io.EOF && n == len(b) {
		return nil
	}
	return err
}

func (q *queueFile) finish(t tailState) {
	q.tail, q.tailAt, q.done = t, q.pos, true
}

// zeros reports whether the file holds only zero bytes in [from, to).
func (q *queueFile) zeros(from, to int64) bool {
	b := make([]byte, to-from)
	if _, err := q.r.ReadAt(b, from); err != nil && err != io.EOF {
		return false
	}
	return bytes.Count(b, []byte{0}) == len(b)
}

// fieldDataFormat is how BinaryWire writes the field name "dataFormat".
var fieldDataFormat = append([]byte{codeFieldName0 + 10}, "dataFormat"...)

// dataFormat reads the queue header's data format (1 when the documents
// are 4-byte aligned). The header is a nested typed document
// (header: !SCQStore { writePosition, indexing: !SCQSIndexing {...},
// dataFormat }); rather than walk Chronicle's whole type system this
// finds the field by its encoding. A header without one is format 0.
func dataFormat(doc []byte) int64 {
	i := bytes.Index(doc, fieldDataFormat)
	if i < 0 {
		return 0
	}
	r := &wireReader{b: doc, off: i + len(fieldDataFormat)}
	v, err := r.int64v()
	if err != nil {
		return 0
	}
	return v
}
