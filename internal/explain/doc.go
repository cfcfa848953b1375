// Package explain opens a pipeline once and reports each layer of it and
// what opening it cost: what "pipefs explain" prints.
//
// # Building a report
//
// [Explain] opens a pipeline through an [Opener] (vfs.OpenDetect with the
// caller's options: a directory, a container file through its detected
// format, else the file itself), and describes it from the stages that
// the opened value reports (vfs.FS.Stages, vfs.File.Stages): one [Stage]
// per sub-URL, outer to inner, detected ones included, each with the
// time and cost of its own open. With read, it then reads the file to its
// end, or lists the directory's top level, and reports that cost in
// [Report.Read]. [Report.Open] is the sum of the stages' costs and
// [Report.Total] is Open plus Read. Costs are what the counting stages
// (driver.Counter) counted; [Report.Counted] is false when no stage
// counts, and the counts are then zero. Sizes are as of the end of the
// report: a stream read to its end knows its size. Explain closes what it
// opened before it returns; an error from the open or the read is
// returned as it is, so errors.Is sees its cause.
//
// # Rendering
//
// A [Report] marshals to the JSON object "explain --json" writes; its
// keys are lower-case words joined by "_", a size unknown is null.
// [Report.Print] writes it as text: on a terminal as a table that fits
// [Width] columns (internal/texttable), sub-URLs shown as typed
// (vfs.DisplayText) and sizes as ls -h writes them; otherwise as rows of
// tab-separated fields, one row a line, sub-URLs canonical and sizes in
// bytes. Control characters in names are escaped (listfmt.Name).
//
// Rendering does no I/O but the writes to its io.Writer; a Report is
// safe to render concurrently.
package explain
