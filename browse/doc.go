// Package browse is an http.Handler that serves a pipefs directory
// location (a *vfs.FS) as pages to browse in a web browser, stepping into
// the containers, versioned stores and datasets below it, and its files
// as they are. It is what "pipefs serve" serves, as a package that any
// Go program mounts, the way it mounts net/http/pprof.
//
// http.FileServerFS serves a *vfs.FS too, but a zip inside it is a file
// there; here a request path steps into it:
//
//	h := browse.New(fsys, &browse.Options{LoopbackOnly: true})
//	defer h.Close()
//	http.Handle("/", h)
//
// # Paths
//
// A request path maps onto the pipeline: a container file that format
// detection recognises is a folder to click into, so that
// /outer.zip/inner.tar.gz/dir/ shows "URL|zip:inner.tar.gz|gzip:|pipefs.tar:dir/"
// of the served location URL. Without the trailing "/", /outer.zip is the
// file itself, served with http.ServeContent: Range requests, and
// conditional requests against its time and a strong ETag. A directory's
// index.html is served as the directory unless the query has ?list.
//
// At the root of an OCDBT database or Icechunk repository, a path segment
// "@VERSION" (/db.ocdbt/@v3/, /repo/@tag.v1/, a commit time or a snapshot
// id) opens the store at that version, so a key at a store's root that
// looks like one is out of reach.
//
// A path with "." or ".." segments, an empty segment, an encoded "/" or
// "\" or a control character is refused (400), as is any method but GET
// and HEAD (405).
//
// # Pages
//
// A directory page lists name, size (as "ls -h" writes it, 1.5K, with
// the exact bytes on hover), modification time (UTC) and kind: the format
// detection finds in a file's first bytes ("zip", "gzip|tar", "png"), or
// the array, group or store a directory holds. The kinds of a listing's
// entries are detected concurrently, each reading one head.
// An array or group (Zarr v2 or v3, N5, neuroglancer precomputed, HDF5,
// an image) shows what "pipefs array" shows: shape, data type, chunks,
// codecs, attributes. A group read from a directory names each child
// once, in its listing with the child's kind. A 2-D plane of a numeric
// array (index 0 of its leading axes) or an image has a PNG preview,
// ?preview=png, at most 512 pixels a side, refused (422) when it would
// decode more than 256 chunks or 256 MiB, and 501 for elements that are
// not numbers; the page gives the range of the plane's values (minimum,
// maximum, and the number of NaNs, which the range leaves out), read once
// for the page and its preview. A scalar shows its value, and a 1-D array
// of numbers or strings its first 100 values, with, for numbers, the
// range of as many leading values as a preview may read. The scales of a precomputed
// volume are its children: ?child=KEY shows one. At a store's root,
// ?versions lists its versions, and an Icechunk repository's branches and
// tags.
//
// A listing reads, to a crawler, as Python's http.server's listing of the
// same files: fsspec's HTTPFileSystem finds the same names through both.
// The links to a listing's entries are the only links of a page with a
// quoted href, each name escaped as http.server escapes it (every byte but
// letters, digits and "_.-~" percent-encoded): a container file, an image
// or a dataset is linked as the file, and the link to its page (the
// folder that holds what it contains) is written with an unquoted href,
// as are the links of the path, to the parent, to children, to versions
// and to queries. The path does not link the page itself.
//
// /favicon.ico is pipefs's icon (SVG) unless the served location has a
// favicon.ico of its own, so that a browser's visit logs no 404.
//
// Every page shows its canonical pipeline, and ?format=json gives the
// page's data as JSON: an object whose "kind" is "directory", "array",
// "group", "versions" or "error", with "path", "pipeline", "crumbs" and
// one of "directory" (its "entries": name, href, raw, dir, size in bytes,
// modified, kind), "node" (the JSON of "pipefs array --json" as
// "description", its "children", the preview's URL, the "range" of the
// values previewed or listed: of, count, min, max, nan, and a 1-D or
// scalar array's "values": list, total), "versions" or "error" (status,
// message).
//
// # Errors
//
// A file or page that cannot be read is answered with an error page:
// 404 for what does not exist, 403, 501 for what pipefs does not read,
// 503 for a request canceled or a handler closed, and 500 for anything
// else, such as corrupt data; Options.ErrorText words the failure and
// Options.HideErrors leaves it out. A file's first block is read before
// any header is written, so that a file that cannot be read gets an
// error page rather than a 200 whose body breaks off; a read that fails
// once the body has started can only cut the connection. Both are
// logged to Options.Logger.
//
// # Security
//
// Files are served with "X-Content-Type-Options: nosniff" and
// "Content-Security-Policy: sandbox", so that an archive's HTML cannot
// run scripts as the site; pages run only their own script and style,
// which a Content-Security-Policy allows by hash. With
// Options.LoopbackOnly, requests whose Host is not a loopback name are
// refused (403), against DNS rebinding. The handler serves what the
// location holds to whoever can reach it: it has no authentication.
//
// # Layers and revalidation
//
// Each container, store or dataset that a request opens is a layer, kept
// for the next request in a small cache (32 layers, each closed once
// idle for 10 minutes), so that browsing a remote archive again costs no
// request. A layer below the served location is opened relative to the
// layer that holds it (vfs.FS.OpenFS), reading its bytes through that
// layer with nothing above it opened again, so that stepping into an
// archive nested in a remote one costs no request when the outer
// object's bytes are cached; it holds its parent open until it is closed
// itself. A container in a remote directory is opened from its pipeline
// instead, as the object it is now.
//
// Before a kept layer answers a request, the handler checks that what it
// was read from is unchanged: a local file by a stat (size, times,
// inode) at every request, a remote object (http, s3, gs) by one
// conditional request at most once per Options.Revalidate (default 1s),
// shared by the layers that read it. A layer whose file or object
// changed is dropped, with the layers opened through it, and opened again,
// so a rewritten or appended archive shows its new bytes, members and
// listing at the next request, or once the interval has passed for a
// remote one; a served remote directory is opened again after the
// interval. A file's ETag hashes its URL, size and time and the version
// of what it is read from, so a member that changed never answers
// If-None-Match with 304 for its old tag. A served local directory is
// listed at every request.
//
// # Concurrency and ownership
//
// A Handler is safe for concurrent use; concurrent requests for one
// layer wait for a single open. It reads the served FS and never closes
// it. Close closes the layers the handler opened, those that requests
// still hold when the requests end, and later requests are answered 503;
// since layers are opened through the served FS, it must stay open until
// the requests have ended (http.Server.Shutdown) and Close has returned. The layers keep the served FS's
// context (vfs.FS.Context): requests read through their own, and what a
// layer writes as it closes (a sidecar index) follows the served FS's.
package browse
