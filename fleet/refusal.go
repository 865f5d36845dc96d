package fleet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// refusal is what a Redis that answers refuses the fleet, read from its
// error reply, with what to change.
type refusal struct {
	prefixes []string // starts of the error reply, any of which says it
	advice   string
}

// refusals are the refusals of a Redis deployment that is up but not
// set up for the fleet. Redis words an ACL denial in a script
// differently by version: 7.0 "The user executing the script can't run
// this command or subcommand" (or "can't access at least one of the
// keys"), naming neither; 7.2 "ACL failure in script: ... no
// permissions to run the 'time' command"; a command of its own
// "NOPERM ..." (redis/redis, src/acl.c, getAclErrorMessage; src/script.c).
var refusals = []refusal{
	{
		prefixes: []string{"NOPERM ", "ERR ACL failure in script", "ERR The user executing the script can't"},
		advice: "the Redis user lacks a permission the fleet needs: its commands and keys are in the " +
			"package documentation, \"Redis permissions\"; ACL LOG names the one refused",
	},
	{prefixes: []string{"READONLY "}, advice: "Redis is a read-only replica: give the fleet a client of the primary"},
	{prefixes: []string{"OOM "}, advice: "Redis is out of memory (maxmemory) and evicts nothing: free memory, raise maxmemory or choose an eviction policy"},
}

// explain returns err, a Redis error reply that says the deployment
// refuses the fleet, with what to change; other errors as they are. The
// result wraps err.
func explain(err error) error {
	var reply redis.Error
	if !errors.As(err, &reply) {
		return err
	}
	msg := reply.Error()
	for _, r := range refusals {
		for _, p := range r.prefixes {
			if strings.HasPrefix(msg, p) {
				return fmt.Errorf("%w (%s)", err, r.advice)
			}
		}
	}
	return err
}
