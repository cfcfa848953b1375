// Package zstdadapter registers the "zstd:" adapter and the zstd format
// signatures with vfs. Import it for its side effects:
//
//	import _ "github.com/pipefs/pipefs/adapters/zstdadapter"
//
// "file:/d/x.zst|zstd:" is the decompressed bytes of x.zst, as a file with
// random access by frame.
//
// # Frames and random access
//
// A zstd file is a sequence of frames (RFC 8878) and skippable frames.
// Open builds an index of the frames: from the seek table of the seekable
// format (a skippable frame with magic 0x184D2A5E ending in the footer
// magic 0x8F92EAB1) when the file ends in one, else by walking the frame
// and block headers, which costs one small read per block and decodes
// nothing. When a frame declares no content size, opening still decodes
// nothing: the size is learnt by the first pass, whichever read makes it.
// The blob is a [driver.Streamer], so io.Copy of the file (pipefs cat)
// decodes the frames once, forward, measuring them on its way;
// Stat().Size(), or a ReadAt, decodes the unmeasured frames on first use,
// once. Size runs with the values of the open's context but not its
// cancellation, and returns Limits.MaxFileSize when the data is bad (the
// read then returns the error; bad data is never cut short silently).
// ReadAt decodes from the start of the frame that holds
// its offset; a read that continues where an earlier one stopped goes on
// with the same decoder. Checkpoints inside a frame are not possible (a
// zstd decoder's state, entropy tables and window included, cannot be
// saved and restored with klauspost/compress), so a file made of one big
// frame is read forward, and a backward read restarts its frame. Write
// seekable files (the seekable format, or zstd's --rsyncable with
// independent frames) for fast random access.
//
// The frame table is kept on disk (vfs.Env.DiskIndex, the index cache of
// package cache/disk) when the pipeline has a store there and the input's
// Key names a durable version: after the walk at open, and again once the
// sizes of frames that declare none are learnt. A later process opens
// the file from the table, without walking its blocks or decoding to
// learn sizes. A kept table is checked at load (order, bounds, the frame
// count against Limits.MaxEntries); one that does not decode is removed.
// With vfs.Options.Sidecar the table is also shared as a sidecar object
// beside the file in its bucket.
//
// # Verification and limits
//
// Content checksums are verified by the decoder when a read reaches the end
// of a frame, and a ReadAt that stops inside a frame whose header sets the
// Content_Checksum_Flag returns its bytes only once the frame is checked:
// the first such read of a frame decodes the whole frame with a decoder of
// its own (the reading decoder stays where it is), and a frame that fails
// gives the read no bytes and an error matching driver.ErrCorrupt. A frame
// is checked once per open file: the decoder is deterministic, so a later
// read of the same bytes gives the checked output. A frame without a
// checksum (zstd --no-check) cannot be verified, and is read as it is. A
// stream (io.Copy) delivers a frame's output as it decodes and fails at
// its end when the checksum differs. Format detection reads unchecked
// (driver.Unverified); a frame whose output differs from its declared content size
// or from its seek table entry is an error matching driver.ErrCorrupt, and so
// are reserved bits, bad magic, truncation and trailing bytes that are not
// a frame. A seek table that does not add up to the file's layout is
// refused at open. A frame whose window is larger than Limits.MaxWindow
// is refused at open with an error matching driver.ErrLimit (and by the
// decoder, for frames a seek table lists), which bounds each decoder's
// memory. Limits.MaxFileSize bounds the total output; past
// Limits.RatioFloor (1 GiB), Limits.MaxRatio bounds each frame's output
// against its compressed size (zstd legitimately goes past 1100:1 on runs
// of one byte, which the floor lets through), and
// the total against the compressed bytes at the bottom of nested
// decompressors. Limits.MaxEntries bounds the number of frames.
//
// # Concurrency and memory
//
// The blob's ReadAt is safe for concurrent use; each concurrent read holds
// one decoder (its window, up to Limits.MaxWindow, plus about 1 MiB). A blob keeps
// at most 4 idle decoders; Close releases them.
//
// A decode that runs through a whole frame, a stream (io.Copy) and the
// checking and measuring decodes above, uses the library's concurrent
// decoding when GOMAXPROCS is 2 or more and the frame declares 1 MiB or
// more, or declares no size and has 512 KiB or more of compressed bytes:
// goroutines of the decoder's own decode the literals and the sequences
// of up to 16 blocks, and execute them, ahead of the reader, which hashes
// and consumes the output. On two idle cores this decodes a large frame
// in about 0.7 the time of one goroutine, for about 1.25 times the CPU (on
// a busy machine it can be slower), and holds about 40 MiB more while the
// frame is under way. Its goroutines end at the end of the frame, or when
// the stream is closed. Smaller frames, whose goroutines would start for
// little gain, and one core decode on the reader's goroutine.
package zstdadapter

