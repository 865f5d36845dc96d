package simulate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/simulate"
)

// bgParams asks for a background response of n tokens, streamed or not.
func bgParams(n int64) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:           simulate.DefaultModel,
		Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("Why does latency matter?")},
		MaxOutputTokens: openai.Int(n),
		Background:      openai.Bool(true),
	}
}

// bgRead reads s to its end: the events, when each arrived since start,
// and the text of the deltas.
func bgRead(s interface {
	Next() bool
	Current() responses.ResponseStreamEventUnion
}, start time.Time) (evs []responses.ResponseStreamEventUnion, at []time.Duration, text string) {
	for s.Next() {
		ev := s.Current()
		evs, at = append(evs, ev), append(at, time.Since(start))
		if ev.Type == "response.output_text.delta" {
			text += ev.Delta
		}
	}
	return evs, at, text
}

// A background stream cut by a reset mid-answer is resumed by openai-go's
// GetStreaming with StartingAfter the last event it got: the response
// went on generating meanwhile, the resumed stream holds every event
// after that one, in order, and the text is the reply the same request
// gets without a fault. Each delta arrives when the engine makes it:
// DefaultTTFT, then DefaultITL apart, from the POST. Without background
// mode, the simulator answered the GET with 404 and the rest was lost.
func TestBackgroundResumeAfterReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t)
		c := newClient(ts)
		ref := c.Responses.NewStreaming(context.Background(), bgParams(10))
		_, _, want := bgRead(ref, time.Now())
		ref.Close()

		start := time.Now()
		s := c.Responses.NewStreaming(context.Background(), bgParams(10), option.WithHeader(simulate.FaultHeader, "reset;after=3"))
		first, _, head := bgRead(s, start)
		s.Close()
		if s.Err() == nil {
			t.Fatal("the POST's stream ended cleanly, want it cut")
		}
		if got := types(first[:2]); got != "[response.created response.queued]" || first[0].Response.Status != "queued" {
			t.Errorf("first events = %s (status %q), want created and queued, status queued", got, first[0].Response.Status)
		}
		last := first[len(first)-1].SequenceNumber
		id := first[0].Response.ID
		g := c.Responses.GetStreaming(context.Background(), id, responses.ResponseGetParams{StartingAfter: openai.Int(last)}, option.WithQuery("stream", "true"))
		rest, at, tail := bgRead(g, start)
		g.Close()
		if err := g.Err(); err != nil {
			t.Fatalf("resumed stream: %v", err)
		}
		if head+tail != want || head == "" || tail == "" {
			t.Errorf("text = %q + %q, want %q in two parts", head, tail, want)
		}
		for i, ev := range rest {
			if ev.SequenceNumber != last+1+int64(i) {
				t.Fatalf("resumed event %d sequence_number = %d, want %d", i, ev.SequenceNumber, last+1+int64(i))
			}
		}
		if end := rest[len(rest)-1]; end.Type != "response.incomplete" || end.Response.Status != "incomplete" {
			t.Errorf("last event = %s, want response.incomplete (max_output_tokens)", end.Type)
		}
		k := 3 // the tokens before the cut
		for i, ev := range rest {
			if ev.Type != "response.output_text.delta" {
				continue
			}
			if due := simulate.DefaultTTFT + time.Duration(k)*simulate.DefaultITL; at[i] != due {
				t.Errorf("token %d arrived at %v, want %v", k, at[i], due)
			}
			k++
		}
		if k != 10 {
			t.Errorf("tokens = %d, want 10", k)
		}
	})
}

