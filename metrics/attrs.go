package metrics

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/tokenpace/tokenpace"
)

// maxCachedSets bounds the attribute-set cache; past it, sets are built per
// request.
const maxCachedSets = 1024

type setsKey struct {
	target, model, responseModel, errType string
	api                                   tokenpace.API
	server                                server // the Timing's
}

// attrSets are the attribute sets of one kind of request, built once so that
// recording allocates nothing.
type attrSets struct {
	op            attribute.Set // GenAI attributes with error.type
	chunk         attribute.Set // GenAI attributes without error.type
	input, output attribute.Set // chunk with gen_ai.token.type (the conventions give token usage no error.type)
	own           attribute.Set // tokenpace.target, gen_ai.request.model
	good, bad     attribute.Set // own with tokenpace.request.good and error.type

	// The sets as record options, boxed once.
	opOpt, chunkOpt, inputOpt, outputOpt, ownOpt, goodOpt, badOpt []metric.RecordOption
	goodAdd, badAdd                                               []metric.AddOption
}

func (o *OTel) setsFor(t *tokenpace.Timing) *attrSets {
	k := setsKey{t.Target, t.Model, t.ResponseModel, ErrorType(t.Err), t.API, server{t.ServerAddress, t.ServerPort}}
	o.setsMu.RLock()
	s := o.sets[k]
	o.setsMu.RUnlock()
	if s != nil {
		return s
	}
	s = o.buildSets(k)
	o.setsMu.Lock()
	if len(o.sets) < maxCachedSets {
		o.sets[k] = s
	}
	o.setsMu.Unlock()
	return s
}

func (o *OTel) buildSets(k setsKey) *attrSets {
	chunk := []attribute.KeyValue{
		semconv.GenAIOperationNameKey.String(string(operationName(k.api))),
		semconv.GenAIProviderNameKey.String(o.cfg.provider),
	}
	if k.model != "" {
		chunk = append(chunk, semconv.GenAIRequestModel(k.model))
	}
	if k.responseModel != "" {
		chunk = append(chunk, semconv.GenAIResponseModel(k.responseModel))
	}
	if srv, ok := o.server(k.target, k.server); ok {
		chunk = append(chunk, semconv.ServerAddress(srv.address))
		if srv.port > 0 {
			chunk = append(chunk, semconv.ServerPort(srv.port))
		}
	}
	if k.target != "" {
		chunk = append(chunk, attrTarget.String(k.target))
	}
	// withErr returns base with error.type, if any, in a new slice.
	withErr := func(base []attribute.KeyValue) []attribute.KeyValue {
		if k.errType == "" {
			return base
		}
		return append(base[:len(base):len(base)], semconv.ErrorTypeKey.String(k.errType))
	}
	with := func(base []attribute.KeyValue, kv ...attribute.KeyValue) attribute.Set {
		return attribute.NewSet(append(base[:len(base):len(base)], kv...)...)
	}
	op := withErr(chunk)
	own := []attribute.KeyValue{semconv.GenAIRequestModel(k.model)}
	if k.target != "" {
		own = append(own, attrTarget.String(k.target))
	}
	bad := withErr(own)
	s := &attrSets{
		op:     attribute.NewSet(op...),
		chunk:  attribute.NewSet(chunk...),
		input:  with(chunk, semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeInput))),
		output: with(chunk, semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeOutput))),
		own:    attribute.NewSet(own...),
		good:   with(own, attrGood.Bool(true)),
		bad:    with(bad, attrGood.Bool(false)),
	}
	rec := func(set attribute.Set) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(set)}
	}
	add := func(set attribute.Set) []metric.AddOption {
		return []metric.AddOption{metric.WithAttributeSet(set)}
	}
	s.opOpt, s.chunkOpt, s.inputOpt, s.outputOpt = rec(s.op), rec(s.chunk), rec(s.input), rec(s.output)
	s.ownOpt, s.goodOpt, s.badOpt = rec(s.own), rec(s.good), rec(s.bad)
	s.goodAdd, s.badAdd = add(s.good), add(s.bad)
	return s
}

// server returns the server of a request to target: the one WithServer set
// for target, else the one the Timing recorded (measured), else the one
// WithServer set for "".
func (o *OTel) server(target string, measured server) (server, bool) {
	if s, ok := o.cfg.servers[target]; ok {
		return s, true
	}
	if measured.address != "" {
		return measured, true
	}
	s, ok := o.cfg.servers[""]
	return s, ok
}

// operationName returns the gen_ai.operation.name of a call to api:
// text_completion for the completions API, chat for chat completions and
// for the Responses API, as the OpenAI semantic conventions name both.
func operationName(api tokenpace.API) genaiconv.OperationNameAttr {
	if api == tokenpace.APICompletions {
		return genaiconv.OperationNameTextCompletion
	}
	return genaiconv.OperationNameChat
}
