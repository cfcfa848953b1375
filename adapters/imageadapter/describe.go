package imageadapter

import (
	"fmt"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ array.SourceDescriber = (*Image)(nil)
	_ array.Picture         = (*Image)(nil)
)

// DescribeNode describes what the image adds to its array node: the
// section "image", its JSON the Image's, its lines the format, channels,
// colour model, bit depth, alpha, gamma, sRGB, ICC profile, orientation,
// codec and page.
func (im *Image) DescribeNode() driver.Field {
	s := driver.Description{{Value: im}}
	line := func(label, format string, args ...any) {
		s = append(s, driver.Field{Label: label, Text: fmt.Sprintf(format, args...)})
	}
	line("format", "%s", im.Format)
	line("channels", "%s", im.Channels)
	model := im.ColorModel
	if im.PaletteSize > 0 {
		model += fmt.Sprintf(" (%d entries)", im.PaletteSize)
	}
	line("color", "%s", model)
	if im.BitDepth > 0 {
		line("bit depth", "%d", im.BitDepth)
	}
	if im.Transparency {
		line("alpha", "yes")
	}
	if im.AssociatedAlpha {
		line("alpha", "associated (premultiplied, as stored)")
	}
	if im.Gamma != 0 {
		line("gamma", "%g", im.Gamma)
	}
	if im.SRGB {
		line("sRGB", "yes")
	}
	icc := "none"
	if im.ICC {
		icc = "embedded (not applied)"
	}
	line("ICC", "%s", icc)
	if im.Orientation != 0 {
		line("orient", "%d (not applied)", im.Orientation)
	}
	if im.Compression != "" {
		line("codec", "%s", im.Compression)
	}
	line("page", "%d of %d", im.Page+1, max(im.Pages, 1))
	return driver.Field{Key: "image", Label: "image", Fields: s}
}

// PictureChannels names the channels of the image's last axis: "gray",
// "gray+alpha", "RGB", "RGBA" or "CMYK".
func (im *Image) PictureChannels() string { return im.Channels }
