package tokenpace_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// BenchmarkResponseStitch reads the same Responses stream (1,024 output
// text deltas, no stall) through a Router without Policy.Continue and
// with it, whose call then notes what the caller has of its one response
// (see Router.NewResponseStreaming): the cost of that bookkeeping on a
// stream that is never continued.
//
//	go test -run '^$' -bench BenchmarkResponseStitch -benchtime 40x -count 5 .
func BenchmarkResponseStitch(b *testing.B) {
	const n = 1024
	oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{responseStream(n)}}))
	params := respond("gpt-4.1", n)
	for _, v := range []struct {
		name string
		cont bool
	}{{"continue=off", false}, {"continue=on", true}} {
		b.Run(v.name, func(b *testing.B) {
			r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{Continue: v.cont}, route("a"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s := r.NewResponseStreaming(context.Background(), params)
				for s.Next() {
				}
				s.Close()
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
		})
	}
}
