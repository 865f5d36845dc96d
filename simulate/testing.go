package simulate

import (
	"net"
	"net/http"
)

// TB is the part of testing.TB the test constructors use.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// TestServer is a Server running for a test.
type TestServer struct {
	*Server
	// URL is the base URL to give a client, with the API prefix and a
	// trailing slash ("http://127.0.0.1:PORT/v1/"), as openai-go's
	// option.WithBaseURL expects.
	URL string
	// Client is an *http.Client that reaches the server: the in-memory
	// transport for StartInMemory, a plain client for StartLoopback.
	Client *http.Client
}

// StartLoopback starts a Server with opts on a real TCP port of 127.0.0.1
// and stops it (server, listener, idle client connections) when the test
// ends. Use it for end-to-end tests over real HTTP. The server reads
// FaultHeader unless opts hold WithFaultHeader(false).
func StartLoopback(t TB, opts ...Option) *TestServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("simulate: listen on loopback: %v", err)
	}
	return start(t, l, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}, "http://"+l.Addr().String()+"/v1/", opts)
}

// StartInMemory starts a Server with opts on an in-memory listener and
// returns it with an *http.Client dialing it; everything stops when the test
// ends. Called inside a testing/synctest bubble (with the bubble's t), the
// server, its drivers and the connections all run on the bubble's virtual
// clock, so latency tests are instant and exact. The server reads
// FaultHeader unless opts hold WithFaultHeader(false):
//
//	synctest.Test(t, func(t *testing.T) {
//		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Second}))
//		client := openai.NewClient(option.WithBaseURL(ts.URL),
//			option.WithHTTPClient(ts.Client), option.WithAPIKey("x"))
//		...
//	})
func StartInMemory(t TB, opts ...Option) *TestServer {
	t.Helper()
	l := NewMemListener()
	return start(t, l, l.Client(), inMemoryURL, opts)
}

func start(t TB, l net.Listener, client *http.Client, url string, opts []Option) *TestServer {
	t.Helper()
	m, err := serve(l, client, url, append([]Option{WithFaultHeader(true)}, opts...))
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Fatalf("%v", err)
		}
	})
	return &TestServer{Server: m.Server(), URL: m.BaseURL(), Client: m.Client()}
}
