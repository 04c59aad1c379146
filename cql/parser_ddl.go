package cql

import "strings"

// This file parses DDL: keyspaces, tables, their options, and CQL types.

// ParseType parses a CQL type expression such as "map<text, frozen<list<int>>>"
// (the form system_schema.columns.type uses). Names that are not CQL types
// are UDT names (KindUDT with Name, and Keyspace when qualified). Tuples are
// always frozen, so Frozen is set on them whether or not frozen<> was written.
func ParseType(s string) (*Type, error) {
	p, err := newParser(s)
	if err != nil {
		return nil, err
	}
	t := p.typ()
	if p.err == nil && !p.is(tEOF) {
		p.mismatch("EOF")
	}
	if p.err != nil {
		return nil, p.err
	}
	return t, nil
}

// typ parses a type.
func (p *parser) typ() *Type {
	if p.err != nil || !p.descend() {
		return nil
	}
	defer p.ascend()
	t := p.tok()
	if t.kind == tString {
		p.next()
		ct, msg := customClassType(unquote(p.text(t)))
		if ct == nil {
			p.failAt(t, msg)
		}
		return ct
	}
	if t.kind == tIdent {
		switch w := lowerIdent(p.text(t)); w {
		case "list", "set", "frozen", "tuple", "map":
			if p.peek(1).kind == tLt {
				p.next()
				return p.typeArgs(w)
			}
		case "vector":
			if p.peek(1).kind == tLt {
				return p.vectorType()
			}
		default:
			if k, ok := KindByName(w); ok {
				p.next()
				return Scalar(k)
			}
		}
	}
	if !p.isIdentTok(t) {
		p.noViable()
		return nil
	}
	ks, name := p.qualifiedName()
	return &Type{Kind: KindUDT, Keyspace: ks, Name: name}
}

// typeArgs parses '<' ... '>' after a parameterised type name.
func (p *parser) typeArgs(name string) *Type {
	p.expect(tLt)
	var t *Type
	switch name {
	case "list":
		t = ListOf(p.typ())
	case "set":
		t = SetOf(p.typ())
	case "map":
		k := p.typ()
		p.expect(tComma)
		t = MapOf(k, p.typ())
	case "frozen":
		t = p.typ()
		if t != nil {
			t.Frozen = true
		}
	case "tuple":
		var elems []*Type
		for {
			elems = append(elems, p.typ())
			if !p.accept(tComma) {
				break
			}
		}
		t = TupleOf(elems...)
		t.Frozen = true
	}
	p.expect(tGt)
	if p.err != nil {
		return nil
	}
	return t
}

// ---- keyspaces ----

