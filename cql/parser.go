package cql

import "strings"

// Parse parses one CQL statement; a trailing semicolon is allowed. Every
// error is a *SyntaxError.
func Parse(text string) (*Parsed, error) {
	p, err := newParser(text)
	if err != nil {
		return nil, err
	}
	if p.is(tEOF) {
		p.noViable()
		return nil, p.err
	}
	parsed := p.parsed()
	for p.accept(tSemi) {
	}
	if p.err == nil && !p.is(tEOF) {
		p.mismatch("EOF")
	}
	if p.err != nil {
		return nil, p.err
	}
	return parsed, nil
}

// ParseScript parses several statements separated by semicolons. Blank
// statements and comments are allowed.
func ParseScript(text string) ([]*Parsed, error) {
	p, err := newParser(text)
	if err != nil {
		return nil, err
	}
	var out []*Parsed
	for p.err == nil {
		for p.accept(tSemi) {
		}
		if p.is(tEOF) {
			break
		}
		parsed := p.parsed()
		if p.err == nil && !p.accept(tSemi) && !p.is(tEOF) {
			p.mismatch("';'")
		}
		out = append(out, parsed)
	}
	if p.err != nil {
		return nil, p.err
	}
	return out, nil
}

// parser is a recursive-descent parser over a lexed token slice. Errors are
// sticky: the first one is kept in err, after which every accept/is test
// fails, so the descent unwinds without checks at each step.
type parser struct {
	src     string
	toks    []token // ends with tEOF
	pos     int
	err     *SyntaxError
	markers []*BindMarker
	depth   int // nesting of terms, types and selectors
	// unsup names a feature the statement uses that dohyo parses but
	// does not support (e.g. the vector type): the statement is then
	// reported as Unsupported, naming it, instead of a parse error.
	unsup string
}

// maxNesting bounds recursion so hostile input cannot exhaust the stack.
const maxNesting = 200

// descend enters one nesting level; false (with an error) when too deep.
// Callers that get true must defer p.ascend().
func (p *parser) descend() bool {
	if p.depth >= maxNesting {
		p.failAt(p.tok(), "too deeply nested")
		return false
	}
	p.depth++
	return true
}

func (p *parser) ascend() { p.depth-- }

func newParser(text string) (*parser, error) {
	toks, lexErr := lexAll(text)
	if lexErr != nil {
		return nil, lexErr
	}
	return &parser{src: text, toks: toks}, nil
}

// parsed parses one statement starting at the current token.
func (p *parser) parsed() *Parsed {
	p.markers, p.unsup = nil, ""
	start := int(p.tok().pos)
	stmt := p.statement()
	if p.err == nil && p.unsup != "" {
		stmt = &Unsupported{What: p.unsup}
	}
	end := start
	if p.pos > 0 && int(p.toks[p.pos-1].end) > start {
		end = int(p.toks[p.pos-1].end)
	}
	return &Parsed{Stmt: stmt, Markers: p.markers, Text: p.src[start:end]}
}

// ---- token helpers ----

func (p *parser) tok() *token { return &p.toks[p.pos] }

// peek returns the token n positions ahead (the final tEOF past the end).
func (p *parser) peek(n int) *token {
	if i := p.pos + n; i < len(p.toks) {
		return &p.toks[i]
	}
	return &p.toks[len(p.toks)-1]
}

func (p *parser) next() *token {
	t := &p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) is(k tokKind) bool { return p.err == nil && p.tok().kind == k }

func (p *parser) accept(k tokKind) bool {
	if p.is(k) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k tokKind) {
	if !p.accept(k) {
		p.mismatch("'" + punctText[k] + "'")
	}
}

// isKw reports whether the current token is the keyword kw (lower-case).
func (p *parser) isKw(kw string) bool {
	return p.err == nil && p.isWord(p.tok(), kw)
}

