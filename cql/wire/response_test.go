package wire

import (
	"bytes"
	"errors"
	"testing"
)

// response builds a RESULT or ERROR frame's header and body, with a
// warning list in front of the message when warn is set.
func response(op byte, warn bool, msg []byte) (Header, []byte) {
	h := Header{Response: true, Version: 4, Op: op}
	var body []byte
	if warn {
		h.Flags |= FlagWarning
		body = AppendStringList(body, []string{"careful"})
	}
	body = append(body, msg...)
	h.Length = int32(len(body))
	return h, body
}

// TestDecodeError: code, message and the Unprepared id; a short body is
// ErrMalformedError.
func TestDecodeError(t *testing.T) {
	body := AppendShortBytes(AppendString(AppendInt(nil, 0x2500), "unknown id"), []byte{9, 9})
	e, err := DecodeError(body)
	if err != nil || e.Code != 0x2500 || e.Message != "unknown id" || !bytes.Equal(e.UnpreparedID, []byte{9, 9}) {
		t.Fatalf("got %+v, %v", e, err)
	}
	if _, err := DecodeError(body[:5]); !errors.Is(err, ErrMalformedError) {
		t.Fatalf("short body: %v, want ErrMalformedError", err)
	}
}

// TestDecodeRowsAfterWarnings: ResponseBody skips the warnings; DecodeRows
// reads the metadata (global spec, a list<int> column) and the cells.
func TestDecodeRowsAfterWarnings(t *testing.T) {
	msg := AppendInt(nil, ResultRows)
	msg = AppendInt(msg, RowsGlobalTableSpec|RowsHasMorePages)
	msg = AppendInt(msg, 2)
	msg = AppendBytes(msg, []byte("page"))
	msg = AppendString(AppendString(msg, "ks"), "t")
	msg = AppendShort(AppendString(msg, "k"), 0x0009)                  // int
	msg = AppendShort(AppendShort(AppendString(msg, "l"), 0x20), 0x09) // list<int>
	msg = AppendInt(msg, 1)
	msg = AppendBytes(AppendBytes(msg, []byte{0, 0, 0, 1}), nil)
	h, body := response(OpResult, true, msg)
	r := ResponseBody(h, body)
	if r.Int() != ResultRows {
		t.Fatal("result kind not found after the warnings")
	}
	rows, more, err := DecodeRows(&r)
	if err != nil || !more || len(rows) != 1 || !bytes.Equal(rows[0][0], []byte{0, 0, 0, 1}) || rows[0][1] != nil {
		t.Fatalf("rows %v, more %v, %v", rows, more, err)
	}
}

// TestPreparedResult: the id and the rest of the body, as copies.
func TestPreparedResult(t *testing.T) {
	h, body := response(OpResult, false, append(AppendShortBytes(AppendInt(nil, ResultPrepared), []byte{1, 2, 3}), "meta"...))
	id, shape := PreparedResult(h, body)
	if !bytes.Equal(id, []byte{1, 2, 3}) || string(shape) != "meta" {
		t.Fatalf("id %v, shape %q", id, shape)
	}
	body[6] = 7 // the id's first byte
	if id[0] != 1 {
		t.Fatal("the id is not a copy")
	}
	if id, _ := PreparedResult(response(OpResult, false, AppendInt(nil, ResultVoid))); id != nil {
		t.Fatal("a Void result read as prepared")
	}
}

// TestDecodeSchemaChange: a table change as a RESULT and a keyspace change
// as an EVENT.
func TestDecodeSchemaChange(t *testing.T) {
	msg := AppendInt(nil, ResultSchemaChange)
	for _, s := range []string{"CREATED", "TABLE", "ks", "t"} {
		msg = AppendString(msg, s)
	}
	rh, rbody := response(OpResult, false, msg)
	ch, ok := DecodeSchemaChange(rh, rbody, false)
	if !ok || ch != (SchemaChange{Type: "CREATED", Target: "TABLE", Keyspace: "ks", Object: "t"}) {
		t.Fatalf("result: %+v, %v", ch, ok)
	}
	var ev []byte
	for _, s := range []string{"SCHEMA_CHANGE", "DROPPED", "KEYSPACE", "ks"} {
		ev = AppendString(ev, s)
	}
	h, body := response(OpEvent, false, ev)
	ch, ok = DecodeSchemaChange(h, body, true)
	if !ok || ch != (SchemaChange{Type: "DROPPED", Target: "KEYSPACE", Keyspace: "ks"}) {
		t.Fatalf("event: %+v, %v", ch, ok)
	}
	if _, ok := DecodeSchemaChange(h, body[:len(body)-1], true); ok {
		t.Fatal("a truncated event decoded")
	}
}
