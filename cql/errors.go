package cql

import (
	"fmt"
	"unicode/utf8"
)

// SyntaxError is a CQL syntax error. Line is 1-based and Col 0-based (in
// characters), the way Cassandra's ANTLR parser reports them, so messages
// read the same as Cassandra's: "line 1:9 no viable alternative at input 'FORM'".
type SyntaxError struct {
	Line, Col int
	Token     string // the offending token as written, "<EOF>" at the end
	Msg       string // the full message, token included
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d:%d %s", e.Line, e.Col, e.Msg)
}

// eofText is how the end of input is named in messages.
const eofText = "<EOF>"

// newSyntaxError builds a SyntaxError for byte offset pos of src.
func newSyntaxError(src string, pos int, tok, msg string) *SyntaxError {
	line, col := position(src, pos)
	return &SyntaxError{Line: line, Col: col, Token: tok, Msg: msg}
}

// position converts a byte offset into a 1-based line and 0-based column
// counted in runes. Computed lazily: only errors need it.
func position(src string, pos int) (line, col int) {
	if pos > len(src) {
		pos = len(src)
	}
	line, start := 1, 0
	for i := 0; i < pos; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCountInString(src[start:pos])
}

// noViable is ANTLR's message when no grammar alternative fits a token.
func noViableMsg(tok string) string {
	return fmt.Sprintf("no viable alternative at input '%s'", tok)
}

// mismatchMsg is ANTLR's message when one specific token was required.
func mismatchMsg(tok, expecting string) string {
	return fmt.Sprintf("mismatched input '%s' expecting %s", tok, expecting)
}
