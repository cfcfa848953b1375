#!/bin/sh
# images.sh writes the test images of adapters/imageadapter and the raw
# pixels that reference decoders give for them, into
# adapters/imageadapter/testdata/images (or the directory given).
#
# Every image is 32x24 (TIFF pages differ), made from one seeded plasma,
# by ImageMagick, libtiff's tools, cwebp and avifenc. Beside each image X
# the script writes X.rgba: the reference decoder's pixels as raw 8-bit
# RGBA (16-bit little endian in X.rgba16, raw CMYK in X.cmyk):
#
#   PNG, BMP, TIFF      convert X -depth 8 rgba:-    (ImageMagick)
#   JPEG                djpeg -pnm (libjpeg-turbo's defaults: integer
#                       IDCT, fancy upsampling), then ImageMagick; CMYK
#                       through ImageMagick (libjpeg's defaults too)
#   WebP                dwebp -pam (fancy upsampling; the PAM header cut off)
#   AVIF                avifdec -d 8 -u nearest, then ImageMagick
#
# The tests compare the adapters' output with these: exactly for lossless
# formats, JPEG and lossy WebP, within 2 per sample for AVIF.
#
# Needs (Debian): imagemagick libjpeg-turbo-progs webp libavif-bin
# libtiff-tools.
set -eu

out=${1:-$(dirname "$0")/../adapters/imageadapter/testdata/images}
mkdir -p "$out"
cd "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

IM=${CONVERT:-convert}
W=32x24

# The sources: an RGB plasma, a 16-bit one, and RGBA with a gradient alpha.
$IM -size $W -seed 7 plasma:fractal -depth 16 "$tmp/rgb16.png"
$IM "$tmp/rgb16.png" -depth 8 "$tmp/rgb.png"
$IM "$tmp/rgb.png" \( -size $W gradient:white-black \) -alpha off -compose copy_opacity -composite "$tmp/rgba.png"
$IM "$tmp/rgb16.png" \( -size $W gradient:white-black \) -alpha off -compose copy_opacity -composite -depth 16 "$tmp/rgba16.png"

# PNG
$IM "$tmp/rgb.png" -colorspace gray -define png:color-type=0 -define png:bit-depth=8 png-gray8.png
$IM "$tmp/rgb.png" -colorspace gray -threshold 50% -define png:color-type=0 -define png:bit-depth=1 png-gray1.png
$IM "$tmp/rgb16.png" -colorspace gray -depth 16 -define png:color-type=0 -define png:bit-depth=16 png-gray16.png
$IM "$tmp/rgba.png" -colorspace gray -define png:color-type=4 -define png:bit-depth=8 png-graya8.png
$IM "$tmp/rgb.png" -define png:color-type=2 png-rgb8.png
$IM "$tmp/rgb.png" -define png:color-type=2 -interlace PNG png-rgb8-interlaced.png
$IM "$tmp/rgba.png" -define png:color-type=6 png-rgba8.png
$IM "$tmp/rgb16.png" -depth 16 -define png:color-type=2 -define png:bit-depth=16 png-rgb16.png
$IM "$tmp/rgba16.png" -depth 16 -define png:color-type=6 -define png:bit-depth=16 png-rgba16.png
$IM "$tmp/rgb.png" -colors 16 PNG8:png-palette.png
$IM "$tmp/rgba.png" -channel A -threshold 50% +channel -colors 16 PNG8:png-palette-trns.png
# Gray and RGB with a tRNS colour key (the colour of pixel 3,3).
key=$($IM "$tmp/rgb.png" -format '%[pixel:p{3,3}]' info:)
$IM "$tmp/rgb.png" -transparent "$key" -define png:color-type=2 png-rgb8-trns.png
$IM "$tmp/rgb.png" -colorspace gray -depth 8 "$tmp/gray.png"
gkey=$($IM "$tmp/gray.png" -format '%[pixel:p{3,3}]' info:)
$IM "$tmp/gray.png" -transparent "$gkey" -define png:color-type=0 -define png:bit-depth=8 png-gray8-trns.png

