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
	g.chat = true
	s.serve(w, r, sent, &g)
}

// completions serves POST /v1/completions.
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
		g.lastMessage, ids, e = parsePrompt(req.Prompt)
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g.prompt = textPrompt(g.lastMessage)
	if ids > 0 {
		g.prompt.tokens = ids
	}
	s.serve(w, r, sent, &g)
}
