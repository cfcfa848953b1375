package vfs

import "context"

// kindDetect is the kind openPipeline is asked for by OpenDetect: a
// directory, or a file that detection makes one, else the file as written.
const kindDetect Kind = 255

// OpenDetect opens the location that pipeline names, once, whatever it
// is: a directory location as OpenFS opens it (a store detected), a
// container file through its detected format as OpenFS opens it
// ("file:/d/a.zip" as "file:/d/a.zip|zip:"), and any other file location
// as Open opens it. Exactly one of fsys and file is non-nil when err
// is nil; the caller must Close it.
//
// The file as written is the answer when no format makes it a directory:
// when no registered format matches it (or several do), when what
// detection finds is a file that none matches ("file:/d/a.txt.gz" is a
// gzip stream of text: it opens as itself, not as "|gzip:", unless the
// pipeline writes the stream out: "file:/d/a.txt.gz|gzip:" opens as the
// folder that holds a.txt, as OpenFS opens it), when it is a
// dataset's file, and with Options.NoDetect. Adapters detected and then
// given up are closed at once; what reading them cost stays counted (see
// FS.Stages). OpenFS followed, on ErrNotDir or ErrUnknownFormat, by
// Open gives the same location but opens the pipeline twice, which
// costs a remote location its first request again. A path ending in "/"
// that names a file fails with ErrNotDir, as with OpenFS.
func OpenDetect(ctx context.Context, pipeline string, o *Options) (fsys *FS, file *File, err error) {
	p, err := Parse(pipeline)
	if err != nil {
		return nil, nil, errorAt("open", pipeline, SuggestScheme(err, o))
	}
	r, err := openPipeline(ctx, p, o, kindDetect)
	if err != nil {
		return nil, nil, errorAt("open", p.String(), err)
	}
	if r.loc.Blob == nil {
		return newFS(r, ctx, o), nil, nil
	}
	return nil, fileOf(r, ctx, o), nil
}

// fileOf returns the File of r, a pipeline opened to a file.
func fileOf(r *result, ctx context.Context, o *Options) *File {
	f := newFile(ctx, r.loc.Blob, fileName(r.p, r.info), r.p, r.info, r.res)
	f.detected = r.detectedAt()
	f.direct = o != nil && o.NoReadAhead
	return f
}
