// Package jpegdec decodes baseline and progressive JPEG images as Go's
// image/jpeg does, with one difference: its inverse DCT is libjpeg's
// accurate integer one (jidctint.c, jpeg_idct_islow), the default of
// libjpeg and libjpeg-turbo, so that the Y'CbCr planes it returns are
// libjpeg's own, sample for sample, and not within a few levels of them.
//
// The rest (markers, Huffman decoding, progressive refinement, the
// planes and colour models returned, the errors) is image/jpeg of Go
// 1.26, whose licence is in LICENSE; the files keep its notices. Decode
// returns an *image.Gray, an *image.YCbCr (planes at their stored
// subsampling, not upsampled), an *image.RGBA (Adobe RGB) or an
// *image.CMYK, as image/jpeg does. It registers no image format.
//
// Like image/jpeg, it holds the whole image in memory: the caller bounds
// width × height before decoding (the frame header states them).
package jpegdec
