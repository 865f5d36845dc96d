package simulate

import (
	"net/http"
	"time"
)

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req chatRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	maxTokens, param := req.MaxTokens, "max_tokens"
	if req.MaxCompletionTokens != nil {
		maxTokens, param = req.MaxCompletionTokens, "max_completion_tokens"
	}
	g, e := s.newGeneration(&req.commonRequest, maxTokens, param)
	if e == nil && len(req.Messages) == 0 {
		e = badRequest("messages", "messages must hold at least one message")
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g.prompt = chatPrompt(req.Messages)
	g.lastMessage = req.Messages[len(req.Messages)-1].text
	g.api = apiChat
	for _, t := range req.Tools {
		g.tools = append(g.tools, t.Function.Name)
	}
	s.serve(w, r, sent, &g)
}

// completions serves POST /v1/completions: a prompt, and for
// fill-in-the-middle a suffix, whose tokens count as prompt tokens.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req completionRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	g, e := s.newGeneration(&req.commonRequest, req.MaxTokens, "max_tokens")
	var ids int
	if e == nil {
		g.lastMessage, ids, e = req.Prompt.parse()
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g.api = apiText
	if req.Suffix != nil {
		g.suffix = *req.Suffix
	}
	g.prompt = fimPrompt(g.lastMessage, g.suffix)
	if ids > 0 {
		g.prompt.tokens = ids + textTokens(g.suffix)
	}
	s.serve(w, r, sent, &g)
}

// responses serves POST /v1/responses.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req responsesRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	g, e := s.newGeneration(&commonRequest{Model: req.Model, Stream: req.Stream}, req.MaxOutputTokens, "max_output_tokens")
	var msgs []chatMessage
	if e == nil {
		msgs, e = parseInput(req.Input)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	if req.Instructions != "" {
		msgs = append([]chatMessage{{Role: "system", text: req.Instructions}}, msgs...)
	}
	g.prompt = chatPrompt(msgs)
	g.lastMessage = msgs[len(msgs)-1].text
	g.api = apiResponses
	for _, t := range req.Tools {
		g.tools = append(g.tools, t.Name)
	}
	s.serve(w, r, sent, &g)
}
