package cql

// This file parses SELECT and WHERE relations.

func (p *parser) selectStmt() Statement {
	p.next()
	s := &Select{}
	// JSON and DISTINCT are unreserved: `SELECT json FROM t` selects a column.
	if p.isKw("json") && p.startsSelection(1) {
		p.next()
		s.JSON = true
	}
	if p.isKw("distinct") && p.startsSelection(1) {
		p.next()
		s.Distinct = true
	}
	if p.accept(tStar) {
		s.Star = true
	} else {
		for {
			s.Selectors = append(s.Selectors, p.selector())
			if !p.accept(tComma) {
				break
			}
		}
	}
	p.expectKw("from")
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("where") {
		s.Where = p.relations()
	}
	if p.acceptKws("group", "by") {
		s.GroupBy = p.identList()
	}
	if p.acceptKws("order", "by") {
		for {
			o := Ordering{Column: p.ident()}
			switch {
			case p.acceptKws("ann", "of"):
				o.ANN = p.term()
			case !p.acceptKw("asc"):
				o.Desc = p.acceptKw("desc")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.accept(tComma) {
				break
			}
		}
	}
	if p.acceptKws("per", "partition", "limit") {
		s.PerPartitionLimit = p.intValue()
	}
	if p.acceptKw("limit") {
		s.Limit = p.intValue()
	}
	s.AllowFiltering = p.acceptKws("allow", "filtering")
	return s
}

// startsSelection reports whether the token n ahead can begin the selection
// list, i.e. the word before it is a modifier rather than a column.
func (p *parser) startsSelection(n int) bool {
	t := p.peek(n)
	switch t.kind {
	case tStar, tLParen, tQIdent, tString, tInt, tFloat, tUUID, tBlob, tDuration, tQMark, tColon, tMinus, tLBracket, tLBrace:
		return true
	case tIdent:
		return !p.isWord(t, "from") && !p.isWord(t, "as")
	}
	return false
}

// selector parses one selection item with an optional AS alias.
func (p *parser) selector() *Selector {
	s := p.unaliasedSelector()
	if s != nil && p.acceptKw("as") {
		s.Alias = p.ident()
	}
	return s
}

// unaliasedSelector parses a selector with Cassandra's arithmetic
// operators: + and - below *, / and %, all left-associative, unary minus
// and parentheses.
func (p *parser) unaliasedSelector() *Selector {
	if p.err != nil || !p.descend() {
		return nil
	}
	defer p.ascend()
	l := p.selectorProduct()
	for p.err == nil && (p.is(tPlus) || p.is(tMinus)) {
		op := p.text(p.tok())[0]
		p.next()
		l = &Selector{Kind: SelOp, Op: op, Args: []*Selector{l, p.selectorProduct()}}
	}
	return l
}

func (p *parser) selectorProduct() *Selector {
	l := p.selectorGroup()
	for p.err == nil && (p.is(tStar) || p.is(tSlash) || p.is(tPercent)) {
		op := p.text(p.tok())[0]
		p.next()
		l = &Selector{Kind: SelOp, Op: op, Args: []*Selector{l, p.selectorGroup()}}
	}
	return l
}

// selectorGroup parses a negation, a parenthesized selector or a simple
// selector.
func (p *parser) selectorGroup() *Selector {
	if p.err != nil || !p.descend() {
		return nil
	}
	defer p.ascend()
	switch {
	case p.is(tMinus) && !p.minusLiteral():
		p.next()
		return &Selector{Kind: SelNeg, Args: []*Selector{p.selectorGroup()}}
	case p.is(tLParen) && p.parenthesizedSelector():
		if c := p.tryCast(); c != nil {
			return &Selector{Kind: SelTerm, Term: c}
		}
		p.next()
		s := p.unaliasedSelector()
		p.expect(tRParen)
		if s != nil {
			s.Paren = true
		}
		return s
	}
	return p.simpleSelector()
}

// minusLiteral reports a '-' that begins -NaN or -Infinity.
func (p *parser) minusLiteral() bool {
	w := p.peek(1)
	if w.kind != tIdent {
		return false
	}
	k, _, ok := literalWordFold(p.text(w))
	return ok && k == LitFloat
}

// parenthesizedSelector reports a '(' that opens a selector or a type
// hint rather than a tuple literal (a comma at its top level).
func (p *parser) parenthesizedSelector() bool {
	depth := 0
	for i := 0; ; i++ {
		switch p.peek(i).kind {
		case tLParen, tLBracket, tLBrace:
			depth++
		case tRParen, tRBracket, tRBrace:
			depth--
			if depth == 0 {
				return true
			}
		case tComma:
			if depth == 1 {
				return false
			}
		case tEOF, tErr:
			return false
		}
	}
}

func (p *parser) simpleSelector() *Selector {
	t := p.tok()
	if p.isFuncCallStart() {
		if p.peek(1).kind == tLParen && t.kind == tIdent {
			switch lowerIdent(p.text(t)) {
			case "count":
				if a := p.peek(2); (a.kind == tStar || (a.kind == tInt && p.text(a) == "1")) && p.peek(3).kind == tRParen {
					p.pos += 4
					return &Selector{Kind: SelCountStar}
				}
			case "writetime", "ttl":
				kind := SelWritetime
				if p.isWord(t, "ttl") {
					kind = SelTTL
				}
				p.pos += 2
				s := &Selector{Kind: kind, Column: p.ident()}
				p.expect(tRParen)
				return s
			case "cast":
				p.pos += 2
				s := &Selector{Kind: SelCast, Args: []*Selector{p.unaliasedSelector()}}
				p.expectKw("as")
				s.Type = p.typ()
				p.expect(tRParen)
				return s
			}
		}
		s := &Selector{Kind: SelCall, Func: p.funcName()}
		p.expect(tLParen)
		if !p.accept(tRParen) {
			for {
				s.Args = append(s.Args, p.unaliasedSelector())
				if !p.accept(tComma) {
					break
				}
			}
			p.expect(tRParen)
		}
		return s
	}
	if p.isIdentTok(t) {
		s := &Selector{Kind: SelColumn, Column: p.ident()}
		switch {
		case p.accept(tLBracket):
			s.Kind, s.Key = SelElement, p.term()
			p.expect(tRBracket)
		case p.accept(tDot):
			s.Kind, s.Field = SelElement, p.ident()
		}
		return s
	}
	return &Selector{Kind: SelTerm, Term: p.simpleTerm()}
}

// relations parses relation (AND relation)*.
func (p *parser) relations() []Relation {
	var out []Relation
	for {
		out = append(out, p.relation())
		if !p.acceptKw("and") {
			return out
		}
	}
}

// relation parses one WHERE restriction.
func (p *parser) relation() Relation {
	var r Relation
	switch {
	case p.is(tLParen):
		// Multi-column: (c1, c2) op (v1, v2) | (c1, c2) IN ((..), (..)).
		r.Columns = p.parenIdents()
		if p.acceptKw("in") {
			r.Op = OpIn
			r.In, r.Value = p.inValues()
			return r
		}
		r.Op = p.compareOp()
		if p.isMarker() {
			r.Value = p.marker()
		} else {
			r.Value = p.tupleLiteral()
		}
		return r
	case p.isKw("token") && p.peek(1).kind == tLParen:
		p.next()
		r.Token = true
		r.Columns = p.parenIdents()
		r.Op = p.compareOp()
		r.Value = p.term()
		return r
	}
	r.Columns = []string{p.ident()}
	if p.accept(tLBracket) {
		r.Key = p.term()
		p.expect(tRBracket)
	}
	switch {
	case p.acceptKw("in"):
		r.Op = OpIn
		r.In, r.Value = p.inValues()
	case p.acceptKw("contains"):
		r.Op = OpContains
		if p.acceptKw("key") {
			r.Op = OpContainsKey
		}
		r.Value = p.term()
	case p.acceptKw("like"):
		r.Op = OpLike
		r.Value = p.term()
	case p.acceptKws("is", "not", "null"):
		r.Op = OpIsNotNull
	default:
		r.Op = p.compareOp()
		r.Value = p.term()
	}
	return r
}

// tupleLiteral parses '(' term (',' term)* ')'.
func (p *parser) tupleLiteral() Term {
	p.expect(tLParen)
	t := &TupleLit{Elems: p.terms()}
	p.expect(tRParen)
	return t
}
