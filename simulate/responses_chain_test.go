package simulate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/simulate"
)

// A Responses turn that names an earlier response (previous_response_id)
// carries its conversation on, as OpenAI's API does: the earlier prompt
// and reply are prompt tokens of the turn, before its new input, and the
// engine reuses the prefix it cached for them, so the turn's first token
// comes as soon as that of a short prompt. The simulator ignored the id:
// the turn was prefilled as its new input alone. A response stored with
// store false, or never given, is refused as OpenAI refuses it.
func TestResponsesChainTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
		c := newClient(ts)
		turn := func(input, previous string, store bool) (*responses.Response, time.Duration, error) {
			p := responses.ResponseNewParams{
				Model:           "m",
				Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String(input)},
				MaxOutputTokens: openai.Int(20),
				Store:           openai.Bool(store),
			}
			if previous != "" {
				p.PreviousResponseID = openai.String(previous)
			}
			start := time.Now()
			s := c.Responses.NewStreaming(context.Background(), p)
			defer s.Close()
			var ttft time.Duration
			var res *responses.Response
			for s.Next() {
				switch e := s.Current().AsAny().(type) {
				case responses.ResponseTextDeltaEvent:
					if ttft == 0 {
						ttft = time.Since(start)
					}
				case responses.ResponseCompletedEvent:
					res = &e.Response
				case responses.ResponseIncompleteEvent:
					res = &e.Response
				}
			}
			return res, ttft, s.Err()
		}
		long := strings.Repeat("Here is a long document to discuss. ", 1500) // 54000 bytes
		first, firstTTFT, err := turn(long, "", true)
		if err != nil || first == nil {
			t.Fatalf("first turn: %v", err)
		}
		fresh, _, err := turn("And then?", "", true)
		if err != nil || fresh == nil {
			t.Fatalf("a fresh turn: %v", err)
		}
		next, nextTTFT, err := turn("And then?", first.ID, true)
		if err != nil || next == nil {
			t.Fatalf("the next turn: %v", err)
		}
		carried := first.Usage.InputTokens + first.Usage.OutputTokens
		if want := carried + fresh.Usage.InputTokens; next.Usage.InputTokens != want {
			t.Errorf("the next turn's input_tokens = %d, want %d: the first turn's %d prompt and %d reply tokens, then %d of its own",
				next.Usage.InputTokens, want, first.Usage.InputTokens, first.Usage.OutputTokens, fresh.Usage.InputTokens)
		}
		if cached := next.Usage.InputTokensDetails.CachedTokens; cached < carried-16 || cached > carried {
			t.Errorf("the next turn's cached_tokens = %d, want the %d carried on (to the engine's 16-token block)", cached, carried)
		}
		if nextTTFT*4 > firstTTFT {
			t.Errorf("the next turn's TTFT = %v, want well under the first turn's %v: its prefix is cached", nextTTFT, firstTTFT)
		}

		unstored, _, err := turn("Keep this to yourself.", "", false)
		if err != nil || unstored == nil {
			t.Fatalf("an unstored turn: %v", err)
		}
		for _, id := range []string{unstored.ID, "resp_never"} {
			_, _, err := turn("And then?", id, true)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "previous_response_not_found" ||
				apiErr.Param != "previous_response_id" || apiErr.Message != "Previous response with id '"+id+"' not found." {
				t.Errorf("a turn after %s: error %v, want 400 previous_response_not_found", id, err)
			}
		}
	})
}
