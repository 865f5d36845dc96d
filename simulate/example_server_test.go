package simulate_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

// A server with two models, served on an in-memory listener and called
// with openai-go. simulate.ServeInMemory does this wiring in a program, and
// simulate.StartInMemory in a test (on virtual time inside a
// testing/synctest bubble).
func ExampleServer() {
	srv, err := simulate.NewServer(
		simulate.WithModel("small", &simulate.Fixed{TTFT: 5 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 2 * time.Millisecond}),
		simulate.WithReply(func(r simulate.ReplyInfo) (string, bool) {
			return "Hello from " + r.Model + ".", true
		}),
	)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	l := simulate.NewMemListener()
	hs := &http.Server{Handler: srv}
	go hs.Serve(l)
	defer hs.Close()
	hc := l.Client()
	defer hc.CloseIdleConnections()

	client := openai.NewClient(
		option.WithBaseURL("http://simulator/v1/"),
		option.WithHTTPClient(hc),
		option.WithAPIKey("unused"),
	)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:         "small",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	for stream.Next() {
		c := stream.Current()
		for _, ch := range c.Choices {
			fmt.Printf("%q %q\n", ch.Delta.Content, ch.FinishReason)
		}
		if c.Usage.TotalTokens > 0 {
			fmt.Println("completion tokens:", c.Usage.CompletionTokens)
		}
	}
	if err := stream.Err(); err != nil {
		panic(err)
	}
	// Output:
	// "" ""
	// "Hello" ""
	// " from" ""
	// " small." ""
	// "" "stop"
	// completion tokens: 3
}

// A client picks the fault of one request with the X-Tokenpace-Fault
// header (FaultHeader), whose values ParseFault reads.
func ExampleParseFault() {
	f, err := simulate.ParseFault("reset;after=2")
	fmt.Println(f.Kind, f.After, err)
	f, err = simulate.ParseFault("stall;for=1.5s;after=3")
	fmt.Println(f.Kind, f.After, f.For, err)
	// Output:
	// reset 2 <nil>
	// stall 3 1.5s <nil>
}
