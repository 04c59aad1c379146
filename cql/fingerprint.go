package cql

import (
	"strings"
	"unicode/utf8"
)

// Fingerprint returns the statement class of a CQL text, for capture and
// reports: literals become `?` (bind markers stay `?` or `:name`), IN lists
// collapse to `IN (?)`, collection literals to `?`, keywords are
// upper-cased, identifiers kept as written, spacing is canonical and a
// trailing semicolon is dropped. It only lexes, never parses, and accepts any
// input: text that does not lex is fingerprinted as far as it goes.
func Fingerprint(text string) string {
	f := fingerprinter{lx: lexer{src: text}}
	f.b.Grow(len(text))
	f.run()
	return f.b.String()
}

// fpClass is what was written last, for spacing decisions.
type fpClass uint8

const (
	fpStart   fpClass = iota
	fpOpen            // ( [ . or a type's < : no space after
	fpIdent           // an identifier: `(` and `[` attach to it
	fpFuncKw          // a keyword used like a function name: COUNT(
	fpKeyword         // other keywords
	fpOther           // literals, markers, operators, closing brackets
)

type fingerprinter struct {
	lx        lexer
	b         strings.Builder
	prev      fpClass
	ahead     token // the token read by peek, valid when peeked
	peeked    bool
	typeDepth int  // open `<` of type expressions (map<...>)
	semi      bool // a `;` is pending: dropped if it ends the text
}

func (f *fingerprinter) text(t token) string { return t.text(f.lx.src) }

func (f *fingerprinter) nextTok() token {
	if f.peeked {
		f.peeked = false
		return f.ahead
	}
	return f.lexTok()
}

func (f *fingerprinter) peek() token {
	if !f.peeked {
		f.ahead, f.peeked = f.lexTok(), true
	}
	return f.ahead
}

// lexTok returns the next token, turning lexical errors into tokens: an
// unterminated string becomes a string, a stray character an identifier.
func (f *fingerprinter) lexTok() token {
	t := f.lx.next()
	if t.kind != tErr {
		return t
	}
	l := &f.lx
	l.err = nil
	start := l.pos
	switch s := l.src[start:]; {
	case strings.HasPrefix(s, "'"), strings.HasPrefix(s, "$$"):
		l.pos = len(l.src)
		return l.tok(tString, start)
	case strings.HasPrefix(s, `"`):
		l.pos = len(l.src)
		return l.tok(tQIdent, start)
	case strings.HasPrefix(s, "/*"):
		l.pos = len(l.src)
		return l.tok(tEOF, l.pos)
	default:
		_, n := utf8.DecodeRuneInString(s)
		l.pos += n
		return l.tok(tIdent, start)
	}
}

func (f *fingerprinter) run() {
	for {
		t := f.nextTok()
		switch t.kind {
		case tEOF:
			return
		case tSemi:
			f.semi = true // repeated semicolons collapse into one
			continue
		}
		f.flushSemi()
		f.token(t)
	}
}

func (f *fingerprinter) flushSemi() {
	if f.semi {
		f.b.WriteByte(';')
		f.prev, f.semi = fpOther, false
	}
}

// token writes one token (and whatever it swallows).
func (f *fingerprinter) token(t token) {
	switch t.kind {
	case tInt, tFloat, tDuration:
		// `c = c -1` lexes the sign into the number; keep it an operator so
		// it classes with `c = c - 1`.
		if f.lx.src[t.pos] == '-' && f.prev == fpIdent {
			f.write("-", true, fpOther)
		}
		f.write("?", true, fpOther)
	case tString, tUUID, tBlob, tQMark:
		f.write("?", true, fpOther)
	case tIdent:
		f.word(t)
	case tQIdent:
		f.write(f.text(t), true, fpIdent)
	case tMinus:
		if w := f.peek(); w.kind == tIdent {
			if k, _, ok := literalWordFold(f.text(w)); ok && k == LitFloat {
				f.nextTok()
				f.write("?", true, fpOther)
				return
			}
		}
		f.write("-", true, fpOther)
	case tColon:
		if n := f.peek(); n.kind == tIdent || n.kind == tQIdent {
			f.nextTok()
			f.write(":", true, fpOther)
			f.b.WriteString(f.text(n))
			return
		}
		f.write(":", true, fpOther)
	case tLBrace:
		f.skipNested()
		f.write("?", true, fpOther)
	case tLBracket:
		if f.prev == fpIdent {
			f.write("[", false, fpOpen)
			return
		}
		f.skipNested()
		f.write("?", true, fpOther)
	case tLParen:
		f.write("(", f.prev != fpIdent && f.prev != fpFuncKw, fpOpen)
	case tComma, tRParen, tRBracket, tDot:
		cls := fpOther
		if t.kind == tDot {
			cls = fpOpen
		}
		f.write(punctText[t.kind], false, cls)
	case tLt:
		if f.prev == fpKeyword && isTypeCtor(f.lastWord()) {
			f.typeDepth++
			f.write("<", false, fpOpen)
			return
		}
		f.write("<", true, fpOther)
	case tGt:
		if f.typeDepth > 0 {
			f.typeDepth--
			f.write(">", false, fpOther)
			return
		}
		f.write(">", true, fpOther)
	default:
		f.write(punctText[t.kind], true, fpOther)
	}
}

// word writes a keyword, identifier or literal word.
func (f *fingerprinter) word(t token) {
	text := f.text(t)
	if _, _, ok := literalWordFold(text); ok {
		f.write("?", true, fpOther)
		return
	}
	if !isKeyword(text) {
		f.write(text, true, fpIdent)
		return
	}
	if strings.EqualFold(text, "in") {
		if n := f.peek(); n.kind == tLParen {
			f.nextTok()
			f.skipNested()
			f.write("IN", true, fpKeyword)
			f.b.WriteString(" (?)")
			f.prev = fpOther
			return
		}
	}
	cls := fpKeyword
	if isFuncKeyword(text) && f.peek().kind == tLParen {
		cls = fpFuncKw
	}
	f.space(true)
	for i := 0; i < len(text); i++ {
		f.b.WriteByte(upperByte(text[i]))
	}
	f.prev = cls
}

// lastWord returns the last word written (for type constructors).
func (f *fingerprinter) lastWord() string {
	s := f.b.String()
	i := len(s)
	for i > 0 && isIdentChar(s[i-1]) {
		i--
	}
	return s[i:]
}

// isFuncKeyword reports keywords that are also function names: COUNT(.
func isFuncKeyword(w string) bool {
	for _, k := range [...]string{"count", "ttl", "writetime", "maxwritetime", "token", "cast"} {
		if strings.EqualFold(w, k) {
			return true
		}
	}
	return false
}

func isTypeCtor(w string) bool {
	switch w {
	case "MAP", "LIST", "SET", "FROZEN", "TUPLE":
		return true
	}
	return false
}

// skipNested consumes tokens up to the bracket closing one already read.
func (f *fingerprinter) skipNested() {
	for depth := 1; depth > 0; {
		switch f.nextTok().kind {
		case tEOF:
			return
		case tLParen, tLBracket, tLBrace:
			depth++
		case tRParen, tRBracket, tRBrace:
			depth--
		}
	}
}

// space writes a separating space unless at the start or after an opener.
func (f *fingerprinter) space(wanted bool) {
	if wanted && f.prev != fpStart && f.prev != fpOpen {
		f.b.WriteByte(' ')
	}
}

func (f *fingerprinter) write(s string, spaceBefore bool, cls fpClass) {
	f.space(spaceBefore)
	f.b.WriteString(s)
	f.prev = cls
}
