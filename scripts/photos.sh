#!/bin/sh
# photos.sh writes the photographic test images of adapters/imageadapter
# and the pixels that the reference decoders give for them, with their
# default settings, into adapters/imageadapter/testdata/photos (or the
# directory given).
#
# The photograph is matplotlib's sample grace_hopper.jpg (a public-domain
# US Navy portrait, 512x600, JPEG 4:2:0, written by a camera's software,
# not by pipefs or its tools). From it:
#
#   grace_hopper.jpg        the file itself; its reference is the SHA-256
#                           of djpeg's RGB output (grace_hopper.jpg.sha256)
#   jpeg-420-crop.jpg       jpegtran -crop 161x123 (the photo's own DCT
#                           coefficients, odd width and height)
#   jpeg-420-prog.jpg       the same, made progressive by jpegtran
#   jpeg-420-tiny.jpg       jpegtran -crop 3x5 (a chroma plane 2 samples
#                           wide, which libjpeg does not filter)
#   jpeg-422.jpg, jpeg-440.jpg, jpeg-411.jpg, jpeg-444.jpg, jpeg-gray.jpg
#                           cjpeg -sample 2x1, 1x2, 4x1, 1x1, -grayscale
#                           of the 161x123 crop
#   webp-lossy.webp         cwebp -q 80 of the crop
#   webp-lossy-alpha.webp   the same with a gradient alpha
#   avif-420.avif, avif-422.avif, avif-444.avif
#                           avifenc -d 8 --yuv 420, 422, 444 of the crop
#
# Beside each image X, X.png holds the reference decoder's pixels,
# losslessly: "djpeg" (libjpeg-turbo's defaults: integer IDCT, fancy
# upsampling), "dwebp" (fancy upsampling) and "avifdec -d 8" (libavif's
# automatic chroma upsampling, which with libyuv is its bilinear filter);
# for AVIF also X.nearest.png, "avifdec -d 8 -u nearest", which is what
# the WebAssembly libavif of github.com/gen2brain/avif gives. The script
# checks that Pillow (PIL), which uses libjpeg-turbo with its defaults,
# decodes every JPEG to the same bytes as djpeg.
#
# Needs (Debian): libjpeg-turbo-progs webp libavif-bin python3-pil
# imagemagick python3-matplotlib (for sample_data/grace_hopper.jpg).
set -eu

out=${1:-$(dirname "$0")/../adapters/imageadapter/testdata/photos}
src=${GRACE:-/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg}
IM=${CONVERT:-convert}
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$out"
cd "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$src" grace_hopper.jpg
# The 512x600 RGB samples are the end of djpeg's PPM.
djpeg -pnm grace_hopper.jpg | tail -c $((512 * 600 * 3)) | sha256sum | cut -d' ' -f1 >grace_hopper.jpg.sha256

# JPEG: crops that keep the photo's coefficients (offsets on the 16x16
# iMCU grid), and re-encodings of the crop at other samplings.
jpegtran -copy none -crop 161x123+160+96 grace_hopper.jpg >jpeg-420-crop.jpg
jpegtran -copy none -progressive jpeg-420-crop.jpg >jpeg-420-prog.jpg
jpegtran -copy none -crop 3x5+160+96 grace_hopper.jpg >jpeg-420-tiny.jpg
djpeg -pnm jpeg-420-crop.jpg >"$tmp/crop.ppm"
cjpeg -quality 85 -sample 2x1 "$tmp/crop.ppm" >jpeg-422.jpg
cjpeg -quality 85 -sample 1x2 "$tmp/crop.ppm" >jpeg-440.jpg
cjpeg -quality 85 -sample 4x1 "$tmp/crop.ppm" >jpeg-411.jpg
cjpeg -quality 85 -sample 1x1 "$tmp/crop.ppm" >jpeg-444.jpg
cjpeg -quality 85 -grayscale "$tmp/crop.ppm" >jpeg-gray.jpg

# WebP and AVIF from the crop.
$IM "$tmp/crop.ppm" "$tmp/crop.png"
$IM "$tmp/crop.png" \( -size 161x123 gradient:white-black \) -alpha off -compose copy_opacity -composite "$tmp/crop-alpha.png"
cwebp -quiet -q 80 "$tmp/crop.png" -o webp-lossy.webp
cwebp -quiet -q 80 -alpha_q 100 -exact "$tmp/crop-alpha.png" -o webp-lossy-alpha.webp
for s in 420 422 444; do
	avifenc -s 8 --min 20 --max 30 -d 8 --yuv $s "$tmp/crop.png" avif-$s.avif >/dev/null
done

# References.
for f in jpeg-*.jpg; do
	djpeg -pnm "$f" >"$tmp/x.pnm"
	$PY -c 'import sys
from PIL import Image
a, b = Image.open(sys.argv[1]), Image.open(sys.argv[2])
if a.tobytes() != b.tobytes():
    sys.exit(sys.argv[1] + ": Pillow and djpeg differ")
b.save(sys.argv[3])' "$f" "$tmp/x.pnm" "$f.png"
done
djpeg -pnm grace_hopper.jpg >"$tmp/x.pnm"
$PY -c 'import sys
from PIL import Image
if Image.open(sys.argv[1]).tobytes() != Image.open(sys.argv[2]).tobytes():
    sys.exit(sys.argv[1] + ": Pillow and djpeg differ")' grace_hopper.jpg "$tmp/x.pnm"
for f in webp-*.webp; do
	dwebp -quiet "$f" -o "$f.png"
done
for f in avif-*.avif; do
	avifdec -d 8 "$f" "$f.png" >/dev/null
	avifdec -d 8 -u nearest "$f" "$f.nearest.png" >/dev/null
done
