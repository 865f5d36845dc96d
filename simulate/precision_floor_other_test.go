//go:build unix && !linux

package simulate_test

import (
	"context"
	"net"
	"net/http"
)

// floorServer is the "floor" mode of the online-precision measurement,
// which needs Linux; elsewhere it answers 501.
type floorServer struct{}

func newFloorServer(bool) *floorServer { return &floorServer{} }

func (f *floorServer) connContext(ctx context.Context, _ net.Conn) context.Context { return ctx }

func (f *floorServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNotImplemented)
}
