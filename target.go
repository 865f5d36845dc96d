package tokenpace

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Target is one place a request can go: an OpenAI-compatible endpoint and
// the model to ask there.
type Target struct {
	// Name identifies the target in Timing, errors and metrics; the zero
	// value "" is allowed for a single target.
	Name string
	// Client sends the requests; nil means the Client's own.
	Client *openai.Client
	// Model replaces the request's model; "" keeps it.
	Model string
	// Options are appended to the request's own options (a base URL, an API
	// key, headers); nil adds none.
	Options []option.RequestOption
}