// waitEnd follows background response id's stream to its end.
func waitEnd(c openai.Client, id string) {
	g := c.Responses.GetStreaming(context.Background(), id, responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
	bgRead(g, time.Now())
	g.Close()
}

// types returns the types of evs.
func types(evs []responses.ResponseStreamEventUnion) string {
	var ts []string
	for _, ev := range evs {
		ts = append(ts, ev.Type)
	}
	return fmt.Sprint(ts)
}

// A background request without stream is answered at once with its
// Response object, queued; a GET shows it as it stands, and completed
// incomplete once the engine is done (max_output_tokens cut it). A cancelled one is "cancelled", and a stream
// that follows it ends.
func TestBackgroundGetAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t)
		c := newClient(ts)
		start := time.Now()
		r, err := c.Responses.New(context.Background(), bgParams(10))
		if err != nil || r.Status != "queued" || !r.Background || time.Since(start) != 0 {
			t.Fatalf("New = %v (status %q, after %v), %v; want queued at once", r, r.Status, time.Since(start), err)
		}
		g := c.Responses.GetStreaming(context.Background(), r.ID, responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
		evs, at, text := bgRead(g, start)
		g.Close()
		got, err := c.Responses.Get(context.Background(), r.ID, responses.ResponseGetParams{})
		if err != nil || got.Status != "incomplete" || got.OutputText() != text || evs[0].SequenceNumber != 0 {
			t.Errorf("Get = %q, %q, %v; want incomplete, %q from event 0", got.Status, got.OutputText(), err, text)
		}
		if end := simulate.DefaultTTFT + 9*simulate.DefaultITL; at[len(at)-1] != end {
			t.Errorf("stream ended at %v, want %v", at[len(at)-1], end)
		}

		long, err := c.Responses.New(context.Background(), bgParams(1000))
		if err != nil {
			t.Fatal(err)
		}
		g = c.Responses.GetStreaming(context.Background(), long.ID, responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
		for n := 0; n < 40 && g.Next(); {
			if g.Current().Type == "response.output_text.delta" {
				n++
			}
		}
		g.Close()
		cut := time.Since(start)
		cancelled, err := c.Responses.Cancel(context.Background(), long.ID)
		if err != nil || cancelled.Status != "cancelled" {
			t.Fatalf("Cancel = %v, %v; want status cancelled", cancelled, err)
		}
		g = c.Responses.GetStreaming(context.Background(), long.ID, responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
		evs, _, _ = bgRead(g, start)
		g.Close()
		if end := evs[len(evs)-1].Type; time.Since(start) != cut || strings.HasPrefix(end, "response.incomplete") {
			t.Errorf("the cancelled stream ended with %s at %v, want it cut at %v", end, time.Since(start), cut)
		}
	})
}

// GET and cancel of an id the server does not hold answer 404, and a
// background request with store false is refused with 400, as OpenAI
// answers them.
func TestBackgroundRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t)
		c := newClient(ts)
		_, err := c.Responses.Get(context.Background(), "resp_unknown", responses.ResponseGetParams{})
		if e, ok := errors.AsType[*openai.Error](err); !ok || e.StatusCode != http.StatusNotFound {
			t.Errorf("Get(unknown) = %v, want 404", err)
		}
		_, err = c.Responses.Cancel(context.Background(), "resp_unknown")
		if e, ok := errors.AsType[*openai.Error](err); !ok || e.StatusCode != http.StatusNotFound {
			t.Errorf("Cancel(unknown) = %v, want 404", err)
		}
		p := bgParams(10)
		p.Store = openai.Bool(false)
		_, err = c.Responses.New(context.Background(), p)
		if e, ok := errors.AsType[*openai.Error](err); !ok || e.StatusCode != http.StatusBadRequest || e.Param != "background" {
			t.Errorf("New(background, store false) = %v, want 400 on background", err)
		}
	})
}

// A client making background responses without end holds a bounded
// server: the oldest finished ones are dropped past 128 (their GET is
// 404), a new one is refused with 429 while 128 are generating, and a
// long one keeps only its latest 512 KiB of events (a resume from
// before them is 400).
func TestBackgroundCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t)
		c := newClient(ts)
		var ids []string
		for i := range 200 {
			r, err := c.Responses.New(context.Background(), bgParams(1))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
			if i%100 == 99 {
				waitEnd(c, r.ID) // and the ones before it
			}
		}
		for i, id := range ids {
			_, err := c.Responses.Get(context.Background(), id, responses.ResponseGetParams{})
			if kept := i >= 200-128; kept != (err == nil) {
				t.Fatalf("Get(response %d) = %v, want kept %v", i, err, kept)
			}
		}
		long := make([]string, 0, 128)
		for range 128 {
			r, err := c.Responses.New(context.Background(), bgParams(5000))
			if err != nil {
				t.Fatal(err)
			}
			long = append(long, r.ID)
		}
		_, err := c.Responses.New(context.Background(), bgParams(1))
		if e, ok := errors.AsType[*openai.Error](err); !ok || e.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("New with 128 generating = %v, want 429", err)
		}
		for _, id := range long[1:] {
			c.Responses.Cancel(context.Background(), id)
		}
		g := c.Responses.GetStreaming(context.Background(), long[0], responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
		_, _, text := bgRead(g, time.Now())
		g.Close()
		if n := len(strings.Fields(text)); n < 4000 {
			t.Errorf("the long response's text has %d words, want its 5000 tokens", n)
		}
		g = c.Responses.GetStreaming(context.Background(), long[0], responses.ResponseGetParams{StartingAfter: openai.Int(0)}, option.WithQuery("stream", "true"))
		bgRead(g, time.Now())
		if e, ok := errors.AsType[*openai.Error](g.Err()); !ok || e.StatusCode != http.StatusBadRequest {
			t.Errorf("resume from event 0 of 5000 tokens = %v, want 400", g.Err())
		}
		g.Close()
	})
}