// isWord reports whether t is the keyword kw.
func (p *parser) isWord(t *token, kw string) bool {
	return t.kind == tIdent && strings.EqualFold(p.text(t), kw)
}

// text returns a token as written.
func (p *parser) text(t *token) string { return t.text(p.src) }

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.next()
		return true
	}
	return false
}

// expectKw requires keyword kw; Cassandra names keyword tokens K_WORD.
func (p *parser) expectKw(kw string) {
	if !p.acceptKw(kw) {
		p.mismatch("K_" + strings.ToUpper(kw))
	}
}

// acceptKws accepts a keyword sequence such as IF NOT EXISTS. Once the first
// word matched, the rest are required.
func (p *parser) acceptKws(kws ...string) bool {
	if !p.acceptKw(kws[0]) {
		return false
	}
	for _, kw := range kws[1:] {
		p.expectKw(kw)
	}
	return p.err == nil
}

func (p *parser) failAt(t *token, msg string) {
	if p.err == nil {
		p.err = newSyntaxError(p.src, int(t.pos), t.display(p.src), msg)
	}
}

// noViable reports the current token as fitting no alternative.
func (p *parser) noViable() { p.failAt(p.tok(), noViableMsg(p.tok().display(p.src))) }

func (p *parser) mismatch(expecting string) {
	p.failAt(p.tok(), mismatchMsg(p.tok().display(p.src), expecting))
}

// ---- identifiers ----

// isIdentTok reports whether t can be an identifier: a quoted identifier or
// an unquoted word that is neither reserved nor a literal.
func (p *parser) isIdentTok(t *token) bool {
	switch t.kind {
	case tQIdent:
		return true
	case tIdent:
		return !isReservedWord(p.text(t))
	}
	return false
}

// isReservedWord reports whether an unquoted word cannot be an identifier.
func isReservedWord(word string) bool {
	if len(word) > maxKeywordLen {
		return false
	}
	var buf [maxKeywordLen]byte
	for i := 0; i < len(word); i++ {
		buf[i] = lowerByte(word[i])
	}
	w := string(buf[:len(word)])
	_, _, lit := literalWord(w)
	return lit || reservedWords[w]
}

// ident parses an identifier, normalised: unquoted ones lower-cased.
func (p *parser) ident() string {
	if p.err != nil {
		return ""
	}
	t := p.tok()
	if !p.isIdentTok(t) {
		p.noViable()
		return ""
	}
	p.next()
	if t.kind == tQIdent {
		return unquote(p.text(t))
	}
	return lowerIdent(p.text(t))
}

// identList parses ident (',' ident)*.
func (p *parser) identList() []string {
	var out []string
	for {
		out = append(out, p.ident())
		if !p.accept(tComma) {
			return out
		}
	}
}

// parenIdents parses '(' ident (',' ident)* ')'.
func (p *parser) parenIdents() []string {
	p.expect(tLParen)
	out := p.identList()
	p.expect(tRParen)
	return out
}

// qualifiedName parses [keyspace '.'] name.
func (p *parser) qualifiedName() (ks, name string) {
	name = p.ident()
	if p.accept(tDot) {
		ks, name = name, p.ident()
	}
	return ks, name
}

// ---- statements ----

func (p *parser) statement() Statement {
	t := p.tok()
	if t.kind != tIdent {
		p.noViable()
		return nil
	}
	switch lowerIdent(p.text(t)) {
	case "select":
		return p.selectStmt()
	case "insert":
		return p.insert()
	case "update":
		return p.update()
	case "delete":
		return p.deleteStmt()
	case "begin":
		return p.batch()
	case "create":
		return p.create()
	case "alter":
		return p.alter()
	case "drop":
		return p.drop()
	case "truncate":
		p.next()
		if !p.acceptKw("table") {
			p.acceptKw("columnfamily")
		}
		ks, name := p.qualifiedName()
		return &Truncate{Keyspace: ks, Name: name}
	case "use":
		p.next()
		return &Use{Keyspace: p.ident()}
	case "grant":
		return p.grantOrRevoke(true)
	case "revoke":
		return p.grantOrRevoke(false)
	case "list":
		return p.list()
	case "describe", "desc":
		return p.describe()
	}
	p.noViable()
	return nil
}

