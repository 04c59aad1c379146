package cql

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tErr              // a lexical error; lexer.err holds it
	tIdent            // an unquoted word: keyword or identifier, text as written
	tQIdent           // "quoted identifier", quotes included
	tString           // 'string' or $$string$$, delimiters included
	tInt              // 12, -12
	tFloat            // 1.5, -2e3
	tUUID             // 8-4-4-4-12 hex
	tBlob             // 0xCAFE
	tDuration         // 1h30m, P1D, -2d
	tQMark            // ?
	tLParen           // (
	tRParen           // )
	tLBracket         // [
	tRBracket         // ]
	tLBrace           // {
	tRBrace           // }
	tComma            // ,
	tSemi             // ;
	tDot              // .
	tColon            // :
	tStar             // *
	tEq               // =
	tNeq              // !=
	tLt               // <
	tLte              // <=
	tGt               // >
	tGte              // >=
	tPlus             // +
	tMinus            // -
	tPlusEq           // +=
	tMinusEq          // -=
	tSlash            // /
	tPercent          // %
)

// punctText spells punctuation tokens, indexed by kind.
var punctText = [...]string{
	tLParen: "(", tRParen: ")", tLBracket: "[", tRBracket: "]", tLBrace: "{",
	tRBrace: "}", tComma: ",", tSemi: ";", tDot: ".", tColon: ":", tStar: "*",
	tEq: "=", tNeq: "!=", tLt: "<", tLte: "<=", tGt: ">", tGte: ">=", tPlus: "+",
	tMinus: "-", tPlusEq: "+=", tMinusEq: "-=", tQMark: "?", tSlash: "/", tPercent: "%",
}

// token is one lexeme: its kind and byte offsets in the source. It holds no
// pointers, so a statement's token slice is one cheap, unscanned allocation.
type token struct {
	kind     tokKind
	pos, end int32
}

// text returns the token as written in src.
func (t *token) text(src string) string { return src[t.pos:t.end] }

// display is the token as shown in error messages.
func (t *token) display(src string) string {
	if t.kind == tEOF {
		return eofText
	}
	return t.text(src)
}

// maxTextLen bounds statement text so offsets fit in int32.
const maxTextLen = 1<<31 - 1

// lexer turns CQL text into tokens on demand.
type lexer struct {
	src string
	pos int
	err *SyntaxError
}

// lexAll lexes the whole text, ending with a tEOF token.
func lexAll(src string) ([]token, *SyntaxError) {
	if len(src) > maxTextLen {
		return nil, &SyntaxError{Line: 1, Token: eofText, Msg: "statement too long"}
	}
	l := lexer{src: src}
	toks := make([]token, 0, len(src)/4+2)
	for {
		t := l.next()
		switch t.kind {
		case tErr:
			return nil, l.err
		case tEOF:
			return append(toks, t), nil
		}
		toks = append(toks, t)
	}
}

func (l *lexer) fail(pos int, tok, msg string) token {
	l.err = newSyntaxError(l.src, pos, tok, msg)
	return token{kind: tErr, pos: int32(pos), end: int32(pos)}
}

func (l *lexer) tok(kind tokKind, start int) token {
	return token{kind: kind, pos: int32(start), end: int32(l.pos)}
}

