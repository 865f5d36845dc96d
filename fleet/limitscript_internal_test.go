package fleet

import (
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
)

func TestParseReserve(t *testing.T) {
	at := time.Unix(1000, 0)
	tests := []struct {
		name      string
		v         []int64
		wantErr   bool
		want      reserveReply
		wantState *sharedState
	}{
		{"too large", []int64{-1}, false, reserveReply{tooLarge: true}, nil},
		{"limit alone", []int64{250, 1}, false, reserveReply{wait: 250 * time.Microsecond, leased: true}, nil},
		{"closed, not expiring", []int64{0, 0, 0, 7, -1}, false, reserveReply{}, &sharedState{gen: 7}},
		{"closed, expiring", []int64{0, 0, 0, 7, 5}, false, reserveReply{},
			&sharedState{gen: 7, expiry: at.Add(5 * time.Microsecond)}},
		{"moved on", []int64{3, 0, 1, 8, -1, 0, 0, 0, 0, 0, 0, 2, 2, 1}, false, reserveReply{wait: 3 * time.Microsecond},
			&sharedState{state: gobreaker.StateHalfOpen, gen: 8, visited: []gobreaker.State{gobreaker.StateOpen, gobreaker.StateHalfOpen}}},
		{"empty", nil, true, reserveReply{}, nil},
		{"one, not -1", []int64{5}, true, reserveReply{}, nil},
		{"three", []int64{0, 0, 0}, true, reserveReply{}, nil},
		{"moved on, truncated", []int64{0, 0, 1, 8, -1, 0, 0, 0, 0, 0, 0, 3, 2}, true, reserveReply{}, nil},
	}
	for _, tt := range tests {
		got, err := parseReserve(tt.v, at)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: parseReserve(%v) error = %v, want error: %v", tt.name, tt.v, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if got.tooLarge != tt.want.tooLarge || got.wait != tt.want.wait || got.leased != tt.want.leased {
			t.Errorf("%s: parseReserve(%v) = %+v, want %+v", tt.name, tt.v, got, tt.want)
		}
		switch {
		case (got.state == nil) != (tt.wantState == nil):
			t.Errorf("%s: parseReserve(%v) state = %v, want %v", tt.name, tt.v, got.state, tt.wantState)
		case got.state != nil:
			g, w := got.state, tt.wantState
			if g.state != w.state || g.gen != w.gen || !g.expiry.Equal(w.expiry) || len(g.visited) != len(w.visited) {
				t.Errorf("%s: parseReserve(%v) state = %+v, want %+v", tt.name, tt.v, *g, *w)
			}
		}
	}
}
