package simulate

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// InMemory is a Server serving HTTP in process on an in-memory listener:
// the way to run the simulator inside a program (an example, a benchmark,
// a demo) without a port. Create one with ServeInMemory and stop it with
// Close.
//
// Made inside a testing/synctest bubble, its server, drivers and
// connections run on the bubble's virtual clock; Close it before the
// bubble ends.
type InMemory struct {
	srv    *Server
	url    string
	client *http.Client
	hs     *http.Server
	served chan error
	conns  sync.WaitGroup
	once   sync.Once
	err    error
}

// inMemoryURL is the base URL of every InMemory: the in-memory transport
// ignores the host, and .invalid never resolves should it leak elsewhere.
const inMemoryURL = "http://simulator.invalid/v1/"

// ServeInMemory starts a Server with opts on an in-memory listener. Only
// the program itself reaches it, so it reads FaultHeader unless opts hold
// WithFaultHeader(false). The error is NewServer's, for invalid options.
func ServeInMemory(opts ...Option) (*InMemory, error) {
	l := NewMemListener()
	return serve(l, l.Client(), inMemoryURL, append([]Option{WithFaultHeader(true)}, opts...))
}

// serve starts a Server with opts on l; client reaches l at url.
func serve(l net.Listener, client *http.Client, url string, opts []Option) (*InMemory, error) {
	s, err := NewServer(opts...)
	if err != nil {
		l.Close()
		return nil, err
	}
	m := &InMemory{srv: s, url: url, client: client, served: make(chan error, 1)}
	// Every connection's goroutine must have ended when Close returns (a
	// synctest bubble requires it): count them from their states.
	var shed IdleShedder
	m.hs = &http.Server{Handler: s, ConnContext: s.ConnContext, ConnState: func(c net.Conn, st http.ConnState) {
		shed.ConnState(c, st)
		switch st {
		case http.StateNew:
			m.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			m.conns.Done()
		}
	}}
	go func() { m.served <- m.hs.Serve(JSONErrorPages(shed.Listener(l))) }()
	return m, nil
}

// BaseURL returns the base URL to give a client, with the API prefix and a
// trailing slash ("http://simulator.invalid/v1/"), as openai-go's
// option.WithBaseURL expects. Only Client reaches it.
func (m *InMemory) BaseURL() string { return m.url }

// Client returns an *http.Client whose transport dials the in-memory
// listener. It is the same client on every call.
func (m *InMemory) Client() *http.Client { return m.client }

// Server returns the simulator being served.
func (m *InMemory) Server() *Server { return m.srv }

// Close closes the client's idle connections, the HTTP server with its
// listener and connections, and the simulator, and waits for their
// goroutines to end. It returns the error the HTTP server stopped with, if
// not the expected http.ErrServerClosed, joined with the simulator's. Later calls return the same.
func (m *InMemory) Close() error {
	m.once.Do(func() {
		m.client.CloseIdleConnections()
		m.hs.Close()
		if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.err = fmt.Errorf("simulate: serve: %w", err)
		}
		m.conns.Wait()
		m.err = errors.Join(m.err, m.srv.Close())
	})
	return m.err
}
