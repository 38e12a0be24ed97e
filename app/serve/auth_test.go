package serve_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/serve"
)

func TestAddressOffLoopbackNeedsAToken(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7878", "", true},
		{"localhost:7878", "", true},
		{"[::1]:7878", "", true},
		{"0.0.0.0:7878", "", false},
		{":7878", "", false},
		{"192.168.1.10:7878", "", false},
		{"0.0.0.0:7878", "s3cret", true},
	} {
		_, err := serve.New(serve.Config{Addr: tc.addr, Token: tc.token, Records: records.Dir{Path: t.TempDir()}})
		if tc.ok {
			assert.NoError(t, err, tc.addr)
			continue
		}
		require.Error(t, err, tc.addr)
		assert.Contains(t, err.Error(), "--token")
	}
}

// With a token, every request needs it: by header, or by the cookie the
// login page sets; pages without it go to the login page.
func TestTokenIsRequiredOfEveryRequest(t *testing.T) {
	dir := records.Dir{Path: t.TempDir()}
	_, ts := newServer(t, serve.Config{Records: dir, Token: "s3cret", Workflows: "testdata/workflows", Start: libStart(dir)})
	noRedirect := *ts.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	for _, path := range []string{"/api/runs", "/api/runs/x", "/api/runs/x/events", "/api/workflows", "/api/queue"} {
		res := get(t, ts, path)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
		res = get(t, ts, path, "Authorization", "Bearer wrong")
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
	}
	assert.Equal(t, http.StatusUnauthorized, post(t, ts, "/api/runs", `{"workflow":"quality.yaml"}`).StatusCode)
	assert.Equal(t, http.StatusOK, get(t, ts, "/api/runs", "Authorization", "Bearer s3cret").StatusCode)
	res := post(t, ts, "/api/runs", `{"workflow":"nested/workflow.yaml","input":"x"}`, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusCreated, res.StatusCode)

	for _, path := range []string{"/", "/runs/x", "/compare", "/queue"} {
		res, err := noRedirect.Get(ts.URL + path)
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, "/login", res.Header.Get("Location"), path)
	}
	assert.Equal(t, http.StatusOK, get(t, ts, "/login").StatusCode)
	assert.Equal(t, http.StatusOK, get(t, ts, "/assets/app.js").StatusCode)

	login := func(token string) *http.Response {
		res, err := noRedirect.PostForm(ts.URL+"/login", url.Values{"token": {token}})
		require.NoError(t, err)
		_ = res.Body.Close()
		return res
	}
	assert.Equal(t, http.StatusUnauthorized, login("wrong").StatusCode)
	assert.Empty(t, login("wrong").Cookies())
	res = login("s3cret")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	cookies := res.Cookies()
	require.Len(t, cookies, 1)
	assert.True(t, cookies[0].HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookies[0].SameSite)
	assert.NotContains(t, cookies[0].Value, "s3cret", "the cookie is not the token")
	req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/runs", nil)
	require.NoError(t, err)
	req.AddCookie(cookies[0])
	res, err = ts.Client().Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	req.Header.Set("Cookie", "cogloop_session=forged")
	res, err = ts.Client().Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

// A POST from another origin is refused (CSRF); one from the same origin,
// or from a client that sends no Origin (curl, scripts), is not.
func TestCrossOriginPostsAreRefused(t *testing.T) {
	_, ts := startingServer(t)
	body := `{"workflow":"nested/workflow.yaml","input":"x"}`
	for _, h := range [][]string{
		{"Origin", "http://evil.example"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
	} {
		res := post(t, ts, "/api/runs", body, h...)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, h)
		assert.Contains(t, decode[map[string]string](t, res)["error"], "cross-origin")
	}
	assert.Equal(t, http.StatusCreated, post(t, ts, "/api/runs", body, "Origin", ts.URL).StatusCode)
	assert.Equal(t, http.StatusCreated, post(t, ts, "/api/runs", body, "Sec-Fetch-Site", "same-origin").StatusCode)
	assert.Equal(t, http.StatusCreated, post(t, ts, "/api/runs", body).StatusCode)
}

// Without a token the server answers only requests addressed to a loopback
// name: a page that rebinds its own host name to 127.0.0.1 gets nothing.
func TestForeignHostNamesAreRefusedWithoutAToken(t *testing.T) {
	_, ts := startingServer(t)
	for _, host := range []string{"evil.example", "evil.example:7878", "10.0.0.1"} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/runs", nil)
		require.NoError(t, err)
		req.Host = host
		res, err := ts.Client().Do(req)
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusMisdirectedRequest, res.StatusCode, host)
	}
	req, err := http.NewRequest(http.MethodGet, strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)+"/api/runs", nil)
	require.NoError(t, err)
	res, err := ts.Client().Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}
