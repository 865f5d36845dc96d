package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// startBackend serves a simulator in process with a fixed timing: the
// stand-in for a real endpoint in this example.
func startBackend() (*simulate.InMemory, error) {
	return simulate.ServeInMemory(simulate.WithModel("llama-3.1-8b",
		&simulate.Fixed{TTFT: 120 * time.Millisecond, ITL: 15 * time.Millisecond}))
}

// drive sends n streaming requests, c at a time, through a tokenpace client
// whose hooks are h, and returns the first error.
func drive(ctx context.Context, b *simulate.InMemory, h tokenpace.Hooks, n, c int) error {
	client := tokenpace.NewClient(openai.NewClient(
		option.WithBaseURL(b.BaseURL()), option.WithHTTPClient(b.Client()), option.WithAPIKey("unused")),
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
