package act_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostOf is the host:port of a test server.
func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return u.Host
}

func TestHTTPGetJSON(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-Q") + " " + string(body))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Answer", "yes")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"hits": [1, 2], "q": "ok"}`)
	}))
	defer srv.Close()
	a := build(t, fmt.Sprintf(`
type: http
method: "{{ args.method }}"
url: "%s/search?q={{ args.q }}"
headers: {X-Q: "{{ args.q }}"}
body: '{"q": "{{ args.q }}"}'
allow_hosts: [127.0.0.1]
`, srv.URL))
	out, err := call(t, a, map[string]any{"q": "cats", "method": "post"})
	require.NoError(t, err)
	require.Equal(t, `POST /search?q=cats cats {"q": "cats"}`, got.Load())
	require.Equal(t, 201, out.Fields["status"])
	require.Equal(t, out.Fields["body"], out.Response)
	body, ok := out.Fields["body"].(map[string]any)
	require.True(t, ok, "a JSON body is decoded: %#v", out.Fields["body"])
	require.Equal(t, "ok", body["q"])
	require.Equal(t, "yes", out.Fields["headers"].(map[string]any)["x-answer"])
}

func TestHTTPTextAndErrorStatusIsAResult(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer srv.Close()
	a := build(t, fmt.Sprintf("type: http\nurl: %s/x\nallow_hosts: ['%s']\n", srv.URL, hostOf(t, srv)))
	out, err := call(t, a, nil)
	require.NoError(t, err)
	require.Equal(t, 404, out.Fields["status"])
	require.Equal(t, "not here\n", out.Response)
}

func TestHTTPRefusesHostOutsideAllowList(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	a := build(t, "type: http\nurl: \"{{ args.url }}\"\nallow_hosts: [example.com, '*.example.org']\n")
	for _, u := range []string{srv.URL, "http://127.0.0.1.example.com.evil/", "http://example.org/", "file:///etc/passwd", "http://user:pw@example.com/"} {
		_, err := call(t, a, map[string]any{"url": u})
		require.Error(t, err, u)
	}
	_, err := call(t, a, map[string]any{"url": srv.URL})
	require.ErrorContains(t, err, "not in allow_hosts")
	require.Zero(t, hits.Load(), "no request reaches a host outside allow_hosts")
}

func TestHTTPRefusesRedirectToDisallowedHost(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	// The same loopback server under the name localhost: not in the list.
	_, port, err := net.SplitHostPort(other.Listener.Addr().String())
	require.NoError(t, err)
	target := "http://localhost:" + port
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+"/stolen", http.StatusFound)
	}))
	defer srv.Close()
	a := build(t, fmt.Sprintf("type: http\nurl: %s/\nallow_hosts: [127.0.0.1]\n", srv.URL))
	_, err = call(t, a, nil)
	require.ErrorContains(t, err, "redirect to host")
	require.ErrorContains(t, err, "not in allow_hosts")
	require.Zero(t, hits.Load(), "the redirect was not followed")
}

func TestHTTPMaxBytesOnDecompressedBody(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, err := zw.Write(bytes.Repeat([]byte("a"), 3000))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.Less(t, zipped.Len(), 1000, "the compressed body is under max_bytes")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	}))
	defer srv.Close()
	for _, headers := range []string{"", "headers: {Accept-Encoding: gzip}"} {
		t.Run("headers="+headers, func(t *testing.T) {
			a := build(t, fmt.Sprintf("type: http\nurl: %s/\nallow_hosts: [127.0.0.1]\nmax_bytes: 1000\n%s\n", srv.URL, headers))
			_, err := call(t, a, nil)
			require.ErrorContains(t, err, "larger than max_bytes (1000 bytes)")
			a = build(t, fmt.Sprintf("type: http\nurl: %s/\nallow_hosts: [127.0.0.1]\nmax_bytes: 3000\n%s\n", srv.URL, headers))
			out, err := call(t, a, nil)
			require.NoError(t, err)
			require.Equal(t, strings.Repeat("a", 3000), out.Fields["body"])
		})
	}
}

func TestHTTPTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // hangs until the client gives up
	}))
	defer srv.Close()
	a := build(t, fmt.Sprintf("type: http\nurl: %s/\nallow_hosts: [127.0.0.1]\ntimeout: 50ms\n", srv.URL))
	_, err := call(t, a, nil)
	require.ErrorContains(t, err, "within the timeout of 50ms")
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}

func TestHTTPLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no allow_hosts", "type: http\nurl: http://example.com/\n", `wf.yaml:1:1: agent "x": allow_hosts is required`},
		{"no url", "type: http\nallow_hosts: [example.com]\n", "url is required"},
		{"fixed url outside", "type: http\nurl: https://evil.example/\nallow_hosts: [example.com]\n", `wf.yaml:2:1: agent "x": host "evil.example" is not in allow_hosts`},
		{"url in allow_hosts", "type: http\nurl: http://example.com/\nallow_hosts: ['https://example.com/']\n", "without scheme or path"},
		{"typo", "type: http\nurl: http://example.com/\nallow_hosts: [example.com]\nmax_byte: 3\n", `did you mean "max_bytes"?`},
		{"bad template", "type: http\nurl: '{{ args.url '\nallow_hosts: [example.com]\n", "wf.yaml:2:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, loadErr(t, tc.src), tc.want)
		})
	}
}
