// Package describe renders the descriptions that values give of
// themselves (driver.Describer) for every front end that shows them:
// "pipefs stat" and "stat --json" (a file's entry and its raw header),
// "pipefs array" and "array --json" (an array or group node), and the
// pages and JSON of package browse. A value is described once, by its
// own package, as a driver.Description; this package renders it as
// lines of text ([Lines]) and as JSON ([JSON]), and describes the headers
// that are no Describer (a *zip.FileHeader, a *tar.Header, a local
// file's syscall.Stat_t, a remote object's version) from their exported
// fields ([Header]). Nothing in it names an adapter's type.
//
// # JSON
//
// Every JSON object pipefs writes names its members in one style:
// lower-case words joined by "_" ("is_dir", "mod_time", "max_shape",
// "crc32", "compressed_size64"), the style of the formats it reads (Zarr,
// N5, neuroglancer metadata) and of the members it copies from them. A
// header that is no Describer is written by its exported fields, each
// named by its JSON tag or else by its Go name in that style. "<", ">"
// and "&" are written as they are, not escaped ("<i2", ">u8").
//
// Rendering does no I/O and is safe for concurrent use.
package describe
