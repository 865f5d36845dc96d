package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// writeCanvas has paint draw on a w×h canvas in the format path's
// extension names (PNG or SVG) and writes the canvas to path.
func writeCanvas(path string, w, h vg.Length, paint func(draw.Canvas)) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	paint(draw.New(c))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkPlotName refuses a --plot file name whose extension names no
// format writeCanvas is asked to draw; "" (no plot) is fine.
func checkPlotName(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg":
		return nil
	}
	if path == "" {
		return nil
	}
	return fmt.Errorf("--plot %q: want a .png or .svg file name", path)
}
