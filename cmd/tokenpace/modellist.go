package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/pagination"
)

// notAPIError is a model list answered with a success status but a body
// that is no OpenAI model list: most often a web page, from a base URL
// that lacks the API's path (a server's web UI at /, the API under /v1).
type notAPIError struct {
	path        string // the model list's URL path, e.g. /v1/models
	status      int
	contentType string
}

// Error says what came back and what to check, in place of openai-go's
// words about destination types or JSON parsing.
func (e *notAPIError) Error() string {
	body := "a body"
	if e.contentType != "" {
		body = "a body of type " + e.contentType
	}
	return fmt.Sprintf("GET %s came back %d %s with %s, no JSON model list: check that the base URL is the API's (OpenAI-compatible servers serve it under a path such as /v1)",
		e.path, e.status, http.StatusText(e.status), body)
}

// listModels lists the models of the endpoint oc reaches. A success
// status whose body is no JSON (by its type or by its text) is a
// *notAPIError; other errors are openai-go's (an
// *openai.Error for an error status, a transport error when nothing
// answered or the body was cut).
func listModels(ctx context.Context, oc openai.Client) (*pagination.Page[openai.Model], error) {
	var answer *http.Response
	tap := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		answer = res
		return res, err
	})
	page, err := oc.Models.List(ctx, tap)
	if err == nil || answer == nil || answer.StatusCode >= 400 {
		return page, err
	}
	var syntax *json.SyntaxError
	if !isJSON(answer.Header.Get("Content-Type")) || errors.As(err, &syntax) {
		e := &notAPIError{path: "models", status: answer.StatusCode, contentType: answer.Header.Get("Content-Type")}
		if answer.Request != nil {
			e.path = answer.Request.URL.Path // the path alone: the query may hold a key (?key=)
		}
		return nil, e
	}
	return page, err
}

// isJSON reports whether a Content-Type is JSON's, as openai-go judges it
// before decoding a body.
func isJSON(contentType string) bool {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	return strings.Contains(mediaType, "application/json") || strings.HasSuffix(mediaType, "+json")
}
