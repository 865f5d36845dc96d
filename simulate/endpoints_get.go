package simulate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// modelEntry is a model object of the models API.
type modelEntry struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) modelEntry(name string) modelEntry {
	return modelEntry{ID: name, Object: "model", Created: s.cfg.created, OwnedBy: "tokenpace"}
}

// getModel serves GET /v1/models/{model}.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	if _, ok := s.models[name]; !ok {
		writeError(w, modelNotFound(name))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.modelEntry(name))
}

// listModels serves GET /v1/models.
func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	type entry = modelEntry
	body := struct {
		Object string  `json:"object"`
		Data   []entry `json:"data"`
	}{Object: "list", Data: []entry{}}
	for _, name := range s.names {
		body.Data = append(body.Data, s.modelEntry(name))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// health serves GET /health: 200 while the server serves, 503 once Close
// has stopped its drivers (completions then get 503 too).
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if s.closing.Err() != nil {
		writeError(w, &apiError{status: http.StatusServiceUnavailable, message: "server is shutting down"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// metrics serves GET /metrics: each model's Stats in the Prometheus text
// exposition format, labelled by model, and a histogram of how late the
// server wrote response bytes (its own timing error, which stays near zero
// unless the machine is overloaded), and the count of stream chunks its
// drivers wrote straight to their connections (ConnContext).
func (s *Server) metrics(w http.ResponseWriter, _ *http.Request) {
	stats := make([]Stats, len(s.names))
	for i, name := range s.names {
		stats[i] = s.models[name].driver.snapshot()
	}
	var b strings.Builder
	metric := func(name, kind, help string, value func(Stats) float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
		for i, m := range s.names {
			fmt.Fprintf(&b, "%s{model=%q} %g\n", name, m, value(stats[i]))
		}
	}
	metric("tokenpace_sim_requests_waiting", "gauge", "Requests queued for a slot.",
		func(s Stats) float64 { return float64(s.Waiting) })
	metric("tokenpace_sim_requests_running", "gauge", "Requests prefilling or decoding.",
		func(s Stats) float64 { return float64(s.Running) })
	metric("tokenpace_sim_kv_cache_usage_ratio", "gauge", "Fraction of KV-cache blocks in use.",
		func(s Stats) float64 { return s.KVUsage })
	metric("tokenpace_sim_kv_cache_offloaded", "gauge", "1 while the KV cache spills to host memory.",
		func(s Stats) float64 {
			if s.Offloaded {
				return 1
			}
			return 0
		})
	metric("tokenpace_sim_prompt_tokens_total", "counter", "Prompt tokens admitted.",
		func(s Stats) float64 { return float64(s.PromptTokens) })
	metric("tokenpace_sim_prefix_cache_hit_tokens_total", "counter", "Prompt tokens served from the prefix cache.",
		func(s Stats) float64 { return float64(s.PrefixHits) })
	metric("tokenpace_sim_generation_tokens_total", "counter", "Tokens generated.",
		func(s Stats) float64 { return float64(s.GeneratedTotal) })
	metric("tokenpace_sim_preemptions_total", "counter", "Sequences preempted for lack of KV blocks.",
		func(s Stats) float64 { return float64(s.Preemptions) })
	s.late.write(&b)
	s.direct.write(&b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String()))
}