// next returns the next token, tEOF at the end, or tErr once on a lexical error.
func (l *lexer) next() token {
	if l.err != nil || !l.skipSpace() {
		return l.tok(tErr, l.pos)
	}
	s, start := l.src, l.pos
	if start >= len(s) {
		return l.tok(tEOF, start)
	}
	c := s[start]
	switch {
	case isLetter(c):
		if n := uuidLen(s[start:]); n > 0 {
			l.pos += n
			return l.tok(tUUID, start)
		}
		if n := durationLen(s[start:]); n > 0 {
			l.pos += n
			return l.tok(tDuration, start)
		}
		l.pos++
		for l.pos < len(s) && isIdentChar(s[l.pos]) {
			l.pos++
		}
		return l.tok(tIdent, start)
	case isDigit(c):
		return l.number(start)
	case c == '-':
		if start+1 < len(s) {
			switch d := s[start+1]; {
			case isDigit(d):
				return l.number(start)
			case d == 'p' || d == 'P':
				if n := durationLen(s[start:]); n > 0 {
					l.pos += n
					return l.tok(tDuration, start)
				}
			case d == '=':
				l.pos += 2
				return l.tok(tMinusEq, start)
			}
		}
		l.pos++
		return l.tok(tMinus, start)
	case c == '\'':
		return l.quoted(start, '\'', tString, "string literal")
	case c == '"':
		return l.quoted(start, '"', tQIdent, "quoted identifier")
	case c == '$' && strings.HasPrefix(s[start:], "$$"):
		end := strings.Index(s[start+2:], "$$")
		if end < 0 {
			return l.fail(start, "$$", "unterminated $$ string literal")
		}
		l.pos = start + 2 + end + 2
		return l.tok(tString, start)
	}
	if k, n := punct(s[start:]); n > 0 {
		l.pos += n
		return l.tok(k, start)
	}
	r, _ := utf8.DecodeRuneInString(s[start:])
	return l.fail(start, string(r), fmt.Sprintf("no viable alternative at character '%c'", r))
}

// skipSpace skips whitespace and comments; false on an unterminated comment.
func (l *lexer) skipSpace() bool {
	s := l.src
	for l.pos < len(s) {
		switch c := s[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.pos++
		case strings.HasPrefix(s[l.pos:], "--") || strings.HasPrefix(s[l.pos:], "//"):
			nl := strings.IndexByte(s[l.pos:], '\n')
			if nl < 0 {
				l.pos = len(s)
			} else {
				l.pos += nl + 1
			}
		case strings.HasPrefix(s[l.pos:], "/*"):
			end := strings.Index(s[l.pos+2:], "*/")
			if end < 0 {
				l.fail(l.pos, "/*", "unterminated comment")
				return false
			}
			l.pos += 2 + end + 2
		default:
			return true
		}
	}
	return true
}

// quoted lexes a string or quoted identifier; a doubled quote escapes itself.
func (l *lexer) quoted(start int, q byte, kind tokKind, what string) token {
	s := l.src
	for i := start + 1; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i++
			continue
		}
		l.pos = i + 1
		return l.tok(kind, start)
	}
	return l.fail(start, string(q), "unterminated "+what)
}

// number lexes what starts with a digit or '-' digit: a UUID, a blob, a
// duration, an integer or a float (in that order of preference).
func (l *lexer) number(start int) token {
	s := l.src[start:]
	if s[0] != '-' {
		if n := uuidLen(s); n > 0 {
			l.pos += n
			return l.tok(tUUID, start)
		}
		if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
			n := 2
			for n < len(s) && isHex(s[n]) {
				n++
			}
			l.pos += n
			return l.tok(tBlob, start)
		}
	}
	if n := durationLen(s); n > 0 {
		l.pos += n
		return l.tok(tDuration, start)
	}
	n := 0
	if s[0] == '-' {
		n++
	}
	n = skipDigits(s, n)
	kind := tInt
	if n < len(s) && s[n] == '.' {
		kind = tFloat
		n = skipDigits(s, n+1)
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if e := skipDigits(s, m); e > m {
			kind, n = tFloat, e
		}
	}
	l.pos += n
	return l.tok(kind, start)
}

// punct recognises operators and punctuation, longest first.
func punct(s string) (tokKind, int) {
	if len(s) >= 2 {
		switch s[:2] {
		case "!=":
			return tNeq, 2
		case "<=":
			return tLte, 2
		case ">=":
			return tGte, 2
		case "+=":
			return tPlusEq, 2
		}
	}
	switch s[0] {
	case '(':
		return tLParen, 1
	case ')':
		return tRParen, 1
	case '[':
		return tLBracket, 1
	case ']':
		return tRBracket, 1
	case '{':
		return tLBrace, 1
	case '}':
		return tRBrace, 1
	case ',':
		return tComma, 1
	case ';':
		return tSemi, 1
	case '.':
		return tDot, 1
	case ':':
		return tColon, 1
	case '*':
		return tStar, 1
	case '=':
		return tEq, 1
	case '<':
		return tLt, 1
	case '>':
		return tGt, 1
	case '+':
		return tPlus, 1
	case '/':
		return tSlash, 1
	case '%':
		return tPercent, 1
	case '?':
		return tQMark, 1
	}
	return 0, 0
}

