package main

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/describe"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func newStatCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stat [--json] URL",
		Short: "Describe a location: size, mode, time, URL and archive header",
		Long: `stat describes the file or directory location that URL names: its
name, size, mode, modification time and canonical URL, then the fields of
its raw header where there is one (for a zip member: the compression
method, compressed size, CRC-32 and the like; for an HDF5 dataset its
type, layout and filters). No format is detected: "file:/d/a.zip"
describes the zip file itself. A time the file does not record is left
out. A symbolic link that is not followed (an HDF5 external link, a soft
link whose target does not exist, a zip symlink, a local or tar link that
dangles or loops) is described itself, with its target.

--json writes one JSON object: name, size, mode, is_dir, mod_time,
target, url, header_type and header. The header is typed: the object its
type marshals to (an HDF5 dataset, an image, a Zarr node), or else the
object of its exported fields (a *zip.FileHeader, a *tar.Header, a gzip
header, an OCDBT or Icechunk value; a remote object's {"version": ...}),
keys in lower case with words joined by "_" as in every JSON object
pipefs writes ("crc32", "compressed_size64"), numbers as numbers, times
in RFC 3339, bytes in base64, with the members whose value is zero left
out, as are the legacy 32-bit and MS-DOS fields of a zip header.`,
		Example: `  pipefs stat 'testdata/demo.zip|zip:README.txt'
  pipefs stat --json 'testdata/demo.zip|zip:docs/guide.md'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			pipeline, err := g.pipeline(args[0])
			if err != nil {
				return err
			}
			info, target, err := g.stat(cmd.Context(), pipeline)
			if err != nil {
				return err
			}
			s := describe.FileInfo(info, target)
			if asJSON {
				return printJSON(cmd.OutOrStdout(), s)
			}
			return s.WriteText(cmd.OutOrStdout(), isTerminal(cmd.OutOrStdout()), listfmt.Name)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// stat describes the location that pipeline names. When it names a
// symbolic link that cannot be followed (an HDF5 soft link whose target
// does not exist, an external link, a zip symlink, a local or tar link
// that dangles or loops), stat describes the link itself, as its parent
// directory lists it. When it names a symbolic link, it returns the
// link's target too (fs.ReadLink).
func (g *globals) stat(ctx context.Context, pipeline string) (fs.FileInfo, string, error) {
	f, err := vfs.Open(ctx, pipeline, g.options())
	if err == nil {
		g.count(f)
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return info, "", err
		}
		_, target := g.lstat(ctx, pipeline)
		return info, target, nil
	}
	if info, target := g.unfollowedLink(ctx, pipeline, err); info != nil {
		return info, target, nil
	}
	return nil, "", err
}

// unfollowedLink returns, when err is the error of opening pipeline and
// pipeline names a symbolic link that cannot be followed, the link's
// entry and its target (see lstat); nil otherwise. A
// link cannot be followed when it dangles, leaves its tree or loops.
func (g *globals) unfollowedLink(ctx context.Context, pipeline string, err error) (fs.FileInfo, string) {
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, driver.ErrUnsafePath) && !errors.Is(err, syscall.ELOOP) && !errors.Is(err, vfs.ErrCorrupt) {
		return nil, ""
	}
	return g.lstat(ctx, pipeline)
}

// lstat returns the entry of the symbolic link that pipeline names, with
// fs.Lstat in its parent directory, and its target, with fs.ReadLink; nil
// when it names none.
func (g *globals) lstat(ctx context.Context, pipeline string) (fs.FileInfo, string) {
	fsys, name := g.openParent(ctx, pipeline)
	if fsys == nil {
		return nil, ""
	}
	defer fsys.Close()
	info, err := fs.Lstat(fsys, name)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return nil, ""
	}
	return info, listfmt.LinkTarget(fsys, name, info)
}
