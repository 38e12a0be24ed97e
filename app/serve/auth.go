package serve

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// cookieName is the login cookie: a MAC of the token, not the token.
const cookieName = "cogloop_session"

// guard wraps the routes: security headers on every answer; a server without
// a token answers only requests addressed to a loopback name (a page
// elsewhere cannot reach it through DNS rebinding); with a token every
// request but the login page's must carry it; requests that change state
// must come from the same origin.
func (s *Server) guard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusForbidden, "cross-origin request refused: POSTs must come from this server's own pages (or from a client that sends no Origin header)")
	}))
	checked := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if s.cfg.Token == "" && !loopbackHost(hostOnly(r.Host)) {
			http.Error(w, "this server answers requests to localhost or a loopback address only (it has no --token)", http.StatusMisdirectedRequest)
			return
		}
		if s.cfg.Token != "" && r.URL.Path != "/login" && !strings.HasPrefix(r.URL.Path, "/assets/") && !s.authorized(r) {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				h.Set("WWW-Authenticate", `Bearer realm="cogloop"`)
				apiError(w, http.StatusUnauthorized, "this server needs its token: send Authorization: Bearer TOKEN, or log in at /login")
				return
			}
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		checked.ServeHTTP(w, r)
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// authorized reports a request with the token or the login cookie.
func (s *Server) authorized(r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1
	}
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(s.session()))
}

// session is the login cookie's value.
func (s *Server) session() string {
	m := hmac.New(sha256.New, []byte(s.cfg.Token))
	m.Write([]byte("cogloop serve session"))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		tok := r.PostFormValue("token")
		if s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1 {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.session(), Path: "/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		s.page(w, "login", pageData{Title: "Log in", Error: "That is not this server's token."})
		return
	}
	s.page(w, "login", pageData{Title: "Log in"})
}
