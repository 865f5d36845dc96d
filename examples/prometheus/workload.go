package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// backend is an embedded simulator on a loopback port.
type backend struct {
	URL string // base URL for openai-go, ".../v1/"
	srv *simulate.Server
	hs  *http.Server
	l   net.Listener
	hc  *http.Client
}

// startBackend serves a simulator on 127.0.0.1 with a fixed timing: the
// stand-in for a real endpoint in this example.
func startBackend() (*backend, error) {
	srv, err := simulate.NewServer(simulate.WithModel("llama-3.1-8b",
		&simulate.Fixed{TTFT: 120 * time.Millisecond, ITL: 15 * time.Millisecond}))
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, srv.Close())
	}
	b := &backend{URL: "http://" + l.Addr().String() + "/v1/", srv: srv, l: l,
		hs: &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second},
		hc: &http.Client{Transport: &http.Transport{}}}
	go func() { _ = b.hs.Serve(l) }()
	return b, nil
}

// Close stops the simulator and its HTTP server.
func (b *backend) Close() error {
	b.hc.CloseIdleConnections()
	err := b.hs.Close()
	return errors.Join(err, b.srv.Close())
}

// drive sends n streaming requests, c at a time, through a tokenpace client
// whose hooks are h, and returns the first error.
func drive(ctx context.Context, b *backend, h tokenpace.Hooks, n, c int) error {
	client := tokenpace.NewClient(openai.NewClient(
		option.WithBaseURL(b.URL), option.WithHTTPClient(b.hc), option.WithAPIKey("unused")),
		tokenpace.WithHooks(h))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, max(c, 1))
	)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s := client.NewStreaming(ctx, openai.ChatCompletionNewParams{
				Model:     "llama-3.1-8b",
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(fmt.Sprintf("Question %d: why is the sky blue?", i))},
				MaxTokens: openai.Int(32),
			})
			for s.Next() {
			}
			err := s.Err()
			_ = s.Close()
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}