# JPEG
$IM "$tmp/rgb.png" -colorspace gray -quality 92 jpeg-gray.jpg
$IM "$tmp/rgb.png" -sampling-factor 1x1 -quality 92 jpeg-rgb444.jpg
$IM "$tmp/rgb.png" -sampling-factor 2x2 -quality 92 jpeg-rgb420.jpg
$IM "$tmp/rgb.png" -sampling-factor 1x1 -quality 92 -interlace JPEG jpeg-progressive.jpg
$IM "$tmp/rgb.png" -colorspace CMYK -quality 92 jpeg-cmyk.jpg

# BMP: 1-, 4- and 8-bit palettes, 24-bit (BITMAPINFOHEADER), 32-bit (V5, alpha)
$IM "$tmp/rgb.png" -colors 2 -type Palette -compress none BMP3:bmp-1.bmp
$IM "$tmp/rgb.png" -colors 16 -type Palette -compress none BMP3:bmp-4.bmp
$IM "$tmp/rgb.png" -colors 200 -type Palette -compress none BMP3:bmp-8.bmp
$IM "$tmp/rgb.png" -type TrueColor BMP3:bmp-24.bmp
$IM "$tmp/rgba.png" -type TrueColorAlpha BMP:bmp-32.bmp

# TIFF
$IM "$tmp/rgb.png" -colorspace gray -depth 8 -compress none tiff-gray8.tif
$IM "$tmp/rgb.png" -colorspace gray -monochrome -compress none tiff-bilevel.tif
$IM "$tmp/rgb16.png" -colorspace gray -depth 16 -compress zip tiff-gray16-deflate.tif
$IM "$tmp/rgb.png" -compress lzw tiff-rgb8-lzw.tif
$IM "$tmp/rgb.png" -compress rle tiff-rgb8-packbits.tif
$IM "$tmp/rgba.png" -define tiff:alpha=unassociated -compress zip tiff-rgba8-deflate.tif
$IM "$tmp/rgb16.png" -depth 16 -compress lzw tiff-rgb16-lzw.tif
$IM "$tmp/rgba16.png" -depth 16 -define tiff:alpha=unassociated -compress none tiff-rgba16.tif
$IM "$tmp/rgb.png" -colors 200 -type Palette -compress none tiff-palette.tif
$IM "$tmp/rgb.png" -colors 16 -type Palette -compress none tiff-palette4.tif
tiffcp -c none -t -w 16 -l 16 tiff-rgb8-lzw.tif tiff-rgb8-tiled.tif
tiffcp -c lzw -r 5 tiff-rgb8-lzw.tif tiff-rgb8-strips.tif
# Three pages of different sizes and kinds.
$IM "$tmp/rgb.png" "$tmp/p1.png"
$IM "$tmp/rgb.png" -colorspace gray -resize 16x12! "$tmp/p2.png"
$IM "$tmp/rgb.png" -flip -resize 8x6! "$tmp/p3.png"
$IM "$tmp/p1.png" -compress lzw "$tmp/m1.tif"
$IM "$tmp/p2.png" -colorspace gray -depth 8 -compress zip "$tmp/m2.tif"
$IM "$tmp/p3.png" -compress none "$tmp/m3.tif"
tiffcp "$tmp/m1.tif" "$tmp/m2.tif" "$tmp/m3.tif" tiff-multipage.tif

# WebP
cwebp -quiet -lossless "$tmp/rgb.png" -o webp-lossless.webp
cwebp -quiet -lossless -exact "$tmp/rgba.png" -o webp-lossless-alpha.webp
cwebp -quiet -q 80 "$tmp/rgb.png" -o webp-lossy.webp
cwebp -quiet -q 80 -alpha_q 100 -exact "$tmp/rgba.png" -o webp-lossy-alpha.webp

