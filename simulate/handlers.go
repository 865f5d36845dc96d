package simulate

import (
	"net/http"
	"time"
)

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	serveRequest(s, w, r, s.chatGeneration)
}

// chatGeneration is the generation a chat completions request asks for.
func (s *Server) chatGeneration(req *chatRequest) (generation, *apiError) {
	maxTokens, param := req.MaxTokens, "max_tokens"
	if req.MaxCompletionTokens != nil {
		maxTokens, param = req.MaxCompletionTokens, "max_completion_tokens"
	}
	g, e := s.newGeneration(&req.commonRequest, maxTokens, param)
	if e == nil && len(req.Messages) == 0 {
		e = badRequest("messages", "messages must hold at least one message")
	}
	if e == nil {
		e = checkMessages(req.Messages)
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e == nil {
		g.logprobs, e = chatLogprobs(req.Logprobs, req.TopLogprobs)
	}
	if e != nil {
		return g, e
	}
	g.prompt = chatPrompt(req.Messages)
	g.lastMessage = req.Messages[len(req.Messages)-1].text
	g.api = apiChat
	for _, t := range req.Tools {
		g.tools = append(g.tools, t.Function.Name)
	}
	return g, nil
}

// completions serves POST /v1/completions: a prompt, and for
// fill-in-the-middle a suffix, whose tokens count as prompt tokens. With
// echo, the reply starts with the prompt.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	serveRequest(s, w, r, s.completionGeneration)
}

// completionGeneration is the generation a completions request asks for.
func (s *Server) completionGeneration(req *completionRequest) (generation, *apiError) {
	g, e := s.newGeneration(&req.commonRequest, req.MaxTokens, "max_tokens")
	var ids int
	if e == nil {
		g.lastMessage, ids, e = req.Prompt.parse()
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e == nil {
		g.logprobs, e = legacyLogprobs(req.Logprobs)
	}
	if e == nil && req.Echo {
		if ids > 0 {
			e = badRequest("echo", "echo of a prompt of token ids is not supported by the simulator: it has no tokenizer to give their text back")
		}
		g.echo = g.lastMessage
	}
	if e != nil {
		return g, e
	}
	g.api = apiText
	if req.Suffix != nil {
		g.suffix = *req.Suffix
	}
	g.prompt = fimPrompt(g.lastMessage, g.suffix)
	if ids > 0 {
		// The ids are counted, not read: no key tells one such prompt
		// from another.
		g.prompt.tokens, g.prompt.nextKey = ids+textTokens(g.suffix), ""
	}
	return g, nil
}

// responses serves POST /v1/responses.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	serveRequest(s, w, r, s.responseGeneration)
}

// responseGeneration is the generation a Responses API request asks for.
func (s *Server) responseGeneration(req *responsesRequest) (generation, *apiError) {
	g, e := s.newGeneration(&commonRequest{Model: req.Model, Stream: req.Stream, sampling: req.sampling}, req.MaxOutputTokens, "max_output_tokens")
	var msgs []chatMessage
	if e == nil {
		msgs, e = parseInput(req.Input)
	}
	if e == nil {
		g.logprobs, e = responsesLogprobs(req.TopLogprobs, req.Include)
	}
	if e != nil {
		return g, e
	}
	if req.Instructions != "" {
		msgs = append([]chatMessage{{Role: "system", text: req.Instructions}}, msgs...)
	}
	g.prompt = chatPrompt(msgs)
	if id := req.PreviousResponseID; id != nil {
		prev, ok := s.stored.get(*id)
		if !ok {
			return g, previousNotFound(*id)
		}
		g.prompt = chainPrompt(prev, msgs)
	}
	g.store = req.Store == nil || *req.Store
	g.background = req.Background != nil && *req.Background
	if g.background && !g.store {
		return g, backgroundNotStored()
	}
	g.lastMessage = msgs[len(msgs)-1].text
	g.api = apiResponses
	g.tools = req.Tools.names
	g.responseSettings = responseSettings(req)
	return g, nil
}

// serveRequest decodes r's body into a Req, has build turn it into a
// generation and serves that, timed from the request's arrival; an error of
// either step is written as the API's error instead.
func serveRequest[Req any](s *Server, w http.ResponseWriter, r *http.Request, build func(*Req) (generation, *apiError)) {
	sent := time.Now()
	var req Req
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	g, e := build(&req)
	if e == nil {
		e = g.fitContext()
	}
	if e != nil {
		writeError(w, e)
		return
	}
	s.serve(w, r, sent, &g)
}
