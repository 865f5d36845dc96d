package tokenpace_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// A Responses stream continued on another route reads as one response:
// the big model stalls after five tokens and the small one carries on,
// yet the caller sees one response.created, sequence numbers that go on,
// one response id and one message, whose done events hold the whole text.
func ExampleRouter_NewResponseStreaming() {
	sim, err := simulate.NewServer(
		simulate.WithModel("big", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithFaultHeader(true), // the big route asks for a stall
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
			if ri.Model == "big" {
				return "One two three four five six seven eight.", true
			}
			return " six seven eight.", true // asked to continue
		}),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	defer func() { srv.Close(); sim.Close() }()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-...")))
	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true},
		tokenpace.Route{Name: "big", Model: "big",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=5")}},
		tokenpace.Route{Name: "small", Model: "small"},
	)
	if err != nil {
		panic(err)
	}

	stream := router.NewResponseStreaming(context.Background(), responses.ResponseNewParams{
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Count to eight.")},
	})
	defer stream.Close()
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "response.created":
			fmt.Println(ev.SequenceNumber, ev.Type, ev.Response.ID)
		case "response.completed":
			fmt.Println(ev.SequenceNumber, ev.Type, ev.Response.ID, ev.Response.OutputText())
		case "response.output_item.added", "response.output_item.done":
			fmt.Println(ev.SequenceNumber, ev.Type, ev.Item.ID)
		case "response.output_text.delta":
			fmt.Printf("%d %s %s %q\n", ev.SequenceNumber, ev.Type, ev.ItemID, ev.Delta)
		case "response.output_text.done":
			fmt.Println(ev.SequenceNumber, ev.Type, ev.ItemID, ev.Text)
		}
	}
	fmt.Println("error:", stream.Err())
	for _, a := range stream.Timing().Attempts {
		fmt.Println("attempt:", a.Kind, a.Target, a.Outcome, a.Tokens, "tokens")
	}
	// Output:
	// 0 response.created resp_1
	// 2 response.output_item.added msg_1
	// 4 response.output_text.delta msg_1 "One"
	// 5 response.output_text.delta msg_1 " two"
	// 6 response.output_text.delta msg_1 " three"
	// 7 response.output_text.delta msg_1 " four"
	// 8 response.output_text.delta msg_1 " five"
	// 9 response.output_text.delta msg_1 " six"
	// 10 response.output_text.delta msg_1 " seven"
	// 11 response.output_text.delta msg_1 " eight."
	// 12 response.output_text.done msg_1 One two three four five six seven eight.
	// 14 response.output_item.done msg_1
	// 15 response.completed resp_1 One two three four five six seven eight.
	// error: <nil>
	// attempt: first big breached 5 tokens
	// attempt: continuation small won 3 tokens
}
