package metrics

import "strings"

// Statement classes, the values of the op label.
const (
	OpSelect = "select"
	OpInsert = "insert"
	OpUpdate = "update"
	OpDelete = "delete"
	OpBatch  = "batch"
	OpDDL    = "ddl"
	OpUse    = "use"
	// OpDescribe is DESCRIBE: a read of the schema (keyspace
	// system_schema), answered by dohyo from its catalog.
	OpDescribe = "describe"
	OpOther    = "other"
)

// Classify returns a statement's class and the keyspace its text names
// (the qualifier of its table, the keyspace of keyspace DDL and USE; ""
// when the statement relies on the session keyspace). It only scans
// tokens, without parsing or allocating, so it is cheap enough for every
// request; statements it does not understand are OpOther.
func Classify(query string) (op, keyspace string) {
	s := scanner{src: query}
	return s.statement()
}

type scanner struct {
	src string
	pos int
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted // "identifier"
	tokPunct
	tokOther // strings, numbers, anything else
)

type tok struct {
	kind tokKind
	text string
}

// word reports whether t is the unquoted keyword w (lower case).
func (t tok) word(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

func (t tok) punct(c byte) bool { return t.kind == tokPunct && t.text[0] == c }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func (s *scanner) next() tok {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			s.pos++
		case strings.HasPrefix(src[s.pos:], "--") || strings.HasPrefix(src[s.pos:], "//"):
			if nl := strings.IndexByte(src[s.pos:], '\n'); nl >= 0 {
				s.pos += nl + 1
			} else {
				s.pos = len(src)
			}
		case strings.HasPrefix(src[s.pos:], "/*"):
			if end := strings.Index(src[s.pos+2:], "*/"); end >= 0 {
				s.pos += end + 4
			} else {
				s.pos = len(src)
			}
		case isIdentStart(c):
			start := s.pos
			for s.pos < len(src) && isIdentPart(src[s.pos]) {
				s.pos++
			}
			return tok{tokWord, src[start:s.pos]}
		case c == '"' || c == '\'':
			start := s.pos
			s.pos++
			for s.pos < len(src) {
				if src[s.pos] == c {
					if s.pos+1 < len(src) && src[s.pos+1] == c { // doubled quote
						s.pos += 2
						continue
					}
					break
				}
				s.pos++
			}
			s.pos = min(s.pos+1, len(src))
			if c == '"' {
				return tok{tokQuoted, src[start:s.pos]}
			}
			return tok{tokOther, src[start:s.pos]}
		case strings.HasPrefix(src[s.pos:], "$$"):
			start := s.pos
			if end := strings.Index(src[s.pos+2:], "$$"); end >= 0 {
				s.pos += end + 4
			} else {
				s.pos = len(src)
			}
			return tok{tokOther, src[start:s.pos]}
		case c == '.' || c == '(' || c == ')' || c == ';' || c == ',':
			s.pos++
			return tok{tokPunct, src[s.pos-1 : s.pos]}
		default:
			start := s.pos
			s.pos++
			for s.pos < len(src) && isIdentPart(src[s.pos]) { // numbers, UUIDs
				s.pos++
			}
			return tok{tokOther, src[start:s.pos]}
		}
	}
	return tok{kind: tokEOF}
}

func (s *scanner) peek() tok {
	save := s.pos
	t := s.next()
	s.pos = save
	return t
}

// identifier returns t's name as CQL resolves it: unquoted names fold to
// lower case; quoted ones are verbatim.
func identifier(t tok) (string, bool) {
	switch t.kind {
	case tokWord:
		if hasUpper(t.text) {
			return strings.ToLower(t.text), true
		}
		return t.text, true
	case tokQuoted:
		inner := t.text[1:]
		if strings.HasSuffix(inner, `"`) {
			inner = inner[:len(inner)-1]
		}
		if strings.Contains(inner, `""`) {
			inner = strings.ReplaceAll(inner, `""`, `"`)
		}
		return inner, true
	}
	return "", false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// name reads [qualifier.]name and returns both parts.
func (s *scanner) name() (qualifier, name string) {
	first, ok := identifier(s.next())
	if !ok {
		return "", ""
	}
	if s.peek().punct('.') {
		s.next()
		second, _ := identifier(s.next())
		return first, second
	}
	return "", first
}

// skipTo advances past the keyword w at parenthesis depth 0.
func (s *scanner) skipTo(w string) bool {
	depth := 0
	for {
		t := s.next()
		switch {
		case t.kind == tokEOF:
			return false
		case t.punct('('):
			depth++
		case t.punct(')'):
			depth--
		case depth == 0 && t.word(w):
			return true
		}
	}
}

func (s *scanner) skipWords(words ...string) {
	for {
		t := s.peek()
		found := false
		for _, w := range words {
			if t.word(w) {
				found = true
				break
			}
		}
		if !found {
			return
		}
		s.next()
	}
}

// statementWords are the first keywords Classify knows.
var statementWords = []string{"select", "insert", "update", "delete", "begin", "use", "truncate", "create", "alter", "drop", "describe", "desc"}

// keyword returns w lower-cased if it is one of statementWords, without
// allocating.
func keyword(w string) string {
	for _, k := range statementWords {
		if strings.EqualFold(w, k) {
			return k
		}
	}
	return ""
}

func (s *scanner) statement() (string, string) {
	t := s.next()
	if t.kind != tokWord {
		return OpOther, ""
	}
	switch keyword(t.text) {
	case "describe", "desc":
		return OpDescribe, "system_schema"
	case "select":
		if !s.skipTo("from") {
			return OpSelect, ""
		}
		ks, _ := s.name()
		return OpSelect, ks
	case "insert":
		s.skipWords("into")
		ks, _ := s.name()
		return OpInsert, ks
	case "update":
		ks, _ := s.name()
		return OpUpdate, ks
	case "delete":
		if !s.skipTo("from") {
			return OpDelete, ""
		}
		ks, _ := s.name()
		return OpDelete, ks
	case "begin":
		// BEGIN [UNLOGGED|COUNTER] BATCH [USING ...] child; ...: the
		// keyspace of the first child.
		for {
			t := s.next()
			if t.kind == tokEOF {
				return OpBatch, ""
			}
			if t.word("insert") || t.word("update") || t.word("delete") {
				s.pos -= len(t.text)
				_, ks := s.statement()
				return OpBatch, ks
			}
		}
	case "use":
		_, ks := s.name()
		return OpUse, ks
	case "truncate":
		s.skipWords("table", "columnfamily")
		ks, _ := s.name()
		return OpDDL, ks
	case "create", "alter", "drop":
		s.skipWords("or", "replace", "custom", "materialized")
		obj := s.next()
		switch {
		case obj.word("keyspace") || obj.word("schema"):
			s.skipWords("if", "not", "exists")
			_, ks := s.name()
			return OpDDL, ks
		case obj.word("index"):
			if strings.EqualFold(t.text, "drop") {
				s.skipWords("if", "exists")
				ks, _ := s.name()
				return OpDDL, ks
			}
			if !s.skipTo("on") {
				return OpDDL, ""
			}
		default:
			s.skipWords("view", "if", "not", "exists")
		}
		ks, _ := s.name()
		return OpDDL, ks
	}
	return OpOther, ""
}
