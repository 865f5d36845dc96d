package fleet_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tokenpace/tokenpace/fleet"
)

func TestStoreLock(t *testing.T) {
	srv := startRedis(t)
	a, b := fleet.NewStore(srv.client(t)), fleet.NewStore(srv.client(t))
	steps := []struct {
		name string
		op   func() error
		want error
	}{
		{"a.Lock", func() error { return a.Lock("m") }, nil},
		{"b.Lock while a holds it", func() error { return b.Lock("m") }, fleet.ErrLocked},
		{"a.Lock again", func() error { return a.Lock("m") }, fleet.ErrLocked},
		{"b.Unlock of a's lock", func() error { return b.Unlock("m") }, fleet.ErrNotLocked},
		{"a.Unlock", func() error { return a.Unlock("m") }, nil},
		{"a.Unlock again", func() error { return a.Unlock("m") }, fleet.ErrNotLocked},
		{"b.Lock after release", func() error { return b.Lock("m") }, nil},
		{"a.Lock of another name", func() error { return a.Lock("n") }, nil},
	}
	for _, s := range steps {
		if err := s.op(); !errors.Is(err, s.want) {
			t.Fatalf("%s = %v, want %v", s.name, err, s.want)
		}
	}
}

func TestStoreData(t *testing.T) {
	srv := startRedis(t)
	a, b := fleet.NewStore(srv.client(t)), fleet.NewStore(srv.client(t))
	if got, err := a.GetData("s"); got != nil || err != nil {
		t.Fatalf("GetData of a missing key = %q, %v, want nil, nil", got, err)
	}
	if err := a.SetData("s", []byte(`{"state":2}`)); err != nil {
		t.Fatalf("SetData: %v", err)
	}
	if got, err := b.GetData("s"); !bytes.Equal(got, []byte(`{"state":2}`)) || err != nil {
		t.Fatalf("GetData from another Store = %q, %v, want %q, nil", got, err, `{"state":2}`)
	}
	other := fleet.NewStore(srv.client(t), fleet.WithPrefix("other:"))
	if got, err := other.GetData("s"); got != nil || err != nil {
		t.Fatalf("GetData under another prefix = %q, %v, want nil, nil", got, err)
	}
}

func TestStoreRedisDown(t *testing.T) {
	srv := startRedis(t)
	s := fleet.NewStore(srv.client(t))
	srv.stop()
	if err := s.Lock("m"); err == nil || errors.Is(err, fleet.ErrLocked) {
		t.Fatalf("Lock with Redis down = %v, want Redis's error", err)
	}
	if _, err := s.GetData("s"); err == nil {
		t.Fatalf("GetData with Redis down = nil error, want Redis's error")
	}
}
