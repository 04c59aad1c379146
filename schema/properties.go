package schema

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// property is one WITH option's value as Cassandra's PropertyDefinitions
// keeps it: a string (constants are taken as their text) or a string map.
type property struct {
	str   string
	m     map[string]string
	isMap bool
}

// properties are the WITH options of one statement.
type properties struct {
	vals  map[string]property
	names []string // in statement order
}

func parseProperties(opts []cql.Option) (*properties, *Error) {
	p := &properties{vals: map[string]property{}}
	for _, o := range opts {
		if _, dup := p.vals[o.Name]; dup {
			return nil, syntaxf("Multiple definition for property '%s'", o.Name)
		}
		v, err := propertyValue(o.Value)
		if err != nil {
			return nil, err
		}
		p.vals[o.Name] = v
		p.names = append(p.names, o.Name)
	}
	return p, nil
}

func propertyValue(t cql.Term) (property, *Error) {
	switch v := t.(type) {
	case *cql.Literal:
		if v.Kind == cql.LitNull {
			return property{}, syntaxf("Invalid property value: null")
		}
		return property{str: v.Text}, nil
	case *cql.CollectionLit:
		if v.Kind != cql.CollMap {
			break
		}
		m := make(map[string]string, len(v.Keys))
		for i := range v.Keys {
			k, ok1 := v.Keys[i].(*cql.Literal)
			val, ok2 := v.Values[i].(*cql.Literal)
			if !ok1 || !ok2 || k.Kind == cql.LitNull || val.Kind == cql.LitNull {
				return property{}, syntaxf("Invalid property value: %s", termText(v.Keys[i]))
			}
			m[k.Text] = val.Text
		}
		return property{m: m, isMap: true}, nil
	}
	return property{}, syntaxf("Invalid property value: %s", termText(t))
}

func termText(t cql.Term) string {
	switch v := t.(type) {
	case *cql.Literal:
		return v.Text
	case *cql.BindMarker:
		return "?"
	case *cql.UDTLit:
		if len(v.Fields) > 0 {
			return v.Fields[0]
		}
	}
	return "value"
}

// validate rejects names outside valid, as PropertyDefinitions.validate.
func (p *properties) validate(valid map[string]bool) *Error {
	for _, n := range p.names {
		if !valid[n] {
			return syntaxf("Unknown property '%s'", n)
		}
	}
	return nil
}

func (p *properties) has(name string) bool {
	_, ok := p.vals[name]
	return ok
}

func (p *properties) str(name string) (string, *Error) {
	v := p.vals[name]
	if v.isMap {
		return "", syntaxf("Invalid value for property '%s'. It should be a string", name)
	}
	return v.str, nil
}

func (p *properties) mapVal(name string) (map[string]string, *Error) {
	v := p.vals[name]
	if !v.isMap {
		return nil, syntaxf("Invalid value for property '%s'. It should be a map.", name)
	}
	return v.m, nil
}

var (
	positiveBool = regexp.MustCompile(`^(1|true|yes)$`)
	negativeBool = regexp.MustCompile(`^(0|false|no)$`)
)

func (p *properties) boolean(name string) (bool, *Error) {
	s, err := p.str(name)
	if err != nil {
		return false, err
	}
	return parseBoolean(name, s)
}

func parseBoolean(name, s string) (bool, *Error) {
	l := strings.ToLower(s)
	switch {
	case positiveBool.MatchString(l):
		return true, nil
	case negativeBool.MatchString(l):
		return false, nil
	}
	return false, syntaxf("Invalid boolean value %s for '%s'. Positive values can be '1', 'true' or 'yes' "+
		"(case insensitive) and negative values can be '0', 'false' or 'no' (case insensitive).", s, name)
}

func (p *properties) integer(name string) (int, *Error) {
	s, err := p.str(name)
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(s, 10, 32)
	if perr != nil {
		return 0, syntaxf("Invalid integer value %s for '%s'", s, name)
	}
	return int(n), nil
}

func (p *properties) double(name string) (float64, *Error) {
	s, err := p.str(name)
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if perr != nil {
		return 0, syntaxf("Invalid double value %s for '%s'", s, name)
	}
	return f, nil
}
