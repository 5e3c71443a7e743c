//go:build ignore

// icons_gen draws the app's icons (static/icon-192.png, static/icon-512.png)
// as static/icon-app.svg does: an open ring with a dot on the green of the
// theme, filling the square so that a phone may mask it to any shape.
// Run it with "go run icons_gen.go" in this folder after changing the drawing.
package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
)

func main() {
	for _, size := range []int{192, 512} {
		if err := write(size); err != nil {
			panic(err)
		}
	}
}

// inside reports whether a point of the 512-unit drawing is white.
func inside(x, y float64) bool {
	const cx, cy, r, half = 260, 289.5, 96, 18
	dx, dy := x-cx, y-cy
	d := math.Hypot(dx, dy)
	gap := math.Abs(math.Atan2(dx, dy)) < math.Atan2(84, 46.5) // the opening, below the centre
	switch {
	case math.Abs(d-r) <= half && !gap:
		return true
	case math.Hypot(x-176, y-336) <= half: // the round cap
		return true
	case math.Hypot(x-344, y-336) <= 30: // the dot
		return true
	}
	return false
}

func write(size int) error {
	green := color.RGBA{0x24, 0x61, 0x3f, 0xff}
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	const samples = 4 // per side, to smooth the edges
	scale := 512 / float64(size)
	for py := range size {
		for px := range size {
			white := 0
			for sy := range samples {
				for sx := range samples {
					x := (float64(px) + (float64(sx)+0.5)/samples) * scale
					y := (float64(py) + (float64(sy)+0.5)/samples) * scale
					if inside(x, y) {
						white++
					}
				}
			}
			mix := func(c uint8) uint8 { return uint8((int(c)*(samples*samples-white) + 255*white) / (samples * samples)) }
			img.SetRGBA(px, py, color.RGBA{mix(green.R), mix(green.G), mix(green.B), 0xff})
		}
	}
	f, err := os.Create("static/icon-" + strconv.Itoa(size) + ".png")
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}
