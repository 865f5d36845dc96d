package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkOutputDir refuses an output file (of flag) whose directory does
// not exist, so that a run does not end, minutes or hours later, on a
// file it cannot create; "" (no file) is fine.
func checkOutputDir(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	switch st, err := os.Stat(dir); {
	case err != nil:
		return fmt.Errorf("--%s %q: directory %s does not exist", flag, path, dir)
	case !st.IsDir():
		return fmt.Errorf("--%s %q: %s is not a directory", flag, path, dir)
	}
	return nil
}
