// Package complete completes pipeline arguments as a person types them in
// a shell, and reads and quotes bash command lines for the completion
// scripts it prints.
//
// # Pipelines
//
// [Completer.Complete] takes the text of one argument and returns the
// candidates, each the whole argument:
//
//   - a local path or a root sub-URL ("memory:a/", "s3://b/p"): the
//     entries of its directory;
//   - after a "|": the adapters that fit the base, found by detecting its
//     bytes and following byte transforms ("a.tar.gz|" offers "gzip:" and
//     "gzip:|pipefs.tar:"), or by the directory formats of the registry
//     ("zarr3:" beside zarr.json), else by the extensions of its name,
//     else every adapter that reads the base's kind; after an adapter
//     that takes no path ("a.tar.gz|gzip:"), the next adapter;
//   - inside an adapter that holds entries (an archive, a store): the
//     entries of its directory;
//   - in the authority of a versioned store's sub-URL ("ocdbt://"): the
//     names of its refs (driver.RefLister), else the IDs of its versions
//     (driver.Versioned), written as the scheme writes a version
//     (vfs.SubURL.WithVersion).
//
// A directory entry ends in "/". A file entry whose name suggests a
// container (Registry.ByExtension) comes with that adapter appended
// ("a.zip|zip:"). A file that is the only entry matching what is typed
// comes with every "|adapter:" continuation that its bytes are detected
// as, chained through byte transforms, else that its name suggests
// ("x.tar.bz2|pipefs.bzip2:|pipefs.tar:"): a name that pipefs opens as a
// container, a dataset or an image is never the only candidate, so a
// shell neither closes the quote nor adds a space after it.
//
// Everything the package knows of a scheme beyond its syntax it reads
// from the registry of the Options: the roots and adapters there, the
// extensions they declare (Adapter.Extensions), which adapters are
// streams (Adapter.Stream), the formats and how to detect them. No
// scheme is named here.
//
// # Opening
//
// A completion opens the directory that holds the typed location once
// (vfs.OpenFS of the resolved text), and everything after it relative to
// that FS (FS.OpenDetect): detecting a chain of byte transforms never
// reopens the pipeline from its root. Detection is off in the Options
// the Completer uses, since what is typed names each layer.
//
// # Time
//
// A completion takes as long as its context allows; Complete returns when
// the context ends even if a driver does not heed it (the work is left
// to end with the process). Detection gets two thirds of the time left:
// when it runs out (a large compressed file that is not cached), the
// adapters that the name suggests are offered instead of nothing.
//
// # Names
//
// An entry name is written as a pipeline needs it: "%", "|", "#" and "?"
// become %25, %7C, %23 and %3F, and a control character (a newline, a
// tab) its percent escape, so a candidate is one line of the completion
// protocol and reads back as the name.
//
// # Bash
//
// [SplitLine], [ReadlineStart] and [QuoteFor] read a bash command line as
// bash and readline read it and quote text for where it is inserted;
// [BashReplies] turns the candidates of the last word into the lines the
// bash script adds to COMPREPLY. [BashScript], [ZshScript] and
// [FishScript] are the scripts that "pipefs completion SHELL" prints.
package complete
