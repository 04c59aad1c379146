package cql

// This file parses terms: literals, bind markers, collection, tuple and UDT
// literals, function calls and casts.

import (
	"math"
	"strconv"
)

// term parses one value with Cassandra 5.0's arithmetic operators: + and
// - below *, / and %, all left-associative, over negations, parenthesized
// terms and simple terms.
func (p *parser) term() Term {
	if p.err != nil || !p.descend() {
		return nil
	}
	defer p.ascend()
	l := p.termProduct()
	for p.err == nil && (p.is(tPlus) || p.is(tMinus)) && p.operandFollows() {
		op := p.text(p.next())[0]
		l = &Operation{Op: op, L: l, R: p.termProduct()}
	}
	return l
}

func (p *parser) termProduct() Term {
	l := p.termGroup()
	for p.err == nil && (p.is(tStar) || p.is(tSlash) || p.is(tPercent)) && p.operandFollows() {
		op := p.text(p.next())[0]
		l = &Operation{Op: op, L: l, R: p.termGroup()}
	}
	return l
}

// termGroup parses -simpleTerm or a simple term (a parenthesized term is
// a one-element tuple literal, which stands for its element wherever the
// receiver is not a tuple).
func (p *parser) termGroup() Term {
	if p.is(tMinus) && !p.minusLiteral() {
		p.next()
		return &Negation{X: p.simpleTerm()}
	}
	return p.simpleTerm()
}

// operandFollows reports whether the token after the current operator
// can begin an operand: not a bare column name, so that `v = 1 + v`
// stays a prepend (as Cassandra's parser decides).
func (p *parser) operandFollows() bool {
	t := p.peek(1)
	if t.kind != tIdent && t.kind != tQIdent {
		return startsTerm(t)
	}
	if _, _, ok := literalWordFold(p.text(t)); ok && t.kind == tIdent {
		return true
	}
	save := p.pos
	p.pos++
	call := p.isFuncCallStart()
	p.pos = save
	return call
}

// simpleTerm parses a literal, a bind marker, a function call or a cast.
func (p *parser) simpleTerm() Term {
	if p.err != nil || !p.descend() {
		return nil
	}
	defer p.ascend()
	t := p.tok()
	switch t.kind {
	case tString, tInt, tFloat, tUUID, tBlob, tDuration:
		return p.literal()
	case tQMark, tColon:
		return p.marker()
	case tMinus:
		// -NaN and -Infinity: the sign is a separate token before a word.
		if w := p.peek(1); w.kind == tIdent {
			if k, text, ok := literalWordFold(p.text(w)); ok && k == LitFloat {
				p.next()
				p.next()
				if text == "Infinity" {
					text = "-Infinity"
				}
				return &Literal{Kind: LitFloat, Text: text}
			}
		}
	case tLBracket:
		p.next()
		l := &CollectionLit{Kind: CollList}
		if !p.accept(tRBracket) {
			l.Values = p.terms()
			p.expect(tRBracket)
		}
		return l
	case tLBrace:
		return p.braceLiteral()
	case tLParen:
		if c := p.tryCast(); c != nil {
			return c
		}
		p.next()
		tl := &TupleLit{Elems: p.terms()}
		p.expect(tRParen)
		return tl
	case tIdent, tQIdent:
		if t.kind == tIdent {
			if k, text, ok := literalWordFold(p.text(t)); ok {
				p.next()
				return &Literal{Kind: k, Text: text}
			}
		}
		if p.isFuncCallStart() {
			return p.funcCall()
		}
	}
	p.noViable()
	return nil
}

// terms parses term (',' term)*.
func (p *parser) terms() []Term {
	var out []Term
	for {
		out = append(out, p.term())
		if !p.accept(tComma) {
			return out
		}
	}
}

// literal converts a literal token.
func (p *parser) literal() *Literal {
	t := p.next()
	text := p.text(t)
	switch t.kind {
	case tString:
		return &Literal{Kind: LitString, Text: unquote(text)}
	case tInt:
		return &Literal{Kind: LitInteger, Text: text}
	case tFloat:
		// Cassandra turns a float literal beyond double range into
		// Infinity and then fails converting it, at parse time.
		if f, err := strconv.ParseFloat(text, 64); err != nil && math.IsInf(f, 0) {
			p.failAt(t, "Failed parsing statement: ["+p.src+"] reason: NumberFormatException Character I is neither "+
				"a decimal digit number, decimal point, nor \"e\" notation exponential mark.")
		}
		return &Literal{Kind: LitFloat, Text: text}
	case tUUID:
		return &Literal{Kind: LitUUID, Text: text}
	case tBlob:
		return &Literal{Kind: LitBlob, Text: text}
	default:
		return &Literal{Kind: LitDuration, Text: text}
	}
}

