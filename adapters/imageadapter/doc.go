// Package imageadapter registers the image adapters of pipefs: png:,
// jpeg:, bmp:, tiff:, webp: and avif:. Each reads an image file and yields
// a file whose bytes are its decoded pixels:
//
//	file:/d/a.png|png:
//	file:/d/scan.zip|zip:page.tif|tiff:
//	file:/d/a.zarr/img/c/0/0/0|png:     a Zarr chunk file that is a PNG
//
// The schemes take no path. The result is a file named as its input.
//
// # Pixels
//
// The bytes are the samples in row-major order (rows top to bottom,
// pixels left to right), channels interleaved. The channels are the
// image's own: 1 for gray, 2 for gray and alpha, 3 for RGB, 4 for RGBA.
// Samples are uint8, or uint16 little endian for 16-bit PNG and TIFF.
// Stat().Sys() (inside a *vfs.Origin) is an *[Image]: shape [height,
// width, channels], sample type, and what the file states about colour
// (colour model, bit depth, palette size, gamma, sRGB and ICC presence,
// EXIF orientation). Nothing is colour managed or rotated, and alpha is
// never premultiplied here: an ICC profile, a gamma or an orientation is
// reported, not applied.
//
//   - PNG (image/png): 1-, 2- and 4-bit gray is scaled to 8 bits; a
//     palette expands to RGB, or to RGBA when a tRNS chunk gives
//     transparency. A tRNS chunk on a gray or RGB image adds an alpha
//     channel too (gray+alpha, RGBA), as libpng's tRNS-to-alpha does.
//   - JPEG (internal/jpegdec, from image/jpeg): gray gives 1 channel, Y'CbCr (and Adobe RGB)
//     3 channels of RGB, converted (JFIF, full range) with libjpeg's
//     fixed-point arithmetic. CMYK and YCCK give 4 channels of CMYK ink,
//     0 meaning no ink (the Adobe inversion undone), with Image.Channels
//     "CMYK": converting ink to RGB needs a profile, which is the
//     caller's to apply. Baseline and progressive
//     are read; lossless, hierarchical and arithmetic coding are not
//     (errors.ErrUnsupported). The pixels are those of libjpeg-turbo with
//     its defaults (djpeg, and Pillow, which calls it so), exactly: the
//     decoder (internal/jpegdec, Go's image/jpeg with libjpeg's accurate
//     integer IDCT, jpeg_idct_islow) gives libjpeg's Y'CbCr planes, and
//     4:2:2, 4:2:0 and 4:4:0 chroma is upsampled with libjpeg's "fancy"
//     triangle filters (h2v1, h2v2, h1v2 in jdsample.c: 3/4 of the
//     nearer sample and 1/4 of the further, with libjpeg's rounding;
//     planes 2 samples wide or less are replicated, as libjpeg does);
//     4:1:1 and 4:1:0 chroma is replicated, as libjpeg does. Measured on
//     matplotlib's grace_hopper.jpg (512x600, 4:2:0) and on crops and
//     re-encodings of it (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, gray,
//     progressive, odd sizes): largest difference 0 from djpeg and
//     Pillow. Replicated chroma ("djpeg -nosmooth", libjpeg's
//     do_fancy_upsampling off) differs from it by up to 46 levels on that
//     photo (PSNR 42.7 dB); the scheme takes no options, and that mode is
//     not offered. A CMYK test image is within 1 of ImageMagick's; YCCK
//     and subsampled CMYK are converted and replicated as image/jpeg does.
//   - BMP (golang.org/x/image/bmp): 1-, 2-, 4- and 8-bit palettes give
//     RGB, 24-bit RGB, 32-bit RGBA with a V4 or V5 header (which has an
//     alpha mask) and RGB with the 40-byte header, whose fourth byte is
//     padding. RLE and 16-bit bitfields are not read.
//   - TIFF (golang.org/x/image/tiff): gray 1-, 8- and 16-bit, RGB and RGBA
//     8- and 16-bit, 8-bit palettes (to RGB; the colour map's 16-bit
//     entries scaled to 8 bits rounding down, as libtiff does); strips or
//     tiles; no compression,
//     LZW, deflate, PackBits, CCITT. Associated (premultiplied) alpha is
//     given as stored, with Image.AssociatedAlpha set. Separate planes,
//     gray with alpha, CMYK, YCbCr, floats and BigTIFF are not read.
//   - WebP (golang.org/x/image/webp): lossless gives RGB, or RGBA when
//     the file says it uses alpha; lossy gives RGB, or RGBA with an ALPH
//     chunk. Lossy 4:2:0 chroma is upsampled with libwebp's "fancy"
//     upsampler (src/dsp/upsampling.c), dwebp's default, and converted as
//     libwebp does (VP8YUVToR, G and B: BT.601 limited range): exactly
//     the pixels of dwebp (largest difference 0 on the test images and on
//     photos). "dwebp -nofancy" (each chroma sample covering its 2x2
//     block) is not offered. Animations are not read.
//   - AVIF (github.com/gen2brain/avif, libavif and dav1d compiled to
//     WebAssembly and run by wazero): RGB, RGBA with an alpha item, gray
//     for a monochrome image (pixi with one channel). Deeper samples are
//     rounded to 8 bits. The decoder returns RGB only, its chroma
//     upsampled by libavif's automatic choice, which in its WebAssembly
//     build is nearest: exactly "avifdec -u nearest". avifdec's default
//     (libyuv's bilinear filter) differs on a photo by up to 15 levels for
//     4:2:0 (PSNR 44.5 dB) and 8 for 4:2:2 (50.6 dB); 4:4:4 is identical.
//     As the planes are not exposed, pipefs cannot filter them itself. The decoder gives colour premultiplied by alpha
//     in 8 bits; it is divided back, so where alpha is small colour is
//     only within 255/(2 alpha) of the file's. The WebAssembly module is
//     compiled on the first AVIF decode of the process (about 0.6 s),
//     never at start-up; the package's initialisation costs about 1.5 ms
//     (it looks for a system libavif.so, which it then uses instead of
//     WebAssembly: with libavif-dev installed the pixels are libavif's
//     own). Its decoding does not stop when the context is cancelled, and
//     libavif's diagnostics go to standard error. The decoder decodes
//     whatever data there is, so before decoding the extents of every
//     item (the iloc box) are checked against the file's size, and the
//     AV1 OBUs of each av01 item must fill its data exactly: a truncated
//     file is corrupt, not an image whose end is zero.
//
// # TIFF pages
//
// A TIFF with several pages yields its first page through tiff:, and
// Image.Pages says how many it has. The image schemes take no path, and
// what tiff: yields is a file (the pixels), which has no entries; so the
// pages are the directory that the vendor scheme pipefs.pages (one scheme
// for the pages of any paged format; TIFF is the one it reads) yields
// over the same file:
//
//	file:/d/x.tif|pipefs.pages:          a directory holding "page/"
//	file:/d/x.tif|pipefs.pages:page/     the pages: "0", "1", ...
//	file:/d/x.tif|pipefs.pages:page/2    the third page, as tiff: gives the first
//
// So "pipefs ls 'file:/d/x.tif|pipefs.pages:page/'" lists the pages with
// their sizes, and each page's Sys is an *Image like tiff:'s. The chain
// of IFDs is walked with a bound on its length (65536 pages, and
// Limits.MaxEntries for the listing) and a chain that loops back is
// corrupt; the offsets found are kept in the cache, so that opening each
// page of a long TIFF costs one IFD read. Each page is decoded through a
// copy of the file's 8-byte header that points at the page's IFD. Input
// that is not a TIFF fails as tiff: fails ("not a TIFF image").
//
// # Images in other containers
//
// An image inside an archive or a store is a file like any other:
// "file:/d/a.zip|zip:img/a.png|png:". The chunk files of a Zarr array
// that are images are read by their keys in the store,
// "file:/d/a.zarr/img/c/0/0/0|png:": zarr3: yields a dataset, not a
// file, so "zarr3:img/c/0/0/0|png:" is a kind mismatch of the grammar.
//
// # Arrays
//
// *Image implements array.Noder: its ArrayNode is an array node of format
// the scheme ("png"), shape [height, width, channels], dtype uint8 or
// uint16, read in bands of whole rows of about 1 MiB, so "pipefs array"
// and package array describe and read an image as they do a Zarr array.
//
// # Decoding, limits and the cache
//
// Opening reads the header only: the format's own header (IHDR and the
// chunks before IDAT, JPEG markers up to the frame header, the BMP DIB
// header, the TIFF IFD, the WebP chunk headers, the AVIF meta box), which
// gives the shape, the channels and the bit depth. Before anything is
// decoded, width × height × channels × sample size is checked against
// Limits.MaxFileSize (the size of the file the adapter yields) and, with
// the memory the decoder needs for its own image added, against
// Limits.MaxChunk: the decoded image is held in memory whole, as one
// decoded chunk of the array is, so MaxChunk is the limit that bounds
// memory (MaxFileSize, 1 TiB by default, bounds sizes, not memory). An
// image over either fails to open with an error matching driver.ErrLimit
// that names both, without allocating its pixels.
//
// The pixels are decoded on the first read, once per open file, and kept
// in the pipeline's vfs.Cache under the input's vfs.Env.Key, so a later
// open of the same unchanged file does not decode again. A file whose
// header is sound but whose data is not opens, and its first read fails.
//
// # Errors
//
// Input that is not of the format fails with "not a PNG image (no PNG
// signature at offset 0)" and, when detection recognises another format,
// the adapter to use (vfs.NotFormat); it matches driver.ErrCorrupt. So
// does malformed data, and a file cut short: every scheme fails on a
// truncated file, unless the part cut off is not needed for the pixels.
// What a decoder does not read matches errors.ErrUnsupported; so does a
// GIF given to any image scheme (GIF is not read; the error lists the
// schemes that are). I/O and context errors of the input are returned as
// they are.
//
// # Detection
//
// Each format registers its signature: PNG "\x89PNG\r\n\x1a\n", JPEG
// ff d8 ff, BMP "BM" with a known DIB header size, TIFF "II*\0",
// "MM\0*" (and BigTIFF, to report it as unsupported), WebP
// "RIFF....WEBP", AVIF an ftyp box of brand avif, avis or mif1.
//
// # Conformance
//
// The tests compare every image of testdata/images, written by
// ImageMagick, libtiff's tools, cwebp and avifenc (scripts/images.sh),
// with the raw pixels of a reference decoder kept beside it: ImageMagick
// for PNG, BMP, TIFF and CMYK JPEG, djpeg for JPEG, dwebp for WebP and
// avifdec -u nearest for AVIF. Lossless formats, JPEG and lossy WebP
// match exactly (CMYK JPEG within 1); AVIF within 2 per sample.
// testdata/images/README.md says how each reference was made. The images
// of testdata/photos (scripts/photos.sh) are a photograph that pipefs's
// tools did not write, matplotlib's grace_hopper.jpg, and crops and
// re-encodings of it by jpegtran, cjpeg, cwebp and avifenc; their pixels
// are compared with the defaults of djpeg (and Pillow), dwebp and avifdec.
package imageadapter
