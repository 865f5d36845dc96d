package tokenpace_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestWithName checks that a Client's name reaches what its caller and its
// observers see: Timing.Target of a streaming and a whole call, the first
// token's hook, and the error of a stream whose connection broke.
func TestWithName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var first []string
		hooks := tokenpace.Hooks{FirstToken: func(_ context.Context, info tokenpace.FirstTokenInfo) {
			first = append(first, info.Target)
		}}
		c := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 20 * msec, ITL: 5 * msec})},
			tokenpace.WithName("eu-west"), tokenpace.WithHooks(hooks))

		s := c.NewStreaming(context.Background(), chat("m", 5))
		drain(t, s, 0)
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("clean stream: Err() = %v", err)
		}
		if got := s.Timing().Target; got != "eu-west" {
			t.Errorf("stream: Timing().Target = %q, want %q", got, "eu-west")
		}

		var whole *tokenpace.Timing
		if _, err := c.New(context.Background(), chat("m", 5), tokenpace.WithTimingInto(&whole)); err != nil {
			t.Fatalf("whole call: %v", err)
		}
		if whole == nil || whole.Target != "eu-west" {
			t.Errorf("whole call: Timing = %+v, want Target %q", whole, "eu-west")
		}

		broken := c.NewStreaming(context.Background(), chat("m", 5), option.WithHeader(simulate.FaultHeader, "reset;after=2"))
		got := drain(t, broken, 0)
		broken.Close()
		se := checkKind(t, broken.Err(), tokenpace.KindReset)
		if se.Target != "eu-west" {
			t.Errorf("broken stream: StreamError.Target = %q, want %q (err %v)", se.Target, "eu-west", se)
		}
		if len(got) == 0 {
			t.Errorf("broken stream: no chunk before the reset, want its partial output")
		}
		if want := []string{"eu-west", "eu-west"}; !slices.Equal(first, want) {
			t.Errorf("FirstToken targets = %q, want %q (the two streams)", first, want)
		}
	})
}
