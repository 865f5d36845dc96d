package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// errNotJSON is a validator's own error, which errors.As finds behind a
// KindInvalid *StreamError.
type errNotJSON struct{ start string }

func (e errNotJSON) Error() string { return "not JSON: starts with " + e.start }

// A call ends with a *StreamError whose Kind says how: here a validator
// rejects the output, then a route's breaker opens after a 503 and the next
// call is not sent at all. errors.Is and errors.As reach the causes.
func ExampleStreamError() {
	url, stop := startTwoModels()
	defer stop()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-..."), option.WithMaxRetries(0)))
	ask := openai.ChatCompletionNewParams{Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")}}
	read := func(s *tokenpace.Stream[openai.ChatCompletionChunk]) error {
		for s.Next() {
		}
		s.Close()
		return s.Err()
	}

	validated, err := tokenpace.NewRouter(client, tokenpace.Policy{Validator: func(text string) error {
		if !strings.HasPrefix(text, "{") {
			return errNotJSON{start: text[:min(len(text), 5)]}
		}
		return nil
	}}, tokenpace.Route{Name: "small", Model: "small"})
	if err != nil {
		panic(err)
	}
	err = read(validated.NewStreaming(context.Background(), ask))
	var se *tokenpace.StreamError
	var nj errNotJSON
	if errors.As(err, &se) && errors.As(err, &nj) {
		fmt.Println(se.Kind, "on", se.Target, "|", errors.Is(err, tokenpace.ErrInvalidOutput), "|", nj.start)
	}

	failing, err := tokenpace.NewRouter(client, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
		tokenpace.Route{Name: "small", Model: "small", Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "503")}})
	if err != nil {
		panic(err)
	}
	for range 2 {
		err = read(failing.NewStreaming(context.Background(), ask))
		if errors.As(err, &se) {
			fmt.Println(se.Kind, "on", se.Target, "| circuit open:", errors.Is(err, tokenpace.ErrCircuitOpen))
		}
	}
	// Output:
	// output rejected on small | true | Hello
	// request failed on small | circuit open: false
	// skipped on small | circuit open: true
}
