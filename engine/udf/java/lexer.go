package java

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// tokKind classifies a Java token.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt    // int literal (value in ival)
	tLong   // long literal
	tFloat  // float literal (fval)
	tDouble // double literal
	tChar   // char literal (ival)
	tString // string literal (sval)
	tOp     // operator or punctuation (text)
)

type token struct {
	kind tokKind
	text string
	ival int64
	fval float64
	sval string
	line int
}

// operators, longest first so the lexer takes the longest match.
var operators = []string{
	">>>=", "<<=", ">>=", ">>>", "...", "->", "::", "++", "--", "&&", "||", "==", "!=", "<=", ">=",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>",
	"(", ")", "{", "}", "[", "]", ";", ",", ".", "@", "=", ">", "<", "!", "~", "?", ":",
	"+", "-", "*", "/", "&", "|", "^", "%",
}

// maxTokens bounds a body's size in tokens.
const maxTokens = 100000

func lex(src string) ([]token, error) {
	var out []token
	line := 1
	i := 0
	for {
		if len(out) > maxTokens {
			return nil, compileErrf(line, "the function body is too long")
		}
		for i < len(src) {
			c := src[i]
			if c == '\n' {
				line++
				i++
			} else if c == ' ' || c == '\t' || c == '\r' || c == '\f' {
				i++
			} else if strings.HasPrefix(src[i:], "//") {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			} else if strings.HasPrefix(src[i:], "/*") {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, compileErrf(line, "Syntax error, unterminated comment")
				}
				line += strings.Count(src[i:i+2+end], "\n")
				i += end + 4
			} else {
				break
			}
		}
		if i >= len(src) {
			out = append(out, token{kind: tEOF, line: line, text: "<end>"})
			return out, nil
		}
		c := src[i]
		start := i
		switch {
		case isJavaLetter(c):
			for i < len(src) && (isJavaLetter(src[i]) || isDigit(src[i])) {
				i++
			}
			out = append(out, token{kind: tIdent, text: src[start:i], line: line})
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			t, n, err := lexNumber(src[i:], line)
			if err != nil {
				return nil, err
			}
			i += n
			out = append(out, t)
		case c == '"':
			if strings.HasPrefix(src[i:], `"""`) {
				return nil, unsupportedErr(line, "a text block (\"\"\")")
			}
			s, n, err := lexQuoted(src[i:], '"', line)
			if err != nil {
				return nil, err
			}
			i += n
			out = append(out, token{kind: tString, sval: s, text: src[start:i], line: line})
		case c == '\'':
			s, n, err := lexQuoted(src[i:], '\'', line)
			if err != nil {
				return nil, err
			}
			u := utf16.Encode([]rune(s))
			if len(u) != 1 {
				return nil, compileErrf(line, "Invalid character constant")
			}
			i += n
			out = append(out, token{kind: tChar, ival: int64(u[0]), text: src[start:i], line: line})
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, compileErrf(line, "Syntax error on token \"%c\", invalid character", c)
			}
			i += len(op)
			out = append(out, token{kind: tOp, text: op, line: line})
		}
	}
}

func isJavaLetter(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexNumber lexes an integer or floating-point literal at the start of s.
func lexNumber(s string, line int) (token, int, error) {
	i := 0
	base := 10
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, i = 16, 2
	} else if strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B") {
		base, i = 2, 2
	}
	isFloat := false
	digits := func() {
		for i < len(s) && (isDigit(s[i]) || s[i] == '_' || (base == 16 && strings.IndexByte("abcdefABCDEF", s[i]) >= 0)) {
			i++
		}
	}
	digits()
	if base == 10 {
		if i < len(s) && s[i] == '.' && (i+1 >= len(s) || s[i+1] != '.') {
			isFloat = true
			i++
			digits()
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			isFloat = true
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '-') {
				i++
			}
			digits()
		}
	}
	text := strings.ReplaceAll(s[:i], "_", "")
	suffix := byte(0)
	if i < len(s) && strings.IndexByte("lLfFdD", s[i]) >= 0 {
		suffix = s[i] | 0x20
		i++
	}
	if i < len(s) && (isJavaLetter(s[i]) || isDigit(s[i])) {
		return token{}, 0, compileErrf(line, "Syntax error on token \"%s\", invalid number", s[:i+1])
	}
	tok := token{text: s[:i], line: line}
	if isFloat || (base == 10 && (suffix == 'f' || suffix == 'd')) {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return token{}, 0, compileErrf(line, "Invalid number %s", s[:i])
		}
		tok.kind, tok.fval = tDouble, f
		if suffix == 'f' {
			tok.kind, tok.fval = tFloat, float64(float32(f))
		}
		return tok, i, nil
	}
	digitsText := text
	if base != 10 {
		digitsText = text[2:]
	}
	u, err := strconv.ParseUint(digitsText, base, 64)
	if err != nil {
		return token{}, 0, compileErrf(line, "The literal %s is out of range", s[:i])
	}
	if suffix == 'l' {
		if base == 10 && u > 1<<63 {
			return token{}, 0, compileErrf(line, "The literal %s of type long is out of range", s[:i])
		}
		tok.kind, tok.ival = tLong, int64(u)
		return tok, i, nil
	}
	if (base == 10 && u > 1<<31) || (base != 10 && u > 0xFFFFFFFF) {
		return token{}, 0, compileErrf(line, "The literal %s of type int is out of range", s[:i])
	}
	tok.kind = tInt
	if base == 10 {
		tok.ival = int64(u) // 2147483648 only valid after unary minus (checked by the parser)
	} else {
		tok.ival = int64(int32(uint32(u)))
	}
	return tok, i, nil
}

// lexQuoted lexes a Java string or char literal with its escapes.
func lexQuoted(s string, q byte, line int) (string, int, error) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\n':
			return "", 0, compileErrf(line, "String literal is not properly closed by a double-quote")
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, compileErrf(line, "Invalid escape sequence")
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 's':
				b.WriteByte(' ')
			case '0', '1', '2', '3', '4', '5', '6', '7':
				n := 0
				for k := 0; k < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' && n*8+int(s[i]-'0') <= 0377; k++ {
					n = n*8 + int(s[i]-'0')
					i++
				}
				i--
				b.WriteRune(rune(n))
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'u':
				for i+1 < len(s) && s[i+1] == 'u' {
					i++
				}
				if i+4 >= len(s) {
					return "", 0, compileErrf(line, "Invalid unicode")
				}
				n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
				if err != nil {
					return "", 0, compileErrf(line, "Invalid unicode")
				}
				b.WriteRune(rune(n))
				i += 4
			default:
				return "", 0, compileErrf(line, "Invalid escape sequence (valid ones are  \\b  \\t  \\n  \\f  \\r  \\\"  \\'  \\\\ )")
			}
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, compileErrf(line, "String literal is not properly closed by a double-quote")
}
