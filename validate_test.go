package tokenpace_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// jsonReplies makes "small" answer broken JSON and "big" valid JSON.
func jsonReplies() simulate.Option {
	return simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
		if ri.Model == "big" {
			return `{"answer": 42}`, true
		}
		return `{"answer": 4`, true
	})
}

func validateSim() []simulate.Option {
	return []simulate.Option{
		simulate.WithModel("big", &simulate.Fixed{TTFT: 300 * msec, ITL: 20 * msec}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 5 * msec}),
		jsonReplies(),
	}
}

// TestValidatorRejects: without retries the output streams as usual; at
// its end the validator rejects it: the stream ends with a
// KindInvalid *StreamError, the Timing is not good, and the rejection counts
// against the target's breaker.
func TestValidatorRejects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Validator: validJSON, Breaker: tokenpace.BreakerSettings{Failures: 1}},
			validateSim(), route("small"), route("big"))
		s := r.NewStreaming(context.Background(), chat("small", 10))
		if text, want := readAll(t, s), `{"answer": 4`; text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		var ve *tokenpace.StreamError
		if err := s.Err(); !errors.As(err, &ve) || ve.Kind != tokenpace.KindInvalid || ve.Target != "small" || !errors.Is(err, tokenpace.ErrInvalidOutput) {
			t.Fatalf("Err() = %v, want a KindInvalid *StreamError for small", err)
		}
		tm := s.Timing()
		if invalid := errors.Is(tm.Err, tokenpace.ErrInvalidOutput); !invalid || tm.OK() {
			t.Errorf("invalid, OK() = %v, %v, want true, false", invalid, tm.OK())
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeInvalid}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if st, _ := r.BreakerState("small"); st != gobreaker.StateOpen {
			t.Errorf("BreakerState(small) = %v, want open", st)
		}
	})
}

// TestValidatorRetries: with RetryInvalid the fast model's broken output
// never reaches the caller; the call retries on the larger model, whose
// validated output does.
func TestValidatorRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Validator: validJSON, RetryInvalid: true},
			validateSim(), route("small"), route("big"))
		s := r.NewStreaming(context.Background(), chat("small", 10))
		if text, want := readAll(t, s), `{"answer": 42}`; text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeInvalid, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if invalid := errors.Is(tm.Err, tokenpace.ErrInvalidOutput); invalid || !tm.OK() || tm.Target != "big" {
			t.Errorf("invalid, OK(), Target = %v, %v, %q, want false, true, big", invalid, tm.OK(), tm.Target)
		}
		if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrInvalidOutput) {
			t.Errorf("Attempts[0].Err = %v, want ErrInvalidOutput", tm.Attempts[0].Err)
		}
	})
}

// TestCallValidator: a validator given per call through the context
// replaces the routes'.
func TestCallValidator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{}, validateSim(), route("small"))
		ctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Validator: validJSON})
		s := r.NewStreaming(ctx, chat("small", 10))
		readAll(t, s)
		if !errors.Is(s.Err(), tokenpace.ErrInvalidOutput) {
			t.Errorf("Err() = %v, want ErrInvalidOutput", s.Err())
		}
		s = r.NewStreaming(context.Background(), chat("small", 10))
		readAll(t, s)
		if err := s.Err(); err != nil {
			t.Errorf("without the call's validator: Err() = %v, want nil", err)
		}
	})
}

// validJSON is a Validator that accepts text that parses as JSON.
func validJSON(text string) error {
	if !json.Valid([]byte(text)) {
		return errors.New("not valid JSON")
	}
	return nil
}
