package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/arcp"
)

func newArcpCmd(g *globals) *cobra.Command {
	var asJSON, noHash bool
	cmd := &cobra.Command{
		Use:   "arcp [--json] [--no-hash] URL",
		Short: "Print the arcp URIs of a member of a container",
		Long: `arcp prints the arcp URIs (the Archive and Package URI scheme,
draft-soilandreyes-arcp) of the member of a container that URL names, one
per line:

  arcp://uuid,UUID/PATH         location-based
  arcp://ni,sha-256;DIGEST/PATH hash-based
  arcp://name,NAME/PATH         name-based

The container is that of the innermost archive sub-URL (zip:,
pipefs.tar:, ocdbt:, icechunk:): for 'file:/d/a.zip|zip:dir/f.txt' it is
file:/d/a.zip, and for a member of a zip inside it,
'file:/d/a.zip|zip:inner.zip'. A container file given alone
('file:/d/a.zip') names its root, printed with the path "/". Other
formats, such as HDF5 files and Zarr arrays, are no arcp containers.

UUID is the name-based UUID v5 (RFC 9562) of the container's canonical
pipeline in the URL namespace. DIGEST is the SHA-256 of the container's
bytes, base64url-encoded without padding (RFC 6920): of the bytes the
archive reads, so for 'file:/d/a.tar.gz|gzip:|pipefs.tar:x' those of
the tar stream. Computing it reads the whole container, which --no-hash
skips; the ni line is then left out, as it is for a store, which is a
directory. NAME is the container's file name. PATH is the member's
path, each segment percent-encoded as RFC 3986 requires, with a
trailing "/" for a directory. The member must exist.

--json writes one object: the member's canonical pipeline ("url"), the
container's ("container"), and the URIs by kind ("uuid", "ni", "name").`,
		Example: `  pipefs arcp 'file:/data/a.zip|zip:docs/index.html'
  pipefs arcp --no-hash 'testdata/demo.zip|zip:data/inner.zip|zip:deep.zip'
  pipefs arcp --json testdata/demo.zip`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := g.arcpURIs(cmd.Context(), args[0], noHash)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return printJSON(w, ids)
			}
			for _, u := range []string{ids.UUID, ids.NI, ids.Name} {
				if u != "" {
					fmt.Fprintln(w, u)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	cmd.Flags().BoolVar(&noHash, "no-hash", false, "leave out the ni URI, so that the container is not read")
	return cmd
}

// notContainer is the error of arcp for the argument arg, which names a
// file or directory that detection reads through the sub-URLs added, none
// of them an archive (arcp.Split failed with err): it names what the user
// typed and the format found, not a pipeline the user did not write.
func notContainer(arg string, added vfs.Pipeline, err error) error {
	if len(added) == 0 {
		return err
	}
	scheme := added[len(added)-1].Scheme
	format := scheme + ":"
	if s := vfs.SchemeSummary(scheme); s != "" {
		format += " (" + s + ")"
	}
	return &notContainerError{
		msg: fmt.Sprintf("%s is detected as %s, which is no arcp container: arcp names the members of zip:, pipefs.tar:, ocdbt: and icechunk: containers, such as 'a.zip|zip:dir/f.txt'", listfmt.ShellQuote(arg), format),
		err: err,
	}
}

// A notContainerError is the error of notContainer: its own message, and
// the error of arcp.Split (fs.ErrInvalid) to errors.Is and errors.As.
type notContainerError struct {
	msg string
	err error
}

func (e *notContainerError) Error() string { return e.msg }
func (e *notContainerError) Unwrap() error { return e.err }

// arcpIDs is what arcp prints.
type arcpIDs struct {
	URL       string `json:"url"`
	Container string `json:"container"`
	UUID      string `json:"uuid"`
	NI        string `json:"ni,omitempty"`
	Name      string `json:"name,omitempty"`
}

// arcpURIs returns the arcp URIs of the member that arg names.
func (g *globals) arcpURIs(ctx context.Context, arg string, noHash bool) (*arcpIDs, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	p := vfs.MustParse(pipeline)
	m, err := arcp.Split(p)
	if err != nil {
		// A container file alone names its root: detection writes its
		// format out ("file:/d/a.zip" is "file:/d/a.zip|zip:").
		fsys, ferr := vfs.OpenFS(ctx, p.String(), g.options())
		if ferr != nil {
			if errors.Is(ferr, vfs.ErrNotDir) || errors.Is(ferr, vfs.ErrUnknownFormat) {
				return nil, err // a plain file
			}
			return nil, ferr
		}
		detected := fsys.Pipeline()
		fsys.Close()
		if m, err = arcp.Split(detected); err != nil {
			return nil, notContainer(arg, detected[len(p):], err)
		}
	}
	fsys, err := vfs.OpenFS(ctx, m.Root.String(), g.options())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	g.count(fsys)
	info, err := fsys.Stat(m.Name)
	if err != nil {
		return nil, err
	}
	if last := p[len(p)-1]; last.IsDir() && !info.IsDir() {
		// As opening it does, and as a resolver resolves its URI.
		return nil, fmt.Errorf("%s names a file: %w; leave out the trailing \"/\"", p, vfs.ErrNotDir)
	}
	var r arcp.Resolver
	opened := func(f *vfs.File) { g.count(f) } // --stats counts the hashing too
	id, err := r.Add(ctx, fsys, &arcp.Options{VFS: g.options(), NoHash: noHash, Opened: opened})
	if err != nil {
		return nil, err
	}
	defer r.Remove(id)
	out := &arcpIDs{URL: fsys.URL(m.Name), Container: id.Container.String()}
	for _, a := range []struct {
		authority string
		to        *string
	}{{id.UUID, &out.UUID}, {id.NI, &out.NI}, {id.Name, &out.Name}} {
		if a.authority == "" {
			continue
		}
		u, err := arcp.New(a.authority, m.Name, info.IsDir())
		if err != nil {
			return nil, err
		}
		*a.to = u.String()
	}
	return out, nil
}
