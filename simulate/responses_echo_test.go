package simulate_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// echoParams is a Responses request setting what a Response object
// echoes; it carries on resp_1, the answer to a server's first request.
func echoParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:              "m",
		Input:              responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello.")},
		Instructions:       openai.String("Be brief."),
		MaxOutputTokens:    openai.Int(50),
		Temperature:        openai.Float(0.25),
		TopP:               openai.Float(0.5),
		Background:         openai.Bool(true),
		PreviousResponseID: openai.String("resp_1"),
		Metadata:           shared.Metadata{"ticket": "T-1"},
		ParallelToolCalls:  openai.Bool(false),
		Store:              openai.Bool(true),
		TopLogprobs:        openai.Int(3),
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{
			OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptionsNone)},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
			Name: "get_weather", Parameters: map[string]any{"type": "object"}, Strict: openai.Bool(true)}}},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}},
	}
}

// checkEcho checks that r, a Response object of the request echoParams
// makes, reports the request's settings, as OpenAI's does.
func checkEcho(t *testing.T, what string, r responses.Response) {
	t.Helper()
	checks := []struct {
		field     string
		got, want any
	}{
		{"instructions", r.Instructions.OfString, "Be brief."},
		{"max_output_tokens", r.MaxOutputTokens, int64(50)},
		{"temperature", r.Temperature, 0.25},
		{"top_p", r.TopP, 0.5},
		{"background", r.Background, true},
		{"previous_response_id", r.PreviousResponseID, "resp_1"},
		{"metadata.ticket", r.Metadata["ticket"], "T-1"},
		{"parallel_tool_calls", r.ParallelToolCalls, false},
		{"store", r.JSON.ExtraFields["store"].Raw(), "true"},
		{"top_logprobs", r.TopLogprobs, int64(3)},
		{"tool_choice", string(r.ToolChoice.OfToolChoiceMode), "none"},
		{"tools", len(r.Tools), 1},
		{"text.format.type", r.Text.Format.Type, "json_object"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %s = %v, want %v", what, c.field, c.got, c.want)
		}
	}
	if len(r.Tools) == 1 && (r.Tools[0].Name != "get_weather" || r.Tools[0].Type != "function") {
		t.Errorf("%s: tools = %s, want the get_weather function", what, r.JSON.Tools.Raw())
	}
}

// The Response object, in every event that carries it and as a whole
// response, echoes what the request set: instructions, max_output_tokens,
// sampling, background, previous_response_id, metadata, tools, tool_choice,
// text.format and top_logprobs.
func TestResponsesEchoRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t)
		c := newClient(ts)
		if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{
			Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hi.")},
		}); err != nil {
			t.Fatalf("the first turn: %v", err)
		}
		s := c.Responses.NewStreaming(context.Background(), echoParams())
		defer s.Close()
		seen := 0
		for s.Next() {
			switch e := s.Current().AsAny().(type) {
			case responses.ResponseCreatedEvent:
				checkEcho(t, string(e.Type), e.Response)
				seen++
			case responses.ResponseInProgressEvent:
				checkEcho(t, string(e.Type), e.Response)
				seen++
			case responses.ResponseCompletedEvent:
				checkEcho(t, string(e.Type), e.Response)
				seen++
			}
		}
		if err := s.Err(); err != nil || seen != 3 {
			t.Fatalf("stream: %d events with a Response, error %v; want 3, nil", seen, err)
		}
		res, err := c.Responses.New(context.Background(), echoParams())
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		checkEcho(t, "whole response", *res)
	})
}

// A request that sets none of them gets OpenAI's defaults.
func TestResponsesEchoDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newClient(scripted(t))
		res, err := c.Responses.New(context.Background(), responses.ResponseNewParams{
			Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello.")},
		})
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		for field, want := range map[string]string{
			"instructions": "null", "max_output_tokens": "null", "temperature": "1.0", "top_p": "1.0",
			"background": "false", "previous_response_id": "null", "metadata": "{}", "tool_choice": `"auto"`,
			"tools": "[]", "text": `{"format":{"type":"text"}}`, "parallel_tool_calls": "true",
		} {
			if got := fieldRaw(res, field); got != want {
				t.Errorf("%s = %s, want %s", field, got, want)
			}
		}
	})
}

func fieldRaw(r *responses.Response, field string) string {
	switch field {
	case "instructions":
		return r.JSON.Instructions.Raw()
	case "max_output_tokens":
		return r.JSON.MaxOutputTokens.Raw()
	case "temperature":
		return r.JSON.Temperature.Raw()
	case "top_p":
		return r.JSON.TopP.Raw()
	case "background":
		return r.JSON.Background.Raw()
	case "previous_response_id":
		return r.JSON.PreviousResponseID.Raw()
	case "metadata":
		return r.JSON.Metadata.Raw()
	case "tool_choice":
		return r.JSON.ToolChoice.Raw()
	case "tools":
		return r.JSON.Tools.Raw()
	case "text":
		return r.JSON.Text.Raw()
	case "parallel_tool_calls":
		return r.JSON.ParallelToolCalls.Raw()
	}
	return ""
}
