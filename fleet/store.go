package fleet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// ErrLocked is the error of Store.Lock when another holder has the lock.
var ErrLocked = errors.New("fleet: lock held elsewhere")

// ErrNotLocked is the error of Store.Unlock when this Store does not hold
// the lock (it was never taken, or it expired and was taken elsewhere).
var ErrNotLocked = errors.New("fleet: lock not held")

// LockTTL is how long a Store's lock lives when its holder never releases
// it (a replica that dies holding it). It is shorter than the five
// seconds gobreaker waits for a lock, so a dead holder never blocks the
// fleet's breakers for good.
const LockTTL = 2 * time.Second

// Store is a gobreaker.SharedDataStore on Redis: the shared state of a
// gobreaker.DistributedCircuitBreaker lives in one key, guarded by a lock
// taken with SET NX and an expiry (LockTTL) and released by a Lua script
// only by its holder. Keys start with the prefix (WithPrefix).
//
// A Store is safe for concurrent use. It is for a
// gobreaker.DistributedCircuitBreaker of one's own; a Breaker does not
// use one (its state machine runs inside Redis, one round trip per
// update, without a lock).
type Store struct {
	rdb   redis.UniversalClient
	cfg   config
	token string
}

var _ gobreaker.SharedDataStore = (*Store)(nil)

// NewStore returns a Store on rdb. WithPrefix and WithTimeout apply;
// errors are returned to the caller, not to WithErrorHandler.
func NewStore(rdb redis.UniversalClient, opts ...Option) *Store {
	return &Store{rdb: rdb, cfg: newConfig(opts), token: rand.Text()}
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.cfg.timeout)
}

// Lock takes the lock name, or returns ErrLocked when it is held
// elsewhere, or Redis's error.
func (s *Store) Lock(name string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	ok, err := s.rdb.SetNX(ctx, s.cfg.prefix+name, s.token, LockTTL).Result()
	if err != nil {
		return fmt.Errorf("fleet: lock %s: %w", name, explain(err))
	}
	if !ok {
		return ErrLocked
	}
	return nil
}

// unlock deletes a lock only if it still holds this Store's token.
var unlock = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// Unlock releases the lock name, or returns ErrNotLocked when this Store
// does not hold it, or Redis's error.
func (s *Store) Unlock(name string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := unlock.Run(ctx, s.rdb, []string{s.cfg.prefix + name}, s.token).Int()
	if err != nil {
		return fmt.Errorf("fleet: unlock %s: %w", name, explain(err))
	}
	if n == 0 {
		return ErrNotLocked
	}
	return nil
}

// GetData returns the data stored under name; nil and no error when there
// is none.
func (s *Store) GetData(name string) ([]byte, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	b, err := s.rdb.Get(ctx, s.cfg.prefix+name).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: get %s: %w", name, explain(err))
	}
	return b, nil
}

// SetData stores data under name, without expiry.
func (s *Store) SetData(name string, data []byte) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.rdb.Set(ctx, s.cfg.prefix+name, data, 0).Err(); err != nil {
		return fmt.Errorf("fleet: set %s: %w", name, explain(err))
	}
	return nil
}