// uuidLen returns 36 when s starts with a UUID not followed by a word
// character, else 0.
func uuidLen(s string) int {
	if len(s) < 36 {
		return 0
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return 0
			}
		default:
			if !isHex(s[i]) {
				return 0
			}
		}
	}
	if len(s) > 36 && isIdentChar(s[36]) {
		return 0
	}
	return 36
}

// durationLen returns the length of a duration literal at the start of s
// (optionally signed), or 0. Forms: 1h30m (units y mo w d h m s ms us µs ns),
// ISO 8601 P1Y2M3DT4H5M6S, P2W and P0001-02-03T04:05:06.
func durationLen(s string) int {
	n := 0
	if n < len(s) && s[n] == '-' {
		n++
	}
	var end int
	if n < len(s) && (s[n] == 'p' || s[n] == 'P') {
		end = isoDurationLen(s, n+1)
	} else {
		end = unitDurationLen(s, n)
	}
	if end == 0 || (end < len(s) && isIdentChar(s[end])) {
		return 0
	}
	return end
}

// unitDurationLen matches (digits unit)+ from i; returns the end or 0.
func unitDurationLen(s string, i int) int {
	parts := 0
	for {
		d := skipDigits(s, i)
		if d == i {
			break
		}
		u := unitLen(s[d:])
		if u == 0 {
			break
		}
		i = d + u
		parts++
	}
	if parts == 0 {
		return 0
	}
	return i
}

// unitLen returns the length of the duration unit at the start of s.
func unitLen(s string) int {
	if len(s) >= 2 {
		switch strings.ToLower(s[:2]) {
		case "mo", "ms", "us", "ns":
			return 2
		}
	}
	if strings.HasPrefix(s, "µs") || strings.HasPrefix(s, "µS") || strings.HasPrefix(s, "μs") || strings.HasPrefix(s, "μS") {
		return len("µs")
	}
	if len(s) >= 1 {
		switch lowerByte(s[0]) {
		case 'y', 'w', 'd', 'h', 'm', 's':
			return 1
		}
	}
	return 0
}

// isoDurationLen matches the part after 'P' from i; returns the end or 0.
func isoDurationLen(s string, i int) int {
	// Alternative format P0001-02-03T04:05:06.
	if alt := "dddd-dd-ddTdd:dd:dd"; len(s)-i >= len(alt) {
		ok := true
		for j := 0; j < len(alt) && ok; j++ {
			c := s[i+j]
			switch alt[j] {
			case 'd':
				ok = isDigit(c)
			case 'T':
				ok = c == 't' || c == 'T'
			default:
				ok = c == alt[j]
			}
		}
		if ok {
			return i + len(alt)
		}
	}
	// Weeks: P2W.
	if d := skipDigits(s, i); d > i && d < len(s) && lowerByte(s[d]) == 'w' {
		return d + 1
	}
	// P[nY][nM][nD][T[nH][nM][nS]] with at least one component.
	parts := 0
	i = isoParts(s, i, "ymd", &parts)
	if i < len(s) && lowerByte(s[i]) == 't' {
		before := parts
		i = isoParts(s, i+1, "hms", &parts)
		if parts == before {
			return 0
		}
	}
	if parts == 0 {
		return 0
	}
	return i
}

// isoParts matches digits+unit groups whose units appear in order in units.
func isoParts(s string, i int, units string, parts *int) int {
	for len(units) > 0 {
		d := skipDigits(s, i)
		if d == i || d >= len(s) {
			return i
		}
		k := strings.IndexByte(units, lowerByte(s[d]))
		if k < 0 {
			return i
		}
		i, units = d+1, units[k+1:]
		*parts++
	}
	return i
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isLetter(c byte) bool    { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unquote strips the delimiters of a string or quoted identifier token and
// undoubles escaped quotes.
func unquote(text string) string {
	if strings.HasPrefix(text, "$$") {
		return text[2 : len(text)-2]
	}
	q := text[:1]
	body := text[1 : len(text)-1]
	if !strings.Contains(body, q) {
		return body
	}
	return strings.ReplaceAll(body, q+q, q)
}
