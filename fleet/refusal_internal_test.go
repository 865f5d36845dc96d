package fleet

import (
	"errors"
	"strings"
	"testing"
)

// replyError is an error reply of Redis, as go-redis returns it.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		err    error
		advice string // "" for none
	}{
		// Redis 7.0, a command of a script denied; a key of a script denied
		{replyError("ERR The user executing the script can't run this command or subcommand script: 104a, on @user_script:1."), "lacks a permission"},
		{replyError("ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: 104a, on @user_script:1."), "lacks a permission"},
		// Redis 7.2 and later, in a script; and a command of the client's own
		{replyError("ERR ACL failure in script: User fleet has no permissions to run the 'time' command script: 8a2f, on @user_script:4."), "lacks a permission"},
		{replyError("NOPERM User fleet has no permissions to run the 'evalsha' command"), "lacks a permission"},
		{replyError("READONLY You can't write against a read only replica. script: 57b4, on @user_script:53."), "read-only replica"},
		{replyError("OOM command not allowed when used memory > 'maxmemory'."), "out of memory"},
		{replyError("ERR unknown command 'evalsha'"), ""},
		{errors.New("NOPERM, but not a reply of Redis"), ""},
	} {
		got := explain(c.err)
		if !errors.Is(got, c.err) {
			t.Errorf("explain(%q) = %q, which does not wrap it", c.err, got)
		}
		if c.advice == "" && got.Error() != c.err.Error() {
			t.Errorf("explain(%q) = %q, want it unchanged", c.err, got)
		}
		if c.advice != "" && !strings.Contains(got.Error(), c.advice) {
			t.Errorf("explain(%q) = %q, want it to say %q", c.err, got, c.advice)
		}
	}
}