// unsupported consumes the statement's remaining tokens: dohyo recognises it
// but has no grammar for it. words is how many tokens name it.
func (p *parser) unsupported(what string, words int) Statement {
	for i := 0; i < words; i++ {
		p.next()
	}
	for p.err == nil && !p.is(tSemi) && !p.is(tEOF) {
		p.next()
	}
	return &Unsupported{What: what}
}

// create dispatches CREATE statements.
func (p *parser) create() Statement {
	w1, w2, w3 := p.peek(1), p.peek(2), p.peek(3)
	switch {
	case p.isWord(w1, "keyspace"), p.isWord(w1, "schema"):
		return p.createKeyspace()
	case p.isWord(w1, "table"), p.isWord(w1, "columnfamily"):
		return p.createTable()
	case p.isWord(w1, "index"), p.isWord(w1, "custom") && p.isWord(w2, "index"):
		return p.createIndex()
	case p.isWord(w1, "materialized") && p.isWord(w2, "view"):
		return p.createView()
	case p.isWord(w1, "or") && p.isWord(w2, "replace") && (p.isWord(w3, "function") || p.isWord(w3, "aggregate")),
		p.isWord(w1, "function"), p.isWord(w1, "aggregate"):
		return p.createFunctionOrAggregate()
	case p.isWord(w1, "role"), p.isWord(w1, "user"):
		return p.createRole(p.isWord(w1, "user"))
	case p.isWord(w1, "type"):
		return p.createType()
	}
	if p.isWord(w1, "trigger") {
		return p.unsupported("CREATE TRIGGER", 2)
	}
	p.next()
	p.noViable()
	return nil
}

// alter dispatches ALTER statements.
func (p *parser) alter() Statement {
	w1, w2 := p.peek(1), p.peek(2)
	switch {
	case p.isWord(w1, "keyspace"), p.isWord(w1, "schema"):
		return p.alterKeyspace()
	case p.isWord(w1, "table"), p.isWord(w1, "columnfamily"):
		return p.alterTable()
	case p.isWord(w1, "materialized") && p.isWord(w2, "view"):
		return p.alterView()
	case p.isWord(w1, "role"), p.isWord(w1, "user"):
		return p.alterRole(p.isWord(w1, "user"))
	case p.isWord(w1, "type"):
		return p.alterType()
	}
	p.next()
	p.noViable()
	return nil
}

// drop dispatches DROP statements.
func (p *parser) drop() Statement {
	w1, w2 := p.peek(1), p.peek(2)
	switch {
	case p.isWord(w1, "keyspace"), p.isWord(w1, "schema"):
		p.next()
		p.next()
		s := &DropKeyspace{IfExists: p.acceptKws("if", "exists")}
		s.Name = p.ident()
		return s
	case p.isWord(w1, "table"), p.isWord(w1, "columnfamily"):
		p.next()
		p.next()
		s := &DropTable{IfExists: p.acceptKws("if", "exists")}
		s.Keyspace, s.Name = p.qualifiedName()
		return s
	case p.isWord(w1, "materialized") && p.isWord(w2, "view"):
		return p.dropView()
	case p.isWord(w1, "role"), p.isWord(w1, "user"):
		return p.dropRole(p.isWord(w1, "user"))
	case p.isWord(w1, "index"):
		return p.dropIndex()
	case p.isWord(w1, "type"):
		return p.dropType()
	}
	if p.isWord(w1, "function") || p.isWord(w1, "aggregate") {
		return p.dropFunctionOrAggregate()
	}
	if p.isWord(w1, "trigger") {
		return p.unsupported("DROP TRIGGER", 2)
	}
	p.next()
	p.noViable()
	return nil
}