func (p *parser) createKeyspace() Statement {
	p.next()
	p.next()
	s := &CreateKeyspace{IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Name = p.ident()
	p.expectKw("with")
	s.Options, s.Replication, s.DurableWrites = p.keyspaceOptions()
	return s
}

func (p *parser) alterKeyspace() Statement {
	p.next()
	p.next()
	s := &AlterKeyspace{IfExists: p.acceptKws("if", "exists")}
	s.Name = p.ident()
	p.expectKw("with")
	s.Options, s.Replication, s.DurableWrites = p.keyspaceOptions()
	return s
}

// keyspaceOptions parses a keyspace's WITH options, interpreting
// replication and durable_writes.
func (p *parser) keyspaceOptions() (opts []Option, repl map[string]string, durable *bool) {
	for p.err == nil {
		valTok := p.peek(2) // name '=' value
		o := p.option()
		opts = append(opts, o)
		switch {
		case p.err != nil:
		case o.Name == "replication":
			repl = p.stringMap(o.Value, valTok)
		case o.Name == "durable_writes":
			b, ok := boolOption(o.Value)
			if !ok {
				p.failAt(valTok, "invalid value for durable_writes: expected a boolean")
			}
			durable = &b
		}
		if !p.acceptKw("and") {
			break
		}
	}
	return opts, repl, durable
}

// stringMap converts a map (or UDT-like) literal of constants to strings.
func (p *parser) stringMap(v Term, at *token) map[string]string {
	out := map[string]string{}
	var keys []string
	var vals []Term
	switch m := v.(type) {
	case *CollectionLit:
		if m.Kind != CollMap {
			p.failAt(at, "invalid value for replication: expected a map")
			return nil
		}
		for _, k := range m.Keys {
			lit, ok := k.(*Literal)
			if !ok {
				p.failAt(at, "invalid replication option key")
				return nil
			}
			keys = append(keys, lit.Text)
		}
		vals = m.Values
	case *UDTLit:
		keys, vals = m.Fields, m.Values
	default:
		p.failAt(at, "invalid value for replication: expected a map")
		return nil
	}
	for i, k := range keys {
		lit, ok := vals[i].(*Literal)
		if !ok {
			p.failAt(at, "invalid value for replication option '"+k+"'")
			return nil
		}
		out[k] = lit.Text
	}
	return out
}

// boolOption reads a boolean given as true/false or as a string.
func boolOption(v Term) (bool, bool) {
	lit, ok := v.(*Literal)
	if !ok || (lit.Kind != LitBool && lit.Kind != LitString) {
		return false, false
	}
	switch strings.ToLower(lit.Text) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// options parses name = value (AND name = value)*.
func (p *parser) options() []Option {
	var opts []Option
	for {
		opts = append(opts, p.option())
		if !p.acceptKw("and") {
			return opts
		}
	}
}

// option parses one name = value property. Values are constants, maps, or
// bare unreserved words (kept as string literals).
func (p *parser) option() Option {
	o := Option{Name: p.ident()}
	p.expect(tEq)
	if t := p.tok(); t.kind == tIdent && !isReservedWord(p.text(t)) && p.peek(1).kind != tLParen {
		p.next()
		o.Value = &Literal{Kind: LitString, Text: lowerIdent(p.text(t))}
		return o
	}
	o.Value = p.simpleTerm()
	return o
}

// ---- tables ----

func (p *parser) createTable() Statement {
	p.next()
	p.next()
	s := &CreateTable{IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expect(tLParen)
	pkTok := (*token)(nil)
	for p.err == nil {
		if t := p.tok(); p.acceptKws("primary", "key") {
			pkTok = t
			s.PrimaryKeys++
			s.PartitionKey, s.Clustering = p.primaryKey()
		} else {
			col := ColumnDef{Name: p.ident(), Type: p.typ(), Static: p.acceptKw("static")}
			if t := p.tok(); p.acceptKws("primary", "key") {
				pkTok = t
				s.PrimaryKeys++
				s.PartitionKey = []string{col.Name}
				s.Clustering = nil
			}
			s.Columns = append(s.Columns, col)
		}
		if !p.accept(tComma) || p.is(tRParen) {
			break
		}
	}
	p.expect(tRParen)
	_ = pkTok
	if p.acceptKw("with") {
		p.tableOptions(s)
	}
	return s
}

// primaryKey parses '(' (ident | '(' idents ')') (',' ident)* ')'.
func (p *parser) primaryKey() (partition, clustering []string) {
	p.expect(tLParen)
	if p.is(tLParen) {
		partition = p.parenIdents()
	} else {
		partition = []string{p.ident()}
	}
	for p.accept(tComma) {
		clustering = append(clustering, p.ident())
	}
	p.expect(tRParen)
	return partition, clustering
}

// tableOptions parses CREATE TABLE's WITH clause.
func (p *parser) tableOptions(s *CreateTable) {
	for p.err == nil {
		switch {
		case p.acceptKws("clustering", "order", "by"):
			p.expect(tLParen)
			for {
				o := ClusteringOrder{Column: p.ident()}
				if !p.acceptKw("asc") {
					o.Desc = p.acceptKw("desc")
				}
				s.ClusteringOrder = append(s.ClusteringOrder, o)
				if !p.accept(tComma) {
					break
				}
			}
			p.expect(tRParen)
		case p.acceptKws("compact", "storage"):
			s.CompactStorage = true
		default:
			s.Options = append(s.Options, p.option())
		}
		if !p.acceptKw("and") {
			return
		}
	}
}

func (p *parser) alterTable() Statement {
	p.next()
	p.next()
	s := &AlterTable{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	switch {
	case p.acceptKw("alter"):
		s.Op = AlterType
		s.Column = p.ident()
		p.expectKw("type")
		s.NewType = p.typ()
	case p.acceptKw("add"):
		s.Op = AlterAdd
		s.IfColumnExists = p.acceptKws("if", "not", "exists")
		paren := p.accept(tLParen)
		for {
			s.Add = append(s.Add, ColumnDef{Name: p.ident(), Type: p.typ(), Static: p.acceptKw("static")})
			if !paren || !p.accept(tComma) {
				break
			}
		}
		if paren {
			p.expect(tRParen)
		}
	case p.acceptKw("drop"):
		s.Op = AlterDrop
		s.IfColumnExists = p.acceptKws("if", "exists")
		if p.is(tLParen) {
			s.Drop = p.parenIdents()
		} else {
			s.Drop = []string{p.ident()}
		}
	case p.acceptKw("rename"):
		s.Op = AlterRename
		s.IfColumnExists = p.acceptKws("if", "exists")
		s.Rename = map[string]string{}
		for {
			from := p.ident()
			p.expectKw("to")
			s.Rename[from] = p.ident()
			s.RenameOrder = append(s.RenameOrder, from)
			if !p.acceptKw("and") {
				break
			}
		}
	case p.acceptKw("with"):
		s.Op = AlterWith
		s.Options = p.options()
	default:
		p.noViable()
	}
	return s
}