# AVIF (8-bit, and one 10-bit)
avifenc -s 10 --min 10 --max 20 -d 8 --yuv 444 "$tmp/rgb.png" avif-rgb444.avif >/dev/null
avifenc -s 10 --min 10 --max 20 -d 8 --yuv 420 "$tmp/rgb.png" avif-rgb420.avif >/dev/null
avifenc -s 10 --min 10 --max 20 --minalpha 0 --maxalpha 0 -d 8 --yuv 444 "$tmp/rgba.png" avif-rgba.avif >/dev/null
avifenc -s 10 --min 10 --max 20 -d 8 --yuv 400 "$tmp/rgb.png" avif-gray.avif >/dev/null
# 10-bit: decoded to 8 bits.
avifenc -s 10 --min 10 --max 20 -d 10 --yuv 444 "$tmp/rgb16.png" avif-10bit.avif >/dev/null

# Orientation 6 (rotate 90 clockwise to view): a TIFF tag, and a
# TIFF-layout EXIF block in a WebP EXIF chunk and a JPEG APP1 segment.
$IM "$tmp/rgb.png" -colorspace gray -depth 8 -compress none tiff-orientation.tif
tiffset -s 274 6 tiff-orientation.tif
printf 'II*\000\010\000\000\000\001\000\022\001\003\000\001\000\000\000\006\000\000\000\000\000\000\000' >"$tmp/exif.bin"
webpmux -set exif "$tmp/exif.bin" webp-lossy.webp -o webp-orientation.webp >/dev/null
python3 -c 'import sys; j=open(sys.argv[1],"rb").read(); e=b"Exif\0\0"+open(sys.argv[2],"rb").read(); n=len(e)+2
open(sys.argv[3],"wb").write(j[:2]+b"\xff\xe1"+bytes([n>>8,n&255])+e+j[2:])' jpeg-gray.jpg "$tmp/exif.bin" jpeg-orientation.jpg

# An embedded ICC profile (ghostscript's sRGB, from libgs-common, a
# dependency of ImageMagick): PNG iCCP, JPEG APP2, TIFF tag 34675.
icc=/usr/share/color/icc/ghostscript/srgb.icc
$IM "$tmp/rgb.png" -profile "$icc" png-icc.png
$IM "$tmp/rgb.png" -profile "$icc" -quality 92 -sampling-factor 1x1 jpeg-icc.jpg
$IM "$tmp/rgb.png" -profile "$icc" -compress lzw tiff-icc.tif

# References.
for f in png-* bmp-* tiff-*.tif; do
	case $f in *.rgba | *.rgba16 | *.cmyk) continue ;; esac
	case $f in
	*16*) $IM "$f" -depth 16 -endian LSB rgba:"$f.rgba16" ;;
	tiff-multipage.tif)
		for i in 0 1 2; do $IM "$f[$i]" -depth 8 rgba:"$f.$i.rgba"; done
		;;
	*) $IM "$f" -depth 8 rgba:"$f.rgba" ;;
	esac
done
for f in jpeg-*.jpg; do
	case $f in
	*cmyk*) $IM "$f" -depth 8 cmyk:"$f.cmyk" ;;
	*) djpeg -pnm "$f" | $IM - -depth 8 rgba:"$f.rgba" ;;
	esac
done
for f in webp-*.webp; do
	dwebp -quiet "$f" -pam -o "$tmp/x.pam"
	# The PAM header ends with "ENDHDR\n".
	python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.index(b"ENDHDR\n")+7; open(sys.argv[2],"wb").write(d[i:])' "$tmp/x.pam" "$f.rgba"
done
for f in avif-*.avif; do
	avifdec -d 8 -u nearest "$f" "$tmp/x.png" >/dev/null
	$IM "$tmp/x.png" -depth 8 rgba:"$f.rgba"
done