import (
	"context"
	"encoding/binary"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zstd", OpenFile: open, Extensions: []string{".zst"}, Stream: true, DecodeHead: DecodeHead})
	vfs.RegisterFormat(&vfs.Format{Name: "zstd", Adapter: "zstd:", Input: vfs.KindFile, Magic: "\x28\xb5\x2f\xfd"})
	vfs.RegisterFormat(&vfs.Format{Name: "zstd (skippable frame first)", Adapter: "zstd:", Input: vfs.KindFile,
		Magic: "?\x2a\x4d\x18", Head: 4096, Match: skippableThenFrame})
}

// The magic numbers of RFC 8878 frames.
const (
	frameMagic    = 0xFD2FB528
	skipMagicMask = 0xFFFFFFF0 // a skippable frame's magic, masked
	skipMagic     = 0x184D2A50
)

// skippableThenFrame matches skippable frames followed by a zstd frame
// within the head.
func skippableThenFrame(head, _ []byte, _ int64) bool {
	for off := 0; off+8 <= len(head); {
		m := binary.LittleEndian.Uint32(head[off:])
		switch {
		case m == frameMagic:
			return true
		case m&skipMagicMask == skipMagic:
			off += 8 + int(binary.LittleEndian.Uint32(head[off+4:]))
		default:
			return false
		}
	}
	return false
}

// Info is what Stat().Sys() returns.
type Info struct {
	Frames   int  // number of zstd frames
	Seekable bool // the index came from a seek table
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	info := src.Stat()
	op := &opener{ctx: ctx, src: src, size: info.Size(), lim: env.Limits, opts: env.Options}
	disk := env.DiskIndex(diskKind)
	var frames []frame
	var seekable, loaded bool
	if data, ok := disk.Load(ctx, int64(op.lim.MaxEntries)*32); ok {
		var err error
		if frames, seekable, err = decodeFrames(data, op.size, op.lim); err != nil {
			disk.Remove()
		}
		loaded = err == nil
	}
	if !loaded {
		var err error
		frames, err = op.seekTable()
		seekable = frames != nil
		if err == nil && frames == nil {
			frames, err = op.walk()
		}
		if err != nil {
			return driver.Location{}, err
		}
	}
	b := &blob{src: src, frames: frames, csize: driver.CompressedSize(src), lim: op.lim, disk: disk, seekable: seekable, checking: make(chan struct{}, 1)}
	if !loaded {
		b.storeFrames(ctx)
	}
	sized := true
	for _, f := range frames {
		sized = sized && f.size >= 0
	}
	sys := &Info{Frames: len(frames), Seekable: seekable}
	if sized {
		if err := b.layout(); err != nil {
			return driver.Location{}, err
		}
		b.info = &driver.FileInfo{
			FName:    fsname.Decompressed("zstd", info.Name()),
			FSize:    b.size,
			FMode:    info.Mode().Perm(),
			FModTime: info.ModTime(),
			FSys:     sys,
		}
		b.sized.Store(true)
		return driver.Location{Blob: b}, nil
	}
	// A frame without a content size: the size is learnt by the first
	// pass, a streamed read or the first call of Size.
	b.info = lazysize.New(ctx, fsname.Decompressed("zstd", info.Name()), info.Mode(), info.ModTime(), sys,
		b.measureAll, b.knownSize, op.lim.MaxFileSize)
	return driver.Location{Blob: b}, nil
}
