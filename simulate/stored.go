package simulate

import (
	"encoding/binary"
	"hash/fnv"
	"sync"
)

// maxStoredResponses bounds how many Responses API responses a Server
// keeps for later turns to name; the oldest goes first. Each takes a few
// dozen bytes (no text is kept), so a client that never chains its turns
// costs a bounded few hundred KiB.
const maxStoredResponses = 4096

// storedTurn is what a Server keeps of a stored response: enough for a
// later turn that names it (previous_response_id) to carry its
// conversation on.
type storedTurn struct {
	hash   uint64 // of the turn's whole prompt, which seeds the next turn's
	key    string // the prefix key the engine keeps the prompt and reply under
	tokens int    // the prompt's and the reply's
}

// responseStore keeps the stored responses of a Server by id, at most
// maxStoredResponses of them. It is safe for concurrent use.
type responseStore struct {
	mu    sync.Mutex
	turns map[string]storedTurn
	order []string // ids, oldest first from next once full
	next  int
}

// put keeps turn under id, dropping the oldest response when full.
func (s *responseStore) put(id string, turn storedTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns == nil {
		s.turns = make(map[string]storedTurn)
	}
	if _, ok := s.turns[id]; ok {
		s.turns[id] = turn
		return
	}
	if len(s.order) < maxStoredResponses {
		s.order = append(s.order, id)
	} else {
		delete(s.turns, s.order[s.next])
		s.order[s.next] = id
		s.next = (s.next + 1) % maxStoredResponses
	}
	s.turns[id] = turn
}

// get returns the turn kept under id.
func (s *responseStore) get(id string) (storedTurn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.turns[id]
	return t, ok
}

// chainPrompt estimates the prompt of a turn that carries prev on
// (previous_response_id): prev's prompt and reply, then msgs, the new
// input. Its prefix is prev's prompt and reply, which the engine keeps
// under prev.key, so that the turn reuses what prev left in the cache.
func chainPrompt(prev storedTurn, msgs []chatMessage) promptInfo {
	p := promptInfo{tokens: prev.tokens, prefixKey: prev.key, prefixTokens: prev.tokens}
	h := fnv.New64a()
	h.Write(binary.LittleEndian.AppendUint64(nil, prev.hash))
	for _, m := range msgs {
		p.add(h, m)
	}
	p.seal(h)
	return p
}

// previousNotFound is the answer to a turn whose previous_response_id
// names no stored response, as OpenAI gives it: 400, of type
// invalid_request_error, with code previous_response_not_found.
func previousNotFound(id string) *apiError {
	return &apiError{status: 400, typ: "invalid_request_error", param: "previous_response_id", code: "previous_response_not_found",
		message: "Previous response with id '" + id + "' not found."}
}

// backgroundNotStored is the answer to a background request that sets
// store to false, as OpenAI refuses it: a background response is kept
// on the server, so it must be stored.
func backgroundNotStored() *apiError {
	return badRequest("background", "Background mode requires store to be true.")
}