// marker parses `?` or `:name` and records it in order of appearance.
func (p *parser) marker() *BindMarker {
	name := ""
	if p.next().kind == tColon {
		name = p.ident()
	}
	m := &BindMarker{Index: len(p.markers), Name: name}
	p.markers = append(p.markers, m)
	return m
}

func (p *parser) isMarker() bool { return p.is(tQMark) || p.is(tColon) }

// intValue parses an integer literal or a bind marker (USING, LIMIT).
func (p *parser) intValue() Term {
	switch {
	case p.isMarker():
		return p.marker()
	case p.is(tInt):
		return p.literal()
	}
	p.noViable()
	return nil
}

// braceLiteral parses {}, a set {a, b}, a map {k: v} or a UDT {f: v}.
func (p *parser) braceLiteral() Term {
	p.expect(tLBrace)
	if p.accept(tRBrace) {
		return &CollectionLit{Kind: CollMap}
	}
	if p.isIdentTok(p.tok()) && p.peek(1).kind == tColon {
		u := &UDTLit{}
		for {
			u.Fields = append(u.Fields, p.ident())
			p.expect(tColon)
			u.Values = append(u.Values, p.term())
			if !p.accept(tComma) {
				break
			}
		}
		p.expect(tRBrace)
		return u
	}
	first := p.term()
	if !p.accept(tColon) {
		s := &CollectionLit{Kind: CollSet, Values: []Term{first}}
		for p.accept(tComma) {
			s.Values = append(s.Values, p.term())
		}
		p.expect(tRBrace)
		return s
	}
	m := &CollectionLit{Kind: CollMap, Keys: []Term{first}, Values: []Term{p.term()}}
	for p.accept(tComma) {
		m.Keys = append(m.Keys, p.term())
		p.expect(tColon)
		m.Values = append(m.Values, p.term())
	}
	p.expect(tRBrace)
	return m
}

// tryCast parses `(type) term` when the parenthesis holds a type followed
// by a term; otherwise it restores the position and returns nil (a tuple).
func (p *parser) tryCast() Term {
	save := p.pos
	p.next()
	if p.isIdentTok(p.tok()) || p.isWord(p.tok(), "set") {
		typ := p.typ()
		if p.accept(tRParen) && p.err == nil && startsTerm(p.tok()) {
			return &Cast{Type: typ, Term: p.simpleTerm()}
		}
	}
	p.pos, p.err = save, nil
	return nil
}

// startsTerm reports whether a token can begin a term.
func startsTerm(t *token) bool {
	switch t.kind {
	case tString, tInt, tFloat, tUUID, tBlob, tDuration, tQMark, tColon,
		tLBracket, tLBrace, tLParen, tMinus, tIdent, tQIdent:
		return true
	}
	return false
}

// isFuncCallStart reports whether the next tokens are `name(` or `ks.name(`.
// Function names may be keywords (token, count, ttl...).
func (p *parser) isFuncCallStart() bool {
	t := p.tok()
	if p.err != nil || (t.kind != tIdent && t.kind != tQIdent) {
		return false
	}
	if p.peek(1).kind == tLParen {
		return true
	}
	return p.peek(1).kind == tDot && isFuncName(p.peek(2)) && p.peek(3).kind == tLParen
}

func isFuncName(t *token) bool { return t.kind == tIdent || t.kind == tQIdent }

// funcName parses [ks '.'] name for a function, keywords allowed.
func (p *parser) funcName() string {
	name := p.funcNamePart()
	if p.accept(tDot) {
		name += "." + p.funcNamePart()
	}
	return name
}

func (p *parser) funcNamePart() string {
	t := p.next()
	if t.kind == tQIdent {
		return unquote(p.text(t))
	}
	return lowerIdent(p.text(t))
}

// funcCall parses name '(' [term (',' term)*] ')'.
func (p *parser) funcCall() Term {
	f := &FuncCall{Name: p.funcName()}
	p.expect(tLParen)
	if !p.accept(tRParen) {
		f.Args = p.terms()
		p.expect(tRParen)
	}
	return f
}

// compareOp parses = < <= > >= !=.
func (p *parser) compareOp() RelOp {
	if p.err != nil {
		return OpEq
	}
	var op RelOp
	switch p.tok().kind {
	case tEq:
		op = OpEq
	case tLt:
		op = OpLt
	case tLte:
		op = OpLte
	case tGt:
		op = OpGt
	case tGte:
		op = OpGte
	case tNeq:
		op = OpNeq
	default:
		p.noViable()
		return OpEq
	}
	p.next()
	return op
}

// inValues parses what follows IN: a parenthesised list (possibly empty) or
// one bind marker standing for the whole list.
func (p *parser) inValues() (list []Term, marker Term) {
	if p.isMarker() {
		return nil, p.marker()
	}
	p.expect(tLParen)
	list = []Term{}
	if !p.accept(tRParen) {
		list = p.terms()
		p.expect(tRParen)
	}
	return list, nil
}
