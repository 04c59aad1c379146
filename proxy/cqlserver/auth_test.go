package cqlserver

import (
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"
	"golang.org/x/crypto/bcrypt"
)

func testHash(t testing.TB, pass string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func TestPasswordAuthenticator(t *testing.T) {
	auth, err := NewPasswordAuthenticator(map[string]string{"alice": testHash(t, "s3cret"), "bob": testHash(t, "other")})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *Config) { c.Authenticator = auth })
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			c := ts.pipeClient(t, v)
			m := c.do(message.NewStartup()).Body.Message
			if a, ok := m.(*message.Authenticate); !ok || a.Authenticator != PasswordAuthenticatorClass {
				t.Fatalf("STARTUP answered %v, want AUTHENTICATE %s", m, PasswordAuthenticatorClass)
			}
			if v >= 5 {
				c.startV5Framing()
			}
			for _, tc := range []struct{ token, wantMsg string }{
				{"\x00alice\x00wrong", "Provided username alice and/or password are incorrect"},
				{"\x00mallory\x00s3cret", "Provided username mallory and/or password are incorrect"},
				{"\x00bob\x00s3cret", "Provided username bob and/or password are incorrect"},
				{"garbage", "Invalid SASL PLAIN token"},
			} {
				m := c.do(&message.AuthResponse{Token: []byte(tc.token)}).Body.Message
				if code := errorCode(t, m); code != primitive.ErrorCodeAuthenticationError {
					t.Fatalf("%q: code %v, want AuthenticationError", tc.token, code)
				}
				if got := m.(message.Error).GetErrorMessage(); !strings.Contains(got, tc.wantMsg) {
					t.Errorf("%q: message %q, want %q", tc.token, got, tc.wantMsg)
				}
			}
			// Twice: the second success comes from the verified cache.
			for i := 0; i < 2; i++ {
				if i == 1 {
					c = ts.pipeClient(t, v)
					c.do(message.NewStartup())
					if v >= 5 {
						c.startV5Framing()
					}
				}
				if m := c.do(&message.AuthResponse{Token: []byte("\x00alice\x00s3cret")}).Body.Message; m.GetOpCode() != primitive.OpCodeAuthSuccess {
					t.Fatalf("good credentials: %v", m)
				}
			}
			c.rows("SELECT * FROM ks.t", nil)
		})
	}
	if got := ts.srv.Stats().AuthFailures; got != uint64(4*len(allVersions)) {
		t.Errorf("AuthFailures = %d, want %d", got, 4*len(allVersions))
	}
}

func TestNewPasswordAuthenticatorRejects(t *testing.T) {
	for name, users := range map[string]map[string]string{
		"none":       {},
		"plain text": {"u": "password"},
		"empty name": {"": testHash(t, "x")},
	} {
		if _, err := NewPasswordAuthenticator(users); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDecodePlain(t *testing.T) {
	for _, tc := range []struct {
		token, user, pass string
		ok                bool
	}{
		{"\x00u\x00p", "u", "p", true},
		{"authz\x00u\x00p", "u", "p", true},
		{"u\x00p", "u", "p", true},
		{"\x00\x00p", "", "", false},
		{"\x00u\x00", "", "", false},
		{"nopassword", "", "", false},
		{"a\x00b\x00c\x00d", "", "", false},
	} {
		user, pass, err := decodePlain([]byte(tc.token))
		if (err == nil) != tc.ok || user != tc.user || pass != tc.pass {
			t.Errorf("decodePlain(%q) = %q, %q, %v; want %q, %q, ok=%v", tc.token, user, pass, err, tc.user, tc.pass, tc.ok)
		}
	}
}

// startV5Framing switches a v5 client to segments (after AUTHENTICATE).
func (c *client) startV5Framing() { c.seg = segment.NewCodec() }

func TestCheckPassword(t *testing.T) {
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewPasswordAuthenticator(map[string]string{"u": string(h)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user, pw string
		want     bool
	}{{"u", "pw", true}, {"u", "bad", false}, {"x", "pw", false}, {"", "", false}} {
		if got := a.CheckPassword(tc.user, tc.pw); got != tc.want {
			t.Errorf("CheckPassword(%q, %q) = %v", tc.user, tc.pw, got)
		}
	}
}
